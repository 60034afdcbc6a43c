/* objects.c: data objects in deep mode (objects.h).  The objects and the
 * map of their live address ranges are process-wide, under one lock: heap
 * events (in each thread's stream order), module registration (globals)
 * and thread starts (stacks) change them.  The thread that decodes a batch
 * names each access's object (before the consumer groups see the batch, so
 * every group sees the same objects), looking the address up in a cached
 * range (the object's, or the gap between objects) that stays valid until
 * the map changes, so a stream through one object takes the lock once.
 * The space group counts the accesses per object; the reuse group bins
 * each access's LRU stack distance at 64-byte lines by its object, with
 * the bins its own 64-byte engine computed anyway when it has one, and
 * counts by object how the bins drop when the line doubles (spatial
 * locality).  An object's entropy comes from the program's address counts
 * when the result is built: each address's counts go to the object that
 * owned it first, except those of accesses made while it belonged to
 * another object (or to none), which the space group counted apart. */
#include "objects.h"
#include "entropy.h"
#include "locality.h"
#include "objmap.h"
#include "pisa/vocabulary.h"
#include "reuse.h"
#include "u64map.h"

#include <stdlib.h>
#include <uthash.h>

#define OBJECT_UNKNOWN 0u
/* The flag of an access (and of a live range) whose entropy is counted
 * apart: its address had another owner first (or, in a gap, has none). */
#define OBJECT_APART (UINT32_C(1) << 31)
#define OBJECT_LINE_SHIFT 6       /* footprint and reuse at 64-byte lines */
#define OBJECT_PAGE_LINES_SHIFT 6 /* a 4 KiB page holds 64 lines */
#define OBJECT_PAGE_LINES (1u << OBJECT_PAGE_LINES_SHIFT)
#define OBJECT_TOP 5 /* functions and loops listed per object */
#define NO_INSTRUCTION UINT64_MAX
#define OPCODE_RET 1 /* LLVM 19's ret (pisa/vocabulary.h) */

enum object_kind { KIND_UNKNOWN, KIND_HEAP, KIND_GLOBAL, KIND_STACK };
static const char *const kind_names[] = {"unknown", "heap", "global", "stack"};

struct object_frame {
  const char *file; /* NULL without a debug location */
  uint32_t line;
};

/* A registered heap site: where the call is, and its object (the sites
 * with the same frames up to the configured depth share one). */
struct heap_site {
  const char *allocator;
  uint32_t n_frames;
  struct object_frame frames[PISA_MAX_HEAP_FRAMES];
  uint32_t object; /* OBJMAP_NONE before its first allocation */
};

struct object {
  uint8_t kind;
  const char *name; /* heap: the allocator; global: the variable */
  uint32_t n_frames;
  struct object_frame frames[PISA_MAX_HEAP_FRAMES];
  const struct pisa_thread *thread; /* stack: its thread */
  uint64_t size;                    /* global, stack: its bytes */
  uint64_t allocations, frees, bytes_allocated, live_bytes, peak_live_bytes;
  uint64_t first_allocation, last_free; /* NO_INSTRUCTION: none */
};

/* A heap object by its frames (the key), for grouping sites. */
struct context {
  uint32_t object;
  UT_hash_handle hh;
  char key[];
};

static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static struct heap_site *heap_sites;
static _Atomic uint32_t n_heap_sites;
static struct object *objects;
static uint32_t n_objects, objects_capacity;
static struct context *contexts;
static struct objmap map;
/* The first owner of every address an object's range held, with the
 * entropy family: the ranges that overlapped no earlier one, never
 * removed.  An access to a live range that is one of them (or lies in one
 * the same object owned) counts for the object in the program's address
 * counts; any other access is counted apart (OBJECT_APART). */
static struct objmap owners;
/* Bumped at every change of the map: a thread's cached range is valid
 * while the version it was read at is current. */
static _Atomic uint64_t map_version;

/* One thread's counts per object (space group).  The lines touched are
 * kept per 4 KiB page, a bit per 64-byte line: a page's mask is found
 * once per page the object's accesses move to, not once per line, in a
 * table 64 times smaller than one of lines.  The accesses of one function
 * (one innermost loop) wait in `fn` (`loop`) until the object's accesses
 * come from another. */
struct pending_touches {
  uint32_t key; /* the function or loop, PROGRAM_NONE for none */
  uint64_t n;
};

struct object_counts {
  uint64_t accesses, loads, stores, bytes_loaded, bytes_stored;
  uint64_t class_accesses[PISA_ACCESS_CLASS_COUNT]; /* by access_class */
  struct entropy_counts *apart; /* the OBJECT_APART accesses, or NULL */
  struct u64map pages;          /* addr >> 12 -> mask of the lines touched */
  uint64_t *last_mask;          /* the mask of page last_page, or NULL */
  uint64_t last_page;
  struct pending_touches fn, loop;
};

/* A range (an object's, or a gap) a thread found recently: [base, base +
 * len), so that a probe is one subtraction and one compare.  An empty
 * range (len 0) holds nothing. */
struct cached_range {
  uint64_t base, len;
  uint32_t object; /* OBJECT_UNKNOWN for a gap */
};

/* One thread's reuse bins per object at 64-byte lines, and its drops per
 * pair of line sizes (b, 2b) (reuse group). */
struct object_reuse {
  uint64_t bins[LOCALITY_BINS]; /* cold last */
  uint64_t drops[LOCALITY_MAX_SIZES - 1], strict_drops[LOCALITY_MAX_SIZES - 1];
};

/* What a thread's groups could not count for every access (a sampled
 * group's accesses come without objects): the objects' entropy (space
 * group) or spatial locality (reuse group) is then not reported. */
enum { PARTIAL_ENTROPY = 1, PARTIAL_SPATIAL = 2 };

/* A frame of a thread's shadow call stack: the function running and the
 * call (block and site) that entered it; block PROGRAM_NONE when that is
 * not known (a thread's start, main, code entered from code that is not
 * instrumented with no call before it). */
struct call_frame {
  uint32_t function;
  uint32_t block, site;
};

/* Ranges cached per thread: a loop streaming through a few arrays at once
 * (triad's three) finds each in the cache. */
#define OBJECT_CACHE 4

/* A thread's object state, in three parts that three threads may use at
 * once: the decoding thread's (the lookup), the space group's (counts)
 * and the reuse group's (reuse bins). */
struct pisa_thread_objects {
  /* decoding thread */
  struct cached_range cache[OBJECT_CACHE];
  uint64_t cache_version; /* the map version the cache was filled at */
  unsigned next_victim;
  uint64_t instructions;    /* of the blocks entered so far */
  struct call_frame *stack; /* the calls the thread is in, outermost first */
  uint32_t depth, stack_capacity;
  uint32_t last_block, last_end; /* the instance before the next one, and
                                    where it ended; block PROGRAM_NONE: none */
  /* space group */
  struct object_counts *counts;
  uint32_t capacity;
  _Atomic unsigned partial; /* PARTIAL_* (both groups) */
  struct u64map touch;      /* object << 32 | source function -> accesses */
  struct u64map loop_touch; /* object << 32 | innermost loop -> accesses */
  /* reuse group */
  struct object_reuse *reuse;
  uint32_t reuse_capacity;
  struct reuse_engine *engine; /* 64-byte lines, when the group has none */
  uint8_t *bins;               /* per access of the batch */
  size_t bins_capacity;
  uint32_t *drops; /* per access of the batch: locality_drop_masks, then */
  size_t drops_capacity; /* the strict ones */
};

PISA_HIDDEN uint32_t pisa_heap_site_count(void) {
  return atomic_load_explicit(&n_heap_sites, memory_order_acquire);
}

static int entropy_on(void) {
  return (pisa_config.families & PISA_FAMILY(ENTROPY)) != 0;
}

/* ---- Objects (under objects_lock) ---------------------------------------- */

/* A new object of `kind`: its id, or OBJECT_UNKNOWN when memory ran out. */
static uint32_t object_new(uint8_t kind) {
  if (n_objects == OBJECT_APART - 1) /* ids stay below the flag */
    return OBJECT_UNKNOWN;
  if (n_objects == objects_capacity) {
    uint32_t cap = objects_capacity ? 2 * objects_capacity : 64;
    struct object *o = realloc(objects, cap * sizeof *o);
    if (!o)
      return OBJECT_UNKNOWN;
    objects = o;
    objects_capacity = cap;
  }
  objects[n_objects] = (struct object){.kind = kind,
                                       .first_allocation = NO_INSTRUCTION,
                                       .last_free = NO_INSTRUCTION};
  /* read without the lock by the consumer groups (objects_known) */
  __atomic_store_n(&n_objects, n_objects + 1, __ATOMIC_RELEASE);
  return n_objects - 1;
}

/* Object 0 is `unknown`. */
static void objects_init_locked(void) {
  if (!n_objects)
    object_new(KIND_UNKNOWN);
}

/* 0 when object's accesses to [base, base + size) count for it in the
 * program's address counts: the range lies in one the object owned first,
 * or overlaps no earlier range and is now one of the first owners; else
 * OBJECT_APART (and always 0 without the entropy family). */
static uint32_t first_owner(uint64_t base, uint64_t size, uint32_t object) {
  uint64_t end = base + (size ? size : 1);
  if (!entropy_on())
    return 0;
  struct objmap_range r = objmap_lookup(&owners, base);
  if (end <= base || end > r.end)
    return OBJECT_APART;
  if (r.object == object)
    return 0;
  if (r.object == OBJMAP_NONE &&
      !objmap_insert(&owners, base, size, object, NULL, NULL))
    return 0;
  return OBJECT_APART;
}

/* The map gets [base, base + size) for object; ranges it covers end. */
static void map_insert(uint64_t base, uint64_t size, uint32_t object,
                       objmap_ended *ended, void *ctx) {
  object |= first_owner(base, size, object);
  if (objmap_insert(&map, base, size, object, ended, ctx))
    pisa_out_of_memory();
  atomic_fetch_add_explicit(&map_version, 1, memory_order_release);
}

/* A heap range ended (released, or replaced) at instruction *ctx. */
static void heap_range_ended(void *ctx, const struct objmap_range *r) {
  struct object *o = &objects[r->object & ~OBJECT_APART];
  uint64_t bytes = r->end - r->base;
  if (o->kind != KIND_HEAP)
    return;
  o->live_bytes -= bytes < o->live_bytes ? bytes : o->live_bytes;
  o->frees++;
  o->last_free = *(const uint64_t *)ctx;
}

/* The heap object of the n frames f (a site's and its callers'): by
 * their file names and lines; OBJECT_UNKNOWN when memory ran out. */
static uint32_t context_object(const char *allocator,
                               const struct object_frame *f, uint32_t n) {
  char key[PISA_MAX_HEAP_FRAMES * 64];
  size_t used = 0;
  for (uint32_t i = 0; i < n && used < sizeof key; i++)
    used += (size_t)snprintf(key + used, sizeof key - used, "%p:%u;",
                             (const void *)f[i].file, f[i].line);
  struct context *c;
  HASH_FIND_STR(contexts, key, c);
  if (c)
    return c->object;
  uint32_t id = object_new(KIND_HEAP);
  size_t len = strlen(key) + 1;
  if (id == OBJECT_UNKNOWN || !(c = malloc(sizeof *c + len)))
    return OBJECT_UNKNOWN;
  memcpy(c->key, key, len);
  c->object = id;
  HASH_ADD_STR(contexts, key, c);
  objects[id].name = allocator;
  objects[id].n_frames = n;
  memcpy(objects[id].frames, f, n * sizeof *f);
  return id;
}

/* The heap object of site s called with the `n_callers` call sites
 * `callers` around it (innermost first): by the site's frames and then
 * the callers', up to the configured depth.  Without callers in the key
 * the site remembers its object. */
static uint32_t heap_object(struct heap_site *s,
                            const struct object_frame *callers,
                            uint32_t n_callers) {
  uint32_t depth = pisa_config.object_depth < PISA_MAX_HEAP_FRAMES
                       ? pisa_config.object_depth
                       : PISA_MAX_HEAP_FRAMES;
  uint32_t own = s->n_frames < depth ? s->n_frames : depth;
  uint32_t more = n_callers < depth - own ? n_callers : depth - own;
  struct object_frame f[PISA_MAX_HEAP_FRAMES];
  if (!more && s->object != OBJMAP_NONE)
    return s->object;
  memcpy(f, s->frames, own * sizeof *f);
  memcpy(f + own, callers, more * sizeof *f);
  uint32_t id = context_object(s->allocator, f, own + more);
  if (!more && id != OBJECT_UNKNOWN)
    s->object = id;
  return id;
}

/* What a call that allocated or released did, at instruction `at` of the
 * thread, called with the call sites `callers` around it.  A failed
 * allocation (nothing allocated, a size asked) released nothing either
 * (realloc). */
static void heap_event_locked(const struct heap_event *e, uint64_t at,
                              const struct object_frame *callers,
                              uint32_t n_callers) {
  struct objmap_range gone;
  if (e->released && !(!e->base && e->size) &&
      !objmap_remove(&map, e->released, &gone)) {
    heap_range_ended(&at, &gone);
    atomic_fetch_add_explicit(&map_version, 1, memory_order_release);
  }
  if (!e->base)
    return;
  uint32_t id = heap_object(&heap_sites[e->site], callers, n_callers);
  struct object *o = &objects[id];
  if (id == OBJECT_UNKNOWN)
    return;
  o->allocations++;
  o->bytes_allocated += e->size;
  o->live_bytes += e->size;
  if (o->live_bytes > o->peak_live_bytes)
    o->peak_live_bytes = o->live_bytes;
  if (o->first_allocation == NO_INSTRUCTION)
    o->first_allocation = at;
  if (e->size) /* no byte of a 0-byte allocation can be accessed */
    map_insert(e->base, e->size, id, heap_range_ended, &at);
}

/* ---- Registration ------------------------------------------------------- */

static void register_heap_sites(const struct pisa_module *m,
                                const char *const *files, uint32_t h0) {
  for (uint32_t i = 0; i < m->n_heap_sites; i++) {
    const struct pisa_heap_site *in = &m->heap_sites[i];
    struct heap_site *s = &heap_sites[h0 + i];
    *s = (struct heap_site){.allocator = strdup(in->allocator),
                            .object = OBJMAP_NONE};
    for (uint32_t f = 0; f < in->n_frames && f < PISA_MAX_HEAP_FRAMES &&
                         in->first_frame + f < m->n_frames;
         f++) {
      const struct pisa_frame *fr = &m->frames[in->first_frame + f];
      s->frames[s->n_frames++] = (struct object_frame){
          fr->file < m->n_files ? files[fr->file] : NULL, fr->line};
    }
  }
}

static void register_globals(const struct pisa_module *m,
                             const char *const *files) {
  for (uint32_t i = 0; m->globals && i < m->n_globals; i++) {
    const struct pisa_global *g = &m->globals[i];
    uint32_t id = object_new(KIND_GLOBAL);
    if (id == OBJECT_UNKNOWN)
      return;
    objects[id].name = strdup(g->name);
    objects[id].size = g->size;
    objects[id].n_frames = 1;
    objects[id].frames[0] = (struct object_frame){
        g->file < m->n_files ? files[g->file] : NULL, g->line};
    map_insert((uint64_t)(uintptr_t)g->address, g->size, id, NULL, NULL);
  }
}

PISA_HIDDEN int pisa_objects_register(const struct pisa_module *m,
                                      const char *const *files) {
  pisa_config_init();
  pthread_mutex_lock(&objects_lock);
  objects_init_locked();
  uint32_t h0 = atomic_load_explicit(&n_heap_sites, memory_order_relaxed);
  uint32_t n = m->heap_sites && m->heap_base ? m->n_heap_sites : 0;
  struct heap_site *grown = n && h0 + n <= PISA_REC_HEAP_UNREGISTERED
                                ? realloc(heap_sites, (h0 + n) * sizeof *grown)
                                : NULL;
  if (n && !grown) {
    pthread_mutex_unlock(&objects_lock);
    return -1;
  }
  if (grown) {
    heap_sites = grown;
    register_heap_sites(m, files, h0);
    atomic_store_explicit(&n_heap_sites, h0 + n, memory_order_release);
    __atomic_store_n(m->heap_base, PISA_REC_BLOCK | PISA_REC_HEAP | h0,
                     __ATOMIC_RELEASE);
  }
  if (pisa_config.objects)
    register_globals(m, files);
  pthread_mutex_unlock(&objects_lock);
  return 0;
}

PISA_HIDDEN void pisa_objects_thread(struct pisa_thread *t) {
  pthread_attr_t attr;
  void *low;
  size_t size;
  if (!pisa_config.objects || pthread_getattr_np(pthread_self(), &attr))
    return;
  int got = !pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  if (!got)
    return;
  pthread_mutex_lock(&objects_lock);
  objects_init_locked();
  uint32_t id = object_new(KIND_STACK);
  if (id != OBJECT_UNKNOWN) {
    objects[id].name = "stack";
    objects[id].thread = t;
    objects[id].size = size;
    map_insert((uint64_t)(uintptr_t)low, size, id, NULL, NULL);
  }
  pthread_mutex_unlock(&objects_lock);
}

/* ---- A thread's counts (its space group) --------------------------------- */

static struct pisa_thread_objects *thread_objects(struct pisa_thread *t) {
  if (!t->objects && (t->objects = calloc(1, sizeof *t->objects)))
    t->objects->last_block = PROGRAM_NONE;
  if (!t->objects)
    pisa_out_of_memory();
  return t->objects;
}

/* A per-object array of `size`-byte entries grown (new entries 0) to hold
 * every object that exists now, so every object a batch names (the batch
 * was named before a group sees it); -1 when memory ran out. */
static int per_object(void **array, uint32_t *capacity, size_t size) {
  uint32_t known = __atomic_load_n(&n_objects, __ATOMIC_ACQUIRE);
  if (known <= *capacity)
    return 0;
  uint32_t cap = *capacity ? 2 * *capacity : 64;
  while (cap < known)
    cap *= 2;
  char *a = realloc(*array, cap * size);
  if (!a) {
    pisa_out_of_memory();
    return -1;
  }
  memset(a + *capacity * size, 0, (cap - *capacity) * size);
  *array = a;
  *capacity = cap;
  return 0;
}

/* ---- Naming each access's object (the decoding thread) ------------------ */

/* Empties the cache (the map changed). */
static void cache_clear(struct pisa_thread_objects *o) {
  memset(o->cache, 0, sizeof o->cache);
}

/* Looks addr up in the map into an entry of the cache (round robin). */
static struct cached_range *cache_fill(struct pisa_thread_objects *o,
                                       uint64_t addr) {
  struct cached_range *c = &o->cache[o->next_victim++ % OBJECT_CACHE];
  pthread_mutex_lock(&objects_lock);
  struct objmap_range r = objmap_lookup(&map, addr);
  o->cache_version = atomic_load_explicit(&map_version, memory_order_relaxed);
  pthread_mutex_unlock(&objects_lock);
  uint32_t gap = entropy_on() ? OBJECT_UNKNOWN | OBJECT_APART : OBJECT_UNKNOWN;
  *c = (struct cached_range){r.base, r.end - r.base,
                             r.object == OBJMAP_NONE ? gap : r.object};
  return c;
}

/* The object of addr: found in the cache, else looked up. */
static uint32_t object_at(struct pisa_thread_objects *o, uint64_t addr) {
  for (unsigned i = 0; i < OBJECT_CACHE; i++)
    if (addr - o->cache[i].base < o->cache[i].len)
      return o->cache[i].object;
  return cache_fill(o, addr)->object;
}

/* The objects of accesses [a, end) of b.  The cache is valid while the
 * map has not changed since it was filled: checked once per call, as a
 * change by another thread (which this thread's stream is not ordered
 * with) may as well come after these accesses. */
static void name_objects(struct pisa_thread_objects *o, struct event_batch *b,
                         size_t a, size_t end) {
  uint64_t v = atomic_load_explicit(&map_version, memory_order_acquire);
  if (v != o->cache_version)
    cache_clear(o);
  for (; a < end; a++)
    b->object[a] = object_at(o, b->addr[a]);
}

/* ---- The calls a thread is in (the decoding thread) ----------------------
 * A shadow call stack followed from the instances alone: a function's
 * entry block pushes a frame (blocks never branch back to an entry
 * block), a resumed block pops the frame its call entered and those above
 * it, a block entered after its function's last block returned (`ret`
 * ending an instance that did not stop at a call: a return through an
 * invoke, or into code that is not instrumented) pops that frame.  The
 * frames are the heap objects' calling context, read at allocations. */

static void push_frame(struct pisa_thread_objects *o, uint32_t function,
                       uint32_t block, uint32_t site) {
  if (o->depth == o->stack_capacity) {
    uint32_t cap = o->stack_capacity ? 2 * o->stack_capacity : 64;
    struct call_frame *grown = realloc(o->stack, cap * sizeof *grown);
    if (!grown) {
      pisa_out_of_memory();
      return;
    }
    o->stack = grown;
    o->stack_capacity = cap;
  }
  o->stack[o->depth++] = (struct call_frame){function, block, site};
}

/* Pops the frames above function's; a frame for it, entered from where
 * is not known, when it has none. */
static void unwind_to(struct pisa_thread_objects *o, uint32_t function) {
  while (o->depth && o->stack[o->depth - 1].function != function)
    o->depth--;
  if (!o->depth)
    push_frame(o, function, PROGRAM_NONE, 0);
}

/* The call at site `site` of block `block` returned: its frame goes, and
 * the frames above it. */
static void return_to(struct pisa_thread_objects *o, uint32_t block,
                      uint32_t site) {
  for (uint32_t d = o->depth; d > 0; d--)
    if (o->stack[d - 1].block == block && o->stack[d - 1].site == site) {
      o->depth = d - 1;
      break;
    }
  unwind_to(o, pisa_blocks[block].function);
}

/* Whether the instance before the next one stopped at a call. */
static int stopped_at_call(const struct pisa_thread_objects *o) {
  if (o->last_block == PROGRAM_NONE)
    return 0;
  const struct program_block *pb = &pisa_blocks[o->last_block];
  return o->last_end < pb->n_sites &&
         pb->sites[o->last_end].kind == PROGRAM_SITE_CALL;
}

/* Whether the instance before the next one returned from its function. */
static int returned(const struct pisa_thread_objects *o) {
  if (o->last_block == PROGRAM_NONE || stopped_at_call(o))
    return 0;
  const struct program_block *pb = &pisa_blocks[o->last_block];
  return pb->n_instrs && pb->instrs[pb->n_instrs - 1].opcode == OPCODE_RET &&
         o->depth && o->stack[o->depth - 1].function == pb->function;
}

/* Entered block `id`: a call when it is its function's entry block (from
 * the call the instance before stopped at, else from the call the frame
 * that just returned came from); the function's frame otherwise. */
static void entered(struct pisa_thread_objects *o, uint32_t id) {
  uint32_t block = PROGRAM_NONE, site = 0, fn = pisa_blocks[id].function;
  int entry = pisa_functions[fn].first_block == id;
  if (!entry && id == o->last_block)
    return; /* a block branching to itself: the same call */
  if (stopped_at_call(o)) {
    block = o->last_block;
    site = o->last_end;
  } else if (returned(o)) {
    o->depth--;
    block = o->stack[o->depth].block;
    site = o->stack[o->depth].site;
  }
  if (entry)
    push_frame(o, fn, block, site);
  else
    unwind_to(o, fn);
}

/* The stack after instance i of b (after lost words, the instance before
 * it is not known). */
static void follow_calls(struct pisa_thread_objects *o,
                         const struct event_batch *b, size_t i) {
  uint8_t start = b->start[i];
  if (start & INSTANCE_LOST_CONTEXT)
    o->last_block = PROGRAM_NONE;
  if ((start & INSTANCE_START_MASK) == INSTANCE_ENTERED)
    entered(o, b->block[i]);
  else if ((start & INSTANCE_START_MASK) == INSTANCE_RESUMED &&
           !(start & INSTANCE_EXTERNAL_CALL))
    return_to(o, b->block[i], b->first_site[i] - 1);
  o->last_block = b->block[i];
  o->last_end = b->end_site[i];
}

/* The source location of site `site` of block `block` (its instruction's
 * innermost debug location). */
static struct object_frame site_location(uint32_t block, uint32_t site) {
  const struct program_block_source *bs = &pisa_block_sources[block];
  uint32_t instr = pisa_blocks[block].sites[site].instr, at = 0;
  for (uint32_t r = 0; r < bs->n_lines; r++) {
    if (instr < at + bs->lines[r].n_instrs)
      return (struct object_frame){bs->lines[r].file, bs->lines[r].line};
    at += bs->lines[r].n_instrs;
  }
  return (struct object_frame){NULL, 0};
}

/* The call sites of the thread's frames, innermost first, into f (at most
 * n): how many there are up to the first one not known. */
static uint32_t callers(const struct pisa_thread_objects *o,
                        struct object_frame *f, uint32_t n) {
  uint32_t k = 0;
  for (uint32_t d = o->depth; d > 0 && k < n; d--) {
    const struct call_frame *fr = &o->stack[d - 1];
    if (fr->block == PROGRAM_NONE)
      break;
    f[k++] = site_location(fr->block, fr->site);
  }
  return k;
}

static void apply_heap_event(struct pisa_thread_objects *o,
                             const struct heap_event *e) {
  struct object_frame f[PISA_MAX_HEAP_FRAMES];
  uint32_t n = e->base ? callers(o, f, PISA_MAX_HEAP_FRAMES) : 0;
  pthread_mutex_lock(&objects_lock);
  heap_event_locked(e, o->instructions, f, n);
  pthread_mutex_unlock(&objects_lock);
}

/* Room for an object id per access of b in b->object; -1 when memory ran
 * out. */
static int object_room(struct event_batch *b) {
  size_t n = b->n_accesses ? b->n_accesses : 1;
  if (n <= b->object_capacity)
    return 0;
  uint32_t *ids = realloc(b->object, n * sizeof *ids);
  if (!ids)
    return -1;
  b->object = ids;
  b->object_capacity = n;
  return 0;
}

PISA_HIDDEN void pisa_objects_prepare(struct pisa_thread *t,
                                      struct event_batch *b) {
  struct pisa_thread_objects *o = thread_objects(t);
  if (!o || object_room(b)) {
    pisa_out_of_memory();
    return;
  }
  size_t e = 0;
  for (size_t i = 0; i < b->n_instances; i++) {
    const struct program_block *pb = &pisa_blocks[b->block[i]];
    if ((b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED)
      o->instructions += pb->n_instrs;
    follow_calls(o, b, i);
    size_t a = b->first_access[i], end = b->first_access[i + 1];
    for (; e < b->n_heap && b->heap[e].instance <= i; e++) {
      size_t at = b->heap[e].access < end ? b->heap[e].access : end;
      name_objects(o, b, a, at);
      a = at > a ? at : a;
      apply_heap_event(o, &b->heap[e]);
    }
    name_objects(o, b, a, end);
  }
  for (; e < b->n_heap; e++)
    apply_heap_event(o, &b->heap[e]);
}

/* ---- A thread's counts (its space group) --------------------------------- */

/* The pending accesses of object `id` into `touches` (object << 32 | key
 * -> accesses). */
static void flush_touches(struct u64map *touches, uint32_t id,
                          struct pending_touches *p) {
  uint64_t *n = p->n && p->key != PROGRAM_NONE
                    ? u64map_slot(touches, (uint64_t)id << 32 | p->key)
                    : NULL;
  if (n)
    *n += p->n;
  p->n = 0;
}

/* One access of object `id` from `key`; the pending ones of another key
 * are flushed first. */
static inline __attribute__((always_inline)) void
add_touch(struct u64map *touches, uint32_t id, struct pending_touches *p,
          uint32_t key) {
  if (p->key != key) {
    flush_touches(touches, id, p);
    p->key = key;
  }
  p->n++;
}

/* The 64-byte lines of [addr, addr + size) into the object's pages; an
 * access within one line of the last page needs no lookup. */
static void add_lines(struct object_counts *c, uint64_t addr, uint64_t size) {
  uint64_t first = addr >> OBJECT_LINE_SHIFT,
           last = (addr + (size ? size - 1 : 0)) >> OBJECT_LINE_SHIFT;
  if (first == last && c->last_mask &&
      first >> OBJECT_PAGE_LINES_SHIFT == c->last_page) {
    *c->last_mask |= UINT64_C(1) << (first & (OBJECT_PAGE_LINES - 1));
    return;
  }
  for (uint64_t l = first; l <= last && l >= first; l++) {
    uint64_t page = l >> OBJECT_PAGE_LINES_SHIFT;
    if (!c->last_mask || page != c->last_page) {
      uint64_t *mask = u64map_slot(&c->pages, page);
      if (!mask)
        return;
      c->last_mask = mask;
      c->last_page = page;
    }
    *c->last_mask |= UINT64_C(1) << (l & (OBJECT_PAGE_LINES - 1));
  }
}

static void count_access(struct pisa_thread_objects *o, uint32_t id,
                         uint32_t fn, uint32_t loop,
                         const struct event_batch *b, size_t a) {
  struct object_counts *c = &o->counts[id];
  uint64_t addr = b->addr[a], size = b->size[a];
  uint8_t kind = b->kind[a];
  c->accesses++;
  c->class_accesses[b->access_class[a] % PISA_ACCESS_CLASS_COUNT]++;
  if (kind & ACCESS_READS) {
    c->loads++;
    c->bytes_loaded += size;
  }
  if (kind & ACCESS_WRITES) {
    c->stores++;
    c->bytes_stored += size;
  }
  add_lines(c, addr, size);
  add_touch(&o->touch, id, &c->fn, fn);
  add_touch(&o->loop_touch, id, &c->loop, loop);
}

/* The address of an OBJECT_APART access into its object's own counts. */
static void count_apart(struct object_counts *c, uint64_t addr) {
  if (!c->apart && (c->apart = malloc(sizeof *c->apart)))
    entropy_init(c->apart);
  if (!c->apart)
    pisa_out_of_memory();
  else
    entropy_add_batch(c->apart, &addr, 1);
}

PISA_HIDDEN void pisa_objects_consume(struct pisa_thread *t,
                                      const struct event_batch *b, int whole) {
  struct pisa_thread_objects *o = t->objects;
  if (!o || !b->object ||
      per_object((void **)&o->counts, &o->capacity, sizeof *o->counts))
    return;
  if (!whole)
    o->partial |= PARTIAL_ENTROPY;
  int apart = !(o->partial & PARTIAL_ENTROPY) && entropy_on();
  for (size_t i = 0; i < b->n_instances; i++) {
    uint32_t fn = pisa_blocks[b->block[i]].source;
    uint32_t loop = pisa_block_sources ? pisa_block_sources[b->block[i]].loop
                                       : PROGRAM_NONE;
    for (size_t a = b->first_access[i]; a < b->first_access[i + 1]; a++) {
      uint32_t id = b->object[a] & ~OBJECT_APART;
      count_access(o, id, fn, loop, b, a);
      if (apart && (b->object[a] & OBJECT_APART))
        count_apart(&o->counts[id], b->addr[a]);
    }
  }
}

/* ---- A thread's reuse per object (its reuse group) ------------------------
 */

static int reuse_on(void) {
  return (pisa_config.families & PISA_FAMILY(REUSE)) != 0;
}

static int locality_on(void) {
  return (pisa_config.families & PISA_FAMILY(LOCALITY)) != 0;
}

/* The 64-byte reuse bins of b's accesses from the objects' own engine, in
 * o->bins; NULL when memory ran out. */
static const uint8_t *own_bins(struct pisa_thread_objects *o,
                               const struct event_batch *b) {
  size_t n = b->n_accesses;
  if (!o->engine && !(o->engine = reuse_new(OBJECT_LINE_SHIFT)))
    return NULL;
  if (n > o->bins_capacity) {
    uint8_t *bins = realloc(o->bins, n);
    if (!bins)
      return NULL;
    o->bins = bins;
    o->bins_capacity = n;
  }
  reuse_batch(o->engine, b->addr, n, o->bins, NULL);
  return o->bins;
}

/* The drop masks of b's accesses (sizes: their bins at every line size)
 * in o->drops, the strict ones after them; NULL when memory ran out. */
static const uint32_t *drop_masks(struct pisa_thread_objects *o,
                                  const struct event_batch *b,
                                  const uint8_t *const *sizes) {
  size_t n = b->n_accesses;
  if (2 * n > o->drops_capacity) {
    uint32_t *d = realloc(o->drops, 2 * n * sizeof *d);
    if (!d)
      return NULL;
    o->drops = d;
    o->drops_capacity = 2 * n;
  }
  locality_drop_masks(pisa_config.line_sizes, pisa_config.n_line_sizes, sizes,
                      n, o->drops, o->drops + n);
  return o->drops;
}

/* Adds 1 to counts[s] for each bit s of mask. */
static void count_bits(uint64_t *counts, uint32_t mask) {
  for (; mask; mask &= mask - 1)
    counts[__builtin_ctz(mask)]++;
}

PISA_HIDDEN void pisa_objects_reuse(struct pisa_thread *t,
                                    const struct event_batch *b,
                                    const uint8_t *const *sizes,
                                    const uint8_t *bins) {
  struct pisa_thread_objects *o = t->objects;
  if (!o || !b->object || !b->n_accesses ||
      per_object((void **)&o->reuse, &o->reuse_capacity, sizeof *o->reuse))
    return;
  if (!sizes)
    o->partial |= PARTIAL_SPATIAL;
  if (!bins && !(bins = own_bins(o, b))) {
    pisa_out_of_memory();
    return;
  }
  size_t n = b->n_accesses;
  const uint32_t *drops =
      sizes && locality_on() ? drop_masks(o, b, sizes) : NULL;
  if (sizes && locality_on() && !drops)
    o->partial |= PARTIAL_SPATIAL; /* out of memory */
  for (size_t a = 0; a < n; a++) {
    struct object_reuse *r = &o->reuse[b->object[a] & ~OBJECT_APART];
    r->bins[bins[a] < LOCALITY_FINITE_BINS ? bins[a] : LOCALITY_COLD_INDEX]++;
    if (drops) {
      count_bits(r->drops, drops[a]);
      count_bits(r->strict_drops, drops[n + a]);
    }
  }
}

PISA_HIDDEN void pisa_objects_thread_free(struct pisa_thread *t) {
  struct pisa_thread_objects *o = t->objects;
  if (!o)
    return;
  for (uint32_t i = 0; i < o->capacity; i++) {
    u64map_free(&o->counts[i].pages);
    if (o->counts[i].apart)
      entropy_free(o->counts[i].apart);
    free(o->counts[i].apart);
  }
  free(o->counts);
  u64map_free(&o->touch);
  u64map_free(&o->loop_touch);
  free(o->reuse);
  free(o->stack);
  if (o->engine)
    reuse_free(o->engine);
  free(o->bins);
  free(o->drops);
  free(o);
  t->objects = NULL;
}

/* ---- The result --------------------------------------------------------- */

/* The entries (functions or loops) with the most accesses, most first. */
struct object_top {
  uint32_t id[OBJECT_TOP];
  uint64_t accesses[OBJECT_TOP];
};

/* An object's counts over every thread, and its top functions and loops
 * (a loop's accesses include its inner loops'). */
struct object_total {
  struct object_counts c;
  struct object_reuse reuse;
  uint64_t lines;
  struct object_top functions, loops;
};

static void add_counts(struct object_counts *to,
                       const struct object_counts *from) {
  to->accesses += from->accesses;
  to->loads += from->loads;
  to->stores += from->stores;
  to->bytes_loaded += from->bytes_loaded;
  to->bytes_stored += from->bytes_stored;
  for (int k = 0; k < PISA_ACCESS_CLASS_COUNT; k++)
    to->class_accesses[k] += from->class_accesses[k];
}

static void add_reuse(struct object_reuse *to,
                      const struct object_reuse *from) {
  for (int i = 0; i < LOCALITY_BINS; i++)
    to->bins[i] += from->bins[i];
  for (int s = 0; s < LOCALITY_MAX_SIZES - 1; s++) {
    to->drops[s] += from->drops[s];
    to->strict_drops[s] += from->strict_drops[s];
  }
}

/* "reuse_distance" and "miss_ratio" at 64-byte lines, as the totals'. */
static void reuse_json(json_object *o, const struct object_reuse *r) {
  static const uint64_t line_bytes = LOCALITY_MISS_LINE_BYTES;
  struct reuse_histograms *h = malloc(sizeof *h);
  if (!h || histograms_init(h, &line_bytes, 1)) {
    free(h);
    return;
  }
  memcpy(h->counts[0], r->bins, sizeof r->bins);
  json_object_object_add(o, "reuse_distance", reuse_distance_to_json(h));
  json_object_object_add(o, "miss_ratio",
                         miss_ratio_to_json(h, locality_default_cache_bytes,
                                            LOCALITY_DEFAULT_CACHES));
  free(h);
}

/* Keeps the OBJECT_TOP entries with the most accesses (ties:
 * the lower id first, so that the order does not depend on a table's). */
static void add_top(struct object_top *top, uint32_t id, uint64_t n) {
  int at = OBJECT_TOP;
  while (at > 0 && (top->accesses[at - 1] < n ||
                    (top->accesses[at - 1] == n && top->id[at - 1] > id)))
    at--;
  if (at == OBJECT_TOP)
    return;
  memmove(&top->id[at + 1], &top->id[at],
          (OBJECT_TOP - 1 - at) * sizeof *top->id);
  memmove(&top->accesses[at + 1], &top->accesses[at],
          (OBJECT_TOP - 1 - at) * sizeof *top->accesses);
  top->id[at] = id;
  top->accesses[at] = n;
}

/* The object's pages into `pages` (the union of the masks). */
static void unite_pages(struct u64map *pages, const struct u64map *from) {
  uint64_t page, mask, *to;
  for (size_t it = 0; u64map_next(from, &it, &page, &mask);)
    if ((to = u64map_slot(pages, page)))
      *to |= mask;
}

/* The lines set in the masks of `pages`. */
static uint64_t lines_of(const struct u64map *pages) {
  uint64_t page, mask, lines = 0;
  for (size_t it = 0; u64map_next(pages, &it, &page, &mask);)
    lines += (uint64_t)__builtin_popcountll(mask);
  return lines;
}

/* Adds the counts of `from` to those of `to`, key by key. */
static void add_touches(struct u64map *to, const struct u64map *from) {
  uint64_t key, count, *n;
  for (size_t it = 0; u64map_next(from, &it, &key, &count);)
    if ((n = u64map_slot(to, key)))
      *n += count;
}

/* One thread's counts into the totals, its function counts into `touch`
 * and its innermost loops' into `loop_touch` (its pending ones first). */
static void add_thread(struct object_total *tot, struct u64map *pages,
                       struct u64map *touch, struct u64map *loop_touch,
                       struct pisa_thread_objects *o) {
  for (uint32_t i = 0; i < o->capacity && i < n_objects; i++) {
    flush_touches(&o->touch, i, &o->counts[i].fn);
    flush_touches(&o->loop_touch, i, &o->counts[i].loop);
    add_counts(&tot[i].c, &o->counts[i]);
    unite_pages(&pages[i], &o->counts[i].pages);
  }
  for (uint32_t i = 0; i < o->reuse_capacity && i < n_objects; i++)
    add_reuse(&tot[i].reuse, &o->reuse[i]);
  add_touches(touch, &o->touch);
  add_touches(loop_touch, &o->loop_touch);
}

/* Each loop's accesses to each object, its inner loops' included, from
 * those of the innermost loops: added up the nest. */
static void nest_loops(struct u64map *nested, const struct u64map *innermost) {
  uint64_t key, count, *n;
  for (size_t it = 0; u64map_next(innermost, &it, &key, &count);)
    for (uint32_t l = (uint32_t)key; l != PROGRAM_NONE;
         l = pisa_loops[l].parent)
      if ((n = u64map_slot(nested, (key >> 32) << 32 | l)))
        *n += count;
}

/* Every thread's counts summed, lines united, per object; NULL when memory
 * ran out. */
static struct object_total *totals(struct pisa_thread *threads) {
  struct object_total *tot = calloc(n_objects ? n_objects : 1, sizeof *tot);
  struct u64map touch, loop_touch, nested,
      *pages = calloc(n_objects ? n_objects : 1, sizeof *pages);
  u64map_init(&touch);
  u64map_init(&loop_touch);
  u64map_init(&nested);
  uint64_t key, count;
  for (struct pisa_thread *t = threads; tot && pages && t; t = t->next)
    if (t->objects)
      add_thread(tot, pages, &touch, &loop_touch, t->objects);
  for (size_t it = 0; tot && u64map_next(&touch, &it, &key, &count);)
    if ((key >> 32) < n_objects)
      add_top(&tot[key >> 32].functions, (uint32_t)key, count);
  if (pisa_loops)
    nest_loops(&nested, &loop_touch);
  for (size_t it = 0; tot && u64map_next(&nested, &it, &key, &count);)
    if ((key >> 32) < n_objects)
      add_top(&tot[key >> 32].loops, (uint32_t)key, count);
  u64map_free(&loop_touch);
  u64map_free(&nested);
  for (uint32_t i = 0; tot && pages && i < n_objects; i++) {
    tot[i].lines = lines_of(&pages[i]);
    u64map_free(&pages[i]);
  }
  u64map_free(&touch);
  free(pages);
  return tot;
}

/* The PARTIAL_* of any thread: what the objects do not report. */
static unsigned partial(struct pisa_thread *threads) {
  unsigned p = 0;
  for (struct pisa_thread *t = threads; t; t = t->next)
    if (t->objects)
      p |= t->objects->partial;
  return p;
}

/* The object that owned addr first (an entropy part), n_objects for
 * none. */
static size_t first_owner_of(const void *ctx, uint64_t addr) {
  (void)ctx;
  uint32_t id = objmap_lookup(&owners, addr).object;
  return id == OBJMAP_NONE ? n_objects : id;
}

/* Every object's entropy counts: those its accesses counted apart in every
 * thread, and the rest of the program's counts `all` at the addresses it
 * owned first; NULL when memory ran out. */
static struct entropy_counts *entropies(struct pisa_thread *threads,
                                        const struct entropy_counts *all) {
  struct entropy_counts apart,
      *parts = malloc((n_objects ? n_objects : 1) * sizeof *parts);
  if (!parts)
    return NULL;
  entropy_init(&apart);
  for (uint32_t i = 0; i < n_objects; i++)
    entropy_init(&parts[i]);
  for (struct pisa_thread *t = threads; t; t = t->next)
    for (uint32_t i = 0; t->objects && i < t->objects->capacity; i++) {
      const struct entropy_counts *c = t->objects->counts[i].apart;
      if (c && i < n_objects) {
        entropy_merge(&parts[i], c);
        entropy_merge(&apart, c);
      }
    }
  if (entropy_split(all, &apart, first_owner_of, NULL, parts, n_objects))
    pisa_out_of_memory();
  entropy_free(&apart);
  return parts;
}

static void add_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

/* The top loops, named as in `loops` by their source function, file,
 * first line and depth (not by id: merged documents renumber loops), with
 * the object's accesses in each. */
static json_object *loops_json(const struct object_top *top) {
  json_object *loops = json_object_new_array();
  for (int i = 0; i < OBJECT_TOP && top->accesses[i]; i++) {
    const struct program_loop *l = &pisa_loops[top->id[i]];
    json_object *e = json_object_new_object();
    json_object_object_add(
        e, "function",
        json_object_new_string(pisa_functions[l->source].display));
    json_object_object_add(e, "file",
                           l->file ? json_object_new_string(l->file) : NULL);
    json_object_object_add(
        e, "line", l->first_line ? json_object_new_int64(l->first_line) : NULL);
    add_u64(e, "depth", l->depth);
    add_u64(e, "accesses", top->accesses[i]);
    json_object_array_add(loops, e);
  }
  return loops;
}

/* "access_classes": the object's accesses by the class of the static
 * access that made them (docs/metrics.md, "Access-pattern classes"). */
static json_object *classes_json(const struct object_counts *c) {
  static const char *const names[PISA_ACCESS_CLASS_COUNT] =
      PISA_ACCESS_CLASS_NAMES;
  json_object *o = json_object_new_object();
  for (int k = 0; k < PISA_ACCESS_CLASS_COUNT; k++) {
    json_object *n = json_object_new_object();
    add_u64(n, "accesses", c->class_accesses[k]);
    json_object_object_add(o, names[k], n);
  }
  return o;
}

/* The source locations: the call and the calls it was inlined into (heap),
 * the declaration (global). */
static json_object *frames_json(const struct object *ob) {
  json_object *a = json_object_new_array();
  for (uint32_t f = 0; f < ob->n_frames; f++) {
    json_object *fr = json_object_new_object();
    const struct object_frame *in = &ob->frames[f];
    json_object_object_add(fr, "file",
                           in->file ? json_object_new_string(in->file) : NULL);
    json_object_object_add(fr, "line",
                           in->line ? json_object_new_int64(in->line) : NULL);
    json_object_array_add(a, fr);
  }
  return a;
}

static void heap_json(json_object *o, const struct object *ob) {
  add_u64(o, "allocations", ob->allocations);
  add_u64(o, "frees", ob->frees);
  add_u64(o, "bytes_allocated", ob->bytes_allocated);
  add_u64(o, "peak_live_bytes", ob->peak_live_bytes);
  add_u64(o, "first_allocation", ob->first_allocation);
  json_object_object_add(o, "last_free",
                         ob->last_free == NO_INSTRUCTION
                             ? NULL
                             : json_object_new_uint64(ob->last_free));
}

/* The position of thread t in the result's "threads". */
static int64_t thread_position(const struct pisa_thread *threads,
                               const struct pisa_thread *t) {
  int64_t p = 0;
  for (const struct pisa_thread *u = threads; u && u != t; u = u->next)
    p++;
  return p;
}

/* "spatial_locality" of the accesses binned in r, as the totals'. */
static json_object *spatial_json(const struct object_reuse *r) {
  uint64_t accesses = 0;
  for (int i = 0; i < LOCALITY_BINS; i++)
    accesses += r->bins[i];
  return spatial_locality_counts_to_json(pisa_config.line_sizes,
                                         pisa_config.n_line_sizes, accesses,
                                         r->drops, r->strict_drops);
}

/* With its entropy counts (`entropy`, or NULL: not reported) and its
 * spatial locality when `spatial`. */
static json_object *object_json(const struct pisa_thread *threads,
                                const struct object *ob,
                                const struct object_total *tot,
                                const struct entropy_counts *entropy,
                                int spatial) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "kind",
                         json_object_new_string(kind_names[ob->kind]));
  json_object_object_add(
      o, "name",
      json_object_new_string(ob->name ? ob->name : kind_names[ob->kind]));
  if (ob->kind == KIND_HEAP || ob->kind == KIND_GLOBAL)
    json_object_object_add(o, "site", frames_json(ob));
  if (ob->kind == KIND_STACK)
    json_object_object_add(
        o, "thread",
        json_object_new_int64(thread_position(threads, ob->thread)));
  if (ob->kind == KIND_GLOBAL || ob->kind == KIND_STACK)
    add_u64(o, "size", ob->size);
  if (ob->kind == KIND_HEAP)
    heap_json(o, ob);
  add_u64(o, "accesses", tot->c.accesses);
  add_u64(o, "loads", tot->c.loads);
  add_u64(o, "stores", tot->c.stores);
  add_u64(o, "bytes_loaded", tot->c.bytes_loaded);
  add_u64(o, "bytes_stored", tot->c.bytes_stored);
  add_u64(o, "footprint_bytes", tot->lines << OBJECT_LINE_SHIFT);
  json_object_object_add(o, "access_classes", classes_json(&tot->c));
  if (reuse_on())
    reuse_json(o, &tot->reuse);
  if (entropy)
    json_object_object_add(o, "memory_entropy",
                           entropy_to_json(entropy, pisa_config.entropy_bits));
  if (spatial)
    json_object_object_add(o, "spatial_locality", spatial_json(&tot->reuse));
  json_object *fns = json_object_new_array();
  for (int f = 0; f < OBJECT_TOP && tot->functions.accesses[f]; f++) {
    json_object *fn = json_object_new_object();
    json_object_object_add(
        fn, "name",
        json_object_new_string(pisa_functions[tot->functions.id[f]].display));
    add_u64(fn, "accesses", tot->functions.accesses[f]);
    json_object_array_add(fns, fn);
  }
  json_object_object_add(o, "functions", fns);
  json_object_object_add(o, "loops", loops_json(&tot->loops));
  return o;
}

static const struct object_total *sort_totals;

/* Most accesses first, then by id (the order objects were created). */
static int by_accesses(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  uint64_t nx = sort_totals[x].c.accesses, ny = sort_totals[y].c.accesses;
  if (nx != ny)
    return nx < ny ? 1 : -1;
  return x < y ? -1 : x > y;
}

/* Listed: `unknown`, and every object accessed or allocated. */
static int listed(uint32_t id, const struct object_total *tot) {
  return id == OBJECT_UNKNOWN || tot[id].c.accesses || objects[id].allocations;
}

PISA_HIDDEN json_object *pisa_objects_json(struct pisa_thread *threads,
                                           const struct entropy_counts *all) {
  if (!pisa_config.objects)
    return NULL;
  pthread_mutex_lock(&objects_lock);
  objects_init_locked();
  unsigned missing = partial(threads);
  int spatial = locality_on() && !(missing & PARTIAL_SPATIAL);
  struct object_total *tot = totals(threads);
  struct entropy_counts *ent =
      all && entropy_on() && !(missing & PARTIAL_ENTROPY)
          ? entropies(threads, all)
          : NULL;
  uint32_t *order = malloc(n_objects * sizeof *order), n = 0;
  json_object *a = NULL;
  if (tot && order) {
    for (uint32_t i = 0; i < n_objects; i++)
      if (listed(i, tot))
        order[n++] = i;
    sort_totals = tot;
    qsort(order, n, sizeof *order, by_accesses);
    a = json_object_new_array();
    for (uint32_t k = 0; k < n; k++)
      json_object_array_add(
          a, object_json(threads, &objects[order[k]], &tot[order[k]],
                         ent ? &ent[order[k]] : NULL, spatial));
  }
  for (uint32_t i = 0; ent && i < n_objects; i++)
    entropy_free(&ent[i]);
  pthread_mutex_unlock(&objects_lock);
  free(ent);
  free(order);
  free(tot);
  return a;
}
