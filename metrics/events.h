/* events.h: a decoded batch, the one form in which the metric engines see
 * a thread's execution: block instances in program order and the memory
 * accesses each made, in order.  The runtime's decoder is the only code
 * that reads record words; it fills one batch per drained buffer.  A batch
 * owns its arrays (nothing points into the record buffer), so it can be
 * handed to another thread, filtered or kept. */
#ifndef PISA_METRICS_EVENTS_H
#define PISA_METRICS_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "program.h"

/* ---- Accesses -----------------------------------------------------------
 * An access kind is a set of these bits. */
enum access_bit {
  ACCESS_READS = 1u << 0,  /* reads memory (a load in the schedules) */
  ACCESS_WRITES = 1u << 1, /* writes memory (a store) */
  /* Its bytes are known only at run time (memcpy, memset, gather and
   * scatter lanes): the instruction mix's static byte counts leave it out. */
  ACCESS_RUNTIME_BYTES = 1u << 2,
  ACCESS_LANE = 1u << 3, /* one active lane of a gather or scatter */
  ACCESS_BULK = 1u << 4, /* memcpy or memset */
  ACCESS_FILL = 1u << 5, /* memset */
};

enum access_kind {
  ACCESS_LOAD = ACCESS_READS,
  ACCESS_STORE = ACCESS_WRITES,
  ACCESS_RMW = ACCESS_READS | ACCESS_WRITES, /* atomicrmw, cmpxchg */
  ACCESS_MEMCPY_SOURCE = ACCESS_READS | ACCESS_RUNTIME_BYTES | ACCESS_BULK,
  ACCESS_MEMCPY_DEST = ACCESS_WRITES | ACCESS_RUNTIME_BYTES | ACCESS_BULK,
  ACCESS_MEMSET =
      ACCESS_WRITES | ACCESS_RUNTIME_BYTES | ACCESS_BULK | ACCESS_FILL,
  ACCESS_GATHER_LANE = ACCESS_READS | ACCESS_RUNTIME_BYTES | ACCESS_LANE,
  ACCESS_SCATTER_LANE = ACCESS_WRITES | ACCESS_RUNTIME_BYTES | ACCESS_LANE,
};
/* A load, store or RMW site's access kind is its site kind (program.h):
 * the decoder copies it, and counts derived from sites rely on it. */
_Static_assert((int)ACCESS_LOAD == PROGRAM_SITE_LOAD &&
                   (int)ACCESS_STORE == PROGRAM_SITE_STORE &&
                   (int)ACCESS_RMW == PROGRAM_SITE_RMW,
               "fixed-size access kinds");

/* ---- Block instances ----------------------------------------------------
 * How an instance begins (the low bits of `start`) and what the decoder
 * knows about it (the high bits). */
enum instance_start {
  INSTANCE_ENTERED = 0,   /* the block was entered: its sites from 0 */
  INSTANCE_RESUMED = 1,   /* resumed after call site first_site - 1 */
  INSTANCE_CONTINUED = 2, /* the previous batch's last instance goes on */
  INSTANCE_START_MASK = 3,
  /* The decoder had lost the thread's block context just before it (an
   * unknown block id): the instance before it is not its predecessor. */
  INSTANCE_LOST_CONTEXT = 1u << 2,
  /* RESUMED: no instrumented code ran during the call (an external or
   * uninstrumented callee, or one that called nothing instrumented). */
  INSTANCE_EXTERNAL_CALL = 1u << 3,
  /* Some of its accesses are of memcpy, memset, gather or scatter sites
   * (ACCESS_RUNTIME_BYTES): without it, every access is a load, store or
   * RMW of its site's static size. */
  INSTANCE_WIDE = 1u << 4,
};

/* A batch as structure of arrays; n_instances and n_accesses entries each
 * (first_access has n_instances + 1).  Instance i made the accesses
 * [first_access[i], first_access[i + 1]), in program order: one per load,
 * store and RMW, the source then the destination of a memcpy, the
 * destination of a memset, one per active lane of a gather or scatter.  It
 * holds the words of its sites [first_site, end_site) (a call site writes
 * none: it is reached when the sites before it are); the remaining sites
 * come with a CONTINUED instance of the next batch or never (a lost
 * context, a non-local exit). */
struct event_batch {
  size_t n_instances, n_accesses;
  size_t instance_capacity, access_capacity;

  uint32_t *block;        /* global block id */
  uint8_t *start;         /* enum instance_start, with its flags */
  uint32_t *first_site;   /* 0, call + 1, or where the previous batch ended */
  uint32_t *end_site;     /* one past the last site it holds */
  uint32_t *first_access; /* index of its first access */

  uint64_t *addr;        /* start address */
  uint64_t *size;        /* bytes: memcpy/memset length, lane size, or the
                            site's static size */
  uint32_t *site;        /* index of its site in the instance's block */
  uint8_t *kind;         /* enum access_kind */
  uint8_t *access_class; /* enum program_access_class of its site */
  /* (A decoder may leave site and access_class of loads, stores and RMWs
   * unset when no consumer of the batch reads them: the runtime's does
   * for runs without schedules, access classes, objects and sampling.
   * They are set for every other access, and addr, size and kind always.) */

  /* The block the thread was in before the first instance (PROGRAM_NONE
   * when none was known), so a batch alone says where its first entered
   * block came from. */
  uint32_t block_before;
  /* Record words the decoder dropped in this batch: not explained by the
   * program (signal handlers, non-local jumps, unknown blocks). */
  uint64_t desync;
  /* The thread's instructions through this batch, for a consumer that
   * needs a clock (the runtime's memory budget); 0 when nobody set it. */
  uint64_t clock;

  /* Region markers (PISA_ROI_BEGIN / END) in program order: marker m came
   * after the instances before mark_instance[m] and before the others;
   * mark_region[m] is the region's id << 1, | 1 for an end. */
  size_t n_marks, mark_capacity;
  uint32_t *mark_instance, *mark_region;

  /* Heap events (allocations and releases, in program order). */
  size_t n_heap, heap_capacity;
  struct heap_event *heap;

  /* Per access, the data object it belongs to, named after decoding when
   * objects are on (the runtime's objects.c), else NULL; a copy of the
   * batch's accesses (sampled) has none. */
  uint32_t *object;
  size_t object_capacity;
};

/* A call that allocated or released heap memory returned: it came after
 * the batch's accesses before `access`, in instance `instance`. */
struct heap_event {
  uint64_t base;     /* what it allocated, 0 for nothing */
  uint64_t size;     /* bytes allocated */
  uint64_t released; /* the start of what it released, 0 for nothing */
  uint32_t site;     /* global heap site id */
  uint32_t access;
  uint32_t instance;
};

/* An end marker's bit in mark_region. */
#define EVENT_MARK_END 1u

/* An empty batch with no arrays. */
void event_batch_init(struct event_batch *b);
void event_batch_free(struct event_batch *b);

/* Empties b and makes room for `instances` instances and `accesses`
 * accesses; 0, or -1 when memory ran out (b is then empty). */
int event_batch_reset(struct event_batch *b, size_t instances, size_t accesses);

/* Makes dst a batch of src's instances with no accesses yet: it shares
 * src's block, start, first_site and end_site (valid while src's are, not
 * to be written through dst), and has its own first_access, which the
 * writer fills, and room for `accesses` accesses.  block_before and desync
 * are src's; markers and heap events none.  The next event_batch_reset
 * gives dst its own instance arrays again.  0, or -1 when memory ran out
 * (dst is then empty). */
int event_batch_share_instances(struct event_batch *dst,
                                const struct event_batch *src, size_t accesses);

/* Room for n region markers; 0, or -1 when memory ran out. */
int event_reserve_marks(struct event_batch *b, size_t n);
/* Appends a region marker before the next instance; 0, or -1 when memory
 * ran out (the marker is dropped). */
int event_add_mark(struct event_batch *b, uint32_t region_and_end);

/* Appends a heap event at the batch's current access and instance; 0, or
 * -1 when memory ran out (the event is dropped). */
int event_add_heap(struct event_batch *b, uint64_t base, uint64_t size,
                   uint64_t released, uint32_t site);

/* The instances [first, end) of b as a batch of their own, sharing b's
 * arrays (first_access stays an index into b's accesses). */
struct event_batch event_batch_slice(const struct event_batch *b, size_t first,
                                     size_t end);

/* Appends an instance (holding no site yet) and an access to it; the
 * writer made room with event_batch_reset, sets end_site as sites are
 * decoded, and first_access[n_instances] when the batch is complete. */
static inline void event_add_instance(struct event_batch *b, uint32_t block,
                                      uint8_t start, uint32_t first_site) {
  size_t i = b->n_instances++;
  b->block[i] = block;
  b->start[i] = start;
  b->first_site[i] = b->end_site[i] = first_site;
  b->first_access[i] = (uint32_t)b->n_accesses;
}

static inline void event_add_access(struct event_batch *b, uint64_t addr,
                                    uint64_t size, uint32_t site, uint8_t kind,
                                    uint8_t access_class) {
  size_t a = b->n_accesses++;
  b->addr[a] = addr;
  b->size[a] = size;
  b->site[a] = site;
  b->kind[a] = kind;
  b->access_class[a] = access_class;
}

#endif /* PISA_METRICS_EVENTS_H */
