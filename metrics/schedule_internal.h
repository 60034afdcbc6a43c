/* schedule_internal.h: the scheduler's state, shared by its files
 * (schedule_run.c, schedule_frames.c, schedule_memory.c,
 * schedule_result.c) and by nothing else. */
#ifndef PISA_METRICS_SCHEDULE_INTERNAL_H
#define PISA_METRICS_SCHEDULE_INTERNAL_H

#include "schedule.h"
#include "u64map.h"

#define NONE32 UINT32_MAX
/* The owner of an opcode or category that many functions run. */
#define SHARED_FN (UINT32_MAX - 1)
#define PAGE_SHIFT 8 /* shadow pages of memory state cover 256 bytes */
#define PAGE_CACHE 16
#define PAGE_SHIFT_SLOTS 4 /* slot sizes: 1, 2, 4 or 8 bytes */
#define MAX_ACCESSES 256   /* addresses one instruction can touch (lanes) */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NARROW_LIMIT (UINT64_C(1) << 32) /* values 32-bit words hold */

/* A value slot: ready cycle per schedule, then the block instance that
 * produced it (PBBLP): instance sequence number, block + 1, level. */
enum { TAG_SEQ, TAG_BLOCK, TAG_LEVEL, TAG_WORDS };

struct span {
  uint64_t max, span;
};

struct fn_state { /* counts first: sched_loop_result clears up to total */
  uint64_t n, n_op[PISA_OPCODE_MAX];
  uint64_t n_cat[PISA_CAT_COUNT];      /* by program_instr.category */
  uint64_t accesses[2], contiguous[2]; /* load, store */
  struct span total[SCHED_MAX_WINDOWS + 2];
  struct span *cat; /* [window][category] */
  struct span *op;  /* [window][opcode] */
};

/* An instruction as the schedules need it, resolved once per block. */
struct uop {
  uint8_t op, cat;
  uint8_t index_update; /* PROGRAM_INSTR_INDEX_UPDATE */
  uint8_t has_site;     /* the block's next site is this instruction */
  uint32_t n_ops;       /* operands it depends on */
  uint32_t out;         /* word offset of its value slot in the frame */
  uint32_t ops;         /* its first operand's offset in op_off */
};

struct block_state {
  const struct program_block *pb; /* NULL until the block is first seen */
  /* Its source function's state: inlined code counts for the inlined
   * function, as in every other family (program_block.source). */
  struct fn_state *fs;
  /* With per-loop results: the states of its innermost loop and of each
   * loop around it (spans rise up the nest; counts go to the first). */
  struct fn_state **nest;
  uint32_t n_nest;
  int entry;         /* its function's entry block */
  int pbblp_counted; /* not only index updates and branches */
  /* No other source function runs its opcodes and categories: the
   * thread's spans of them are its function's, and its instances leave
   * them alone. */
  int solo;
  uint64_t instances, max_level;
  /* Its instructions scheduled, and per ILP window how far the thread's
   * highest issue cycle rose while they ran: the windowed critical path
   * split by block, whose parts sched_thread_result_strata scales by the
   * block's exact executions in a sampled run. */
  uint64_t scheduled, advance[SCHED_MAX_WINDOWS];
  uint64_t *last_end; /* per site: end address of its previous access */
  /* Word offsets in the frame of the operands its instructions depend on,
   * instruction by instruction (constants and globals left out). */
  uint32_t *op_off;
  struct uop *uops; /* its instructions, pre-decoded */
};

struct frame {
  uint32_t fn;
  uint32_t block;     /* current global block, NONE32 before the first */
  uint32_t pending;   /* call site waiting for its callee, or NONE32 */
  uint32_t cursor;    /* next instruction of `block` */
  uint32_t site;      /* next site of `block` */
  int from_call;      /* its arguments came from the caller's call */
  size_t base, words; /* its slot words in vals */
  /* The slots its block instances may have written, instructions' and
   * phis' ([lo, hi) each, empty when lo >= hi): what pop_frame zeroes, so
   * that vals past the top frame stay zero and a new frame needs no
   * zeroing (the arguments' slots are zeroed whole). */
  uint32_t written_lo[2], written_hi[2];
  uint64_t bb_prev[2]; /* in-order issue of the block instance */
  uint64_t seq, level; /* the current block instance (PBBLP) */
  int wrote, late;     /* level rose after the instance produced values */
  size_t stores_mark;  /* its stored addresses start here in `stores` */
};

struct shadow_page {
  /* Its entries, of `words` words each, one per slot; before them, in the
   * same block, a key byte per slot (page_keys). */
  unsigned char *base;
  unsigned shift; /* log2 of the bytes per slot */
  /* entry_words, or load_words while nothing has stored to the page: its
   * entries then hold the load ready cycles only (a store's words would
   * all be 0), and the first store makes them whole. */
  unsigned words;
  /* Its start addresses that went to overflow entries wanting smaller
   * slots, since it last took a slot size. */
  uint32_t overflow;
  uint32_t run; /* 1 + its short run (schedule_memory.c), 0: a heap block */
};

/* Slots of a page of 2^shift-byte slots, and so its key bytes. */
static inline size_t page_entries(unsigned shift) {
  return (size_t)1 << (PAGE_SHIFT - shift);
}

/* The keys of page p's slots, one byte each before its entries: the
 * offset in the slot of the start address whose entry the slot holds,
 * plus 1 (1 to 8); 0 while it holds none.  A byte where the entries
 * once began with a word of their own (issue 13, twentieth session). */
static inline unsigned char *page_keys(const struct shadow_page *p) {
  return p->base - page_entries(p->shift);
}

/* A region of interest: a scope of the thread's one schedule, like a
 * function's (the span definition over the instructions run while it was
 * open, callees included), and per block the instances started while it
 * was open (its PBBLP weighs the blocks' by them). */
struct region_scope {
  struct fn_state fs;
  struct u64map instances; /* global block id -> instances */
};

/* Mapped memory that short pages are cut from in order. */
struct short_run {
  unsigned char *base; /* NULL once unmapped */
  uint32_t live;       /* pages cut from it and not freed */
};

struct sched {
  struct sched_config cfg;
  unsigned n_sched, stride; /* schedules; words per value slot */
  const struct program *program;

  struct block_state *blocks;
  uint32_t n_blocks;
  struct fn_state **fns;
  uint32_t n_fns;
  struct fn_state **loops; /* per loop (global id), with cfg.loops */
  uint32_t n_loops;

  struct frame *frames;
  size_t depth, frame_cap;
  uint64_t *vals;
  size_t vals_cap;

  /* Memory state by exact start address: shadow pages of entries (store
   * ready[S], load ready[S], and with BBLP the tag; keyed by a byte per
   * slot beside them, page_keys), one per 2^shift
   * bytes where 2^shift is the size of the first access to the page (so
   * arrays of doubles, ints or chars get one per element), found through a
   * small page cache; other start addresses falling into a taken entry go
   * to overflow chunks (whole entries, keyed by the overflow map).  A
   * page no access has stored to holds short entries (load ready[S]):
   * read-only data (a region's inputs, a list it walks) takes S words an
   * entry instead of entry_words.
   * A page whose start addresses overflow its slots often enough (bytes
   * of an array first written a word at a time) takes smaller slots, and
   * its overflow entries move into them.  Entries move when they widen,
   * when their page's first store makes them whole, when their page
   * takes smaller slots and when short pages move to new runs
   * (schedule_memory.c; `entries_moved` counts all but the first).  Their
   * words are 32 bits while every cycle and instance number fits (each
   * rises by at most one per instruction), 64 bits from the instruction
   * where one might not: `wide`. */
  size_t entry_words, load_words;
  uint64_t entries_moved;
  int wide;            /* entry words are 64 bits */
  uint64_t wide_at;    /* the first value 32-bit words must not reach */
  uint64_t narrow_to;  /* s->n + next_seq up to which they cannot */
  struct u64map pages; /* page number -> 1 + index in page_base */
  struct shadow_page *page_base;
  size_t n_pages, page_cap;
  struct {
    uint64_t page; /* page number + 1, 0 when empty */
    struct shadow_page p;
  } page_cache[PAGE_CACHE];
  struct u64map overflow; /* address -> 1 + overflow entry number */
  unsigned char **chunks;
  size_t n_overflow, chunk_cap;
  size_t *free_overflow; /* entry numbers whose entries moved into pages */
  size_t n_free, free_cap;
  struct short_run *runs; /* the last one is being filled */
  size_t n_runs, runs_cap, run_fill;
  size_t short_live; /* bytes of the short pages in use */
  /* Short pages freed in runs still mapped, by log2 of their slot size,
   * for the next short pages of that size (schedule_memory.c). */
  struct freed_page {
    unsigned char *base;
    uint32_t run;
  } *freed[PAGE_SHIFT_SLOTS];
  size_t n_freed[PAGE_SHIFT_SLOTS], freed_cap[PAGE_SHIFT_SLOTS];

  uint64_t *ring[SCHED_MAX_WINDOWS];
  uint32_t ring_pos[SCHED_MAX_WINDOWS];
  uint64_t floor[SCHED_MAX_WINDOWS];

  uint64_t cycles[SCHED_MAX_WINDOWS + 2];
  /* The thread's spans [window][...], kept for the opcodes and categories
   * of more than one function (SHARED_FN in op_fn, cat_fn); the others'
   * are those of the one function (NONE32: none yet) that runs them. */
  struct span *cat, *op;
  uint32_t op_fn[PISA_OPCODE_MAX], cat_fn[PISA_CAT_COUNT];
  uint64_t n, n_op[PISA_OPCODE_MAX];
  uint64_t n_cat[PISA_CAT_COUNT]; /* by program_instr.category */
  uint64_t accesses[2], contiguous[2];

  /* Regions of interest by id (NULL: not open yet, or freed), and those
   * open now, which every instruction and block instance adds to. */
  struct region_scope **regions;
  uint32_t n_regions;
  struct region_scope **open;
  size_t n_open, open_cap;
  uint64_t region_losses; /* instances a region lost without memory */

  uint64_t next_seq;
  void **stores; /* entries stored by the active block instances */
  size_t n_stores, stores_cap;
  uint64_t desync;
  uint64_t untracked; /* accesses that found no memory state */
  int in_segment;     /* the top frame's block has sites still to come */
};

/* p grown to hold `need` elements of `size` bytes, new ones zeroed; NULL
 * (p unchanged) when memory ran out.  Inline when there is room (a store
 * takes it at every access). */
void *sched_grow_to(void *p, size_t *cap, size_t need, size_t size);
static inline void *sched_grow(void *p, size_t *cap, size_t need, size_t size) {
  return need <= *cap ? p : sched_grow_to(p, cap, need, size);
}

/* ---- Memory dependencies (schedule_memory.c) ---- */
/* The shadow page of a page number missing from the page cache, created
 * (short entries unless `store`) when new; NULL without memory. */
const struct shadow_page *sched_shadow_page(struct sched *s, uint64_t page,
                                            unsigned shift, int store);
/* Page number `page`, of short entries, made whole before its first
 * store; NULL without memory (it stays as it was). */
const struct shadow_page *sched_page_whole(struct sched *s, uint64_t page);
/* The entry of a start address whose slot another start address holds:
 * an overflow entry, or a slot of its own when its page takes smaller
 * slots first (*short_entry as in sched_mem_entry).  NULL without memory. */
void *sched_overflow_entry(struct sched *s, uint64_t addr, int *short_entry);
void sched_memory_free(struct sched *s);
/* Bytes of one memory entry in the current width. */
static inline size_t sched_entry_bytes(const struct sched *s) {
  return s->entry_words << (s->wide ? 3 : 2);
}
/* Makes every memory entry 64 bits wide (the stores list follows them);
 * without memory it forgets them and counts an untracked access. */
void sched_widen(struct sched *s);

/* Word i of a memory entry of the given width (a constant in the
 * specialisations of schedule_run.c, so each reads one width). */
static ALWAYS_INLINE uint64_t entry_get(const void *e, size_t i,
                                        const int wide) {
  return wide ? ((const uint64_t *)e)[i] : ((const uint32_t *)e)[i];
}
static ALWAYS_INLINE void entry_set(void *e, size_t i, uint64_t v,
                                    const int wide) {
  if (wide)
    ((uint64_t *)e)[i] = v;
  else
    ((uint32_t *)e)[i] = (uint32_t)v;
}

/* The entry of an exact start address (zeroed when new): store ready per
 * schedule, load ready per schedule, tag; or, when *short_entry is set
 * (only for an access that does not store), load ready per schedule.  A
 * store makes its page's entries whole first, which moves them.  NULL
 * without memory. */
static ALWAYS_INLINE void *sched_mem_entry(struct sched *s, uint64_t addr,
                                           uint32_t size, int store,
                                           int *short_entry, const int wide) {
  unsigned shift = size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
  uint64_t page = addr >> PAGE_SHIFT;
  unsigned c = (unsigned)(page & (PAGE_CACHE - 1));
  const struct shadow_page *p = s->page_cache[c].page == page + 1
                                    ? &s->page_cache[c].p
                                    : sched_shadow_page(s, page, shift, store);
  *short_entry = 0;
  if (!p)
    return NULL;
  if (store && p->words != s->entry_words && !(p = sched_page_whole(s, page)))
    return NULL;
  unsigned offset = (unsigned)(addr & ((1u << PAGE_SHIFT) - 1));
  unsigned slot = offset >> p->shift;
  unsigned char key = (unsigned char)((offset & ((1u << p->shift) - 1)) + 1);
  unsigned char *k = page_keys(p) + slot;
  if (*k != key) {
    if (*k || !addr)
      return sched_overflow_entry(s, addr, short_entry);
    *k = key;
  }
  *short_entry = p->words != s->entry_words;
  return p->base + slot * (p->words << (wide ? 3 : 2));
}

/* ---- The shadow call stack (schedule_frames.c) ---- */
static inline uint64_t *slot_at(struct sched *s, const struct frame *fr,
                                size_t index) {
  return s->vals + fr->base + index * s->stride;
}

/* Block instances starting: NULL when the instance cannot be placed. */
struct frame *sched_enter_block(struct sched *s, uint32_t id);
struct frame *sched_resume_block(struct sched *s, uint32_t id, uint32_t call);
/* The top frame's block returned; ret: the `ret`'s issue per schedule. */
void sched_leave_function(struct sched *s, const uint64_t *ret);

#endif /* PISA_METRICS_SCHEDULE_INTERNAL_H */
