/* footprint.c: the shadow bitmaps of footprint builds (pisa-cc
 * --mode=footprint; layout in pisa/abi.h, docs/counter-mode.md).
 *
 * Each (thread, function) that runs has a map: a header, then a top table
 * of chunk pointers, one per 2^PISA_FP_CHUNK_SHIFT bytes of address space,
 * in one anonymous mapping reserved without backing; a chunk, made when the
 * first access lands in its part of the address space, is one bit per byte
 * of that part.  Only the pages the program's accesses touch become
 * resident, so the shadow costs an eighth of the bytes accessed, in pages.
 * The instrumented code sets the bits of its thread's maps directly, with
 * no lock.  When a thread exits, its maps are counted (its footprint) and
 * folded into maps that outlive it, one per function (the union over the
 * exited threads) and two for the run (the union of the exited threads and
 * the bytes two of them touched), then unmapped: the memory stays bounded
 * by the live threads' maps and the run's footprint, however many threads
 * come and go.  At the result, every map's resident pages are found in
 * /proc/self/pagemap and or-ed together, page by page, into the unions of
 * each thread, each function and the whole run.
 *
 * No malloc in making a map or a chunk (__pisa_fp_top, __pisa_fp_chunk),
 * which a signal handler that interrupted malloc can do; the list of maps
 * has a lock, taken with signals blocked.  Runs that pisa-char does not
 * analyse share one map whose every chunk is the same scratch chunk. */
#include "counter.h"
#include "error.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uthash.h>

#define TOP_ENTRIES ((size_t)1 << PISA_FP_TOP_BITS)
#define CHUNK_SHADOW ((size_t)1 << (PISA_FP_CHUNK_SHIFT - 3))
#define PAGE 4096u
#define CHUNK_PAGES (CHUNK_SHADOW / PAGE)
#define CHUNK_BYTES (CHUNK_SHADOW + PAGE) /* the slack, in a page */
#define HEADER_BYTES ((size_t)64 << 10)
#define MAP_BYTES (HEADER_BYTES + TOP_ENTRIES * sizeof(unsigned char *))
#define NONE UINT32_MAX

struct fp_map {
  struct fp_map *next;
  /* NULL: the shared scratch map; else its thread, or one of the owners
   * of the maps that outlive their threads (below). */
  struct pisa_cthread *thread;
  unsigned char ***slot; /* the thread-local slot that holds its top */
  uint32_t module, function;
  _Atomic uint32_t n_chunks;
  uint32_t chunks[]; /* top indices of the chunks made, in order */
};

#define MAX_CHUNKS ((HEADER_BYTES - sizeof(struct fp_map)) / sizeof(uint32_t))

/* The maps, newest first.  Added to by their threads' first entries into
 * a function, removed from at thread exit; the lock is taken with signals
 * blocked, and after the counter registry's thread lock when both are. */
static struct fp_map *maps;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int lost; /* a map or chunk that could not be made */

/* Owners of the maps that outlive their threads: a function's union over
 * the exited threads, the exited threads' union, and the bytes two exited
 * threads touched. */
static struct pisa_cthread retired_function, retired_run, retired_shared;
static struct fp_map *run_map, *shared_map;

/* The retired function maps, by (module, function). */
struct retired {
  uint64_t key;
  struct fp_map *map;
  UT_hash_handle hh;
};
static struct retired *retired_maps, *abandoned;

/* The scratch map and chunk: in the runtime's zeroed data, so that they
 * exist without a call that could fail; untouched, they cost no memory. */
static struct {
  _Alignas(4096) char header[HEADER_BYTES];
  unsigned char *top[TOP_ENTRIES];
} scratch;
static _Alignas(4096) unsigned char scratch_chunk[CHUNK_BYTES];

static unsigned char **top_of(struct fp_map *m) {
  return (unsigned char **)((char *)m + HEADER_BYTES);
}

static struct fp_map *map_of(unsigned char **top) {
  return (struct fp_map *)((char *)top - HEADER_BYTES);
}

/* Anonymous memory without backing until touched, in small pages: a huge
 * page would make a touched page of a chunk cost 2 MiB. */
static void *reserve(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

static struct fp_map *new_map(void) { return reserve(MAP_BYTES); }

static void push_map(struct fp_map *m) {
  pthread_mutex_lock(&maps_lock);
  m->next = maps;
  maps = m;
  pthread_mutex_unlock(&maps_lock);
}

static uint32_t module_index(const struct pisa_counter_module *module) {
  uint32_t n = pisa_cmodule_count();
  for (uint32_t i = 0; i < n; i++)
    if (pisa_cmodules[i].table == module)
      return i;
  return UINT32_MAX;
}

__attribute__((visibility("default"))) unsigned char **
__pisa_fp_top(unsigned char ***slot, const struct pisa_counter_module *module,
              uint32_t function) {
  int saved = errno;
  unsigned char **top;
  if (!pisa_counter_mode() || !pisa_config.active) {
    top = *slot = scratch.top;
  } else {
    sigset_t saved_mask;
    pisa_signals_block(&saved_mask);
    struct pisa_cthread *t = pisa_cthread_self();
    uint32_t index = module_index(module);
    struct fp_map *m = t && index != UINT32_MAX ? new_map() : NULL;
    if (m) {
      m->thread = t;
      m->slot = slot;
      m->module = index;
      m->function = function;
      push_map(m);
      top = *slot = top_of(m);
    } else {
      /* This entry's marks are lost; the slot stays empty so that the
       * next entry tries again (a module not registered yet: code run by
       * another module's constructor before this one's). */
      atomic_store(&lost, 1);
      top = scratch.top;
    }
    pisa_signals_restore(&saved_mask);
  }
  errno = saved;
  return top;
}

__attribute__((visibility("default"))) unsigned char *
__pisa_fp_chunk(unsigned char **top, uint64_t address) {
  int saved = errno;
  size_t index = (address >> PISA_FP_CHUNK_SHIFT) & (TOP_ENTRIES - 1);
  struct fp_map *m = map_of(top);
  unsigned char *chunk;
  if (!m->thread) { /* the scratch map: every chunk is the scratch chunk */
    __atomic_store_n(&top[index], scratch_chunk, __ATOMIC_RELAXED);
    errno = saved;
    return scratch_chunk;
  }
  /* A handler that came between the test and the store would make a chunk
   * of its own for the same index, and lose its marks. */
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  chunk = top[index];
  if (!chunk) {
    uint32_t n = atomic_load_explicit(&m->n_chunks, memory_order_relaxed);
    chunk = n < MAX_CHUNKS ? reserve(CHUNK_BYTES) : NULL;
    if (!chunk) {
      atomic_store(&lost, 1);
      pisa_signals_restore(&saved_mask);
      /* Marks go to the scratch chunk: the result says incomplete. */
      chunk = scratch_chunk;
      top[index] = chunk;
      errno = saved;
      return chunk;
    }
    /* The result reads the chunks the count publishes. */
    __atomic_store_n(&top[index], chunk, __ATOMIC_RELAXED);
    m->chunks[n] = (uint32_t)index;
    atomic_store_explicit(&m->n_chunks, n + 1, memory_order_release);
  }
  pisa_signals_restore(&saved_mask);
  errno = saved;
  return chunk;
}

/* Sets bits [from, to) of a bitmap: a byte at each end, memset between. */
static void set_bits(unsigned char *bits, uint64_t from, uint64_t to) {
  if (from >= to)
    return;
  uint64_t first = from >> 3, last = (to - 1) >> 3;
  unsigned char head = (unsigned char)(0xffu << (from & 7));
  unsigned char tail = (unsigned char)(0xffu >> (7 - ((to - 1) & 7)));
  if (first == last) {
    bits[first] |= head & tail;
    return;
  }
  bits[first] |= head;
  if (last > first + 1)
    memset(bits + first + 1, 0xff, last - first - 1);
  bits[last] |= tail;
}

__attribute__((visibility("default"))) void
__pisa_fp_mark(unsigned char **top, uint64_t address, uint64_t bytes) {
  const uint64_t span = (uint64_t)1 << PISA_FP_CHUNK_SHIFT;
  while (bytes) {
    uint64_t in = address & (span - 1);
    uint64_t n = span - in < bytes ? span - in : bytes;
    size_t index = (address >> PISA_FP_CHUNK_SHIFT) & (TOP_ENTRIES - 1);
    unsigned char *chunk = top[index];
    if (!chunk)
      chunk = __pisa_fp_chunk(top, address);
    set_bits(chunk, in, in + n);
    address += n;
    bytes -= n;
  }
}

__attribute__((visibility("default"))) void
__pisa_fp_stride(unsigned char **top, uint64_t start, uint64_t count,
                 int64_t stride, uint64_t bytes) {
  if (!count || !bytes)
    return;
  uint64_t step = stride < 0 ? -(uint64_t)stride : (uint64_t)stride;
  if (stride < 0) /* the same addresses, lowest first */
    start -= (count - 1) * step;
  if (step <= bytes) { /* one range without gaps */
    __pisa_fp_mark(top, start, (count - 1) * step + bytes);
    return;
  }
  const uint64_t span = (uint64_t)1 << PISA_FP_CHUNK_SHIFT;
  for (uint64_t i = 0; i < count; i++, start += step) {
    uint64_t in = start & (span - 1);
    if (in + bytes > span) { /* into the next chunk */
      __pisa_fp_mark(top, start, bytes);
      continue;
    }
    unsigned char *chunk =
        top[(start >> PISA_FP_CHUNK_SHIFT) & (TOP_ENTRIES - 1)];
    if (!chunk)
      chunk = __pisa_fp_chunk(top, start);
    set_bits(chunk, in, in + bytes);
  }
}

/* The page of chunk `chunk` of map m, the chunk made when it is not. */
static uint64_t *map_page(struct fp_map *m, uint32_t chunk, size_t page) {
  unsigned char **top = top_of(m);
  unsigned char *c = top[chunk];
  if (!c)
    c = __pisa_fp_chunk(top, (uint64_t)chunk << PISA_FP_CHUNK_SHIFT);
  return (uint64_t *)(void *)(c + page * PAGE);
}

static void unmap(struct fp_map *m) {
  unsigned char **top = top_of(m);
  uint32_t n = atomic_load(&m->n_chunks);
  for (uint32_t c = 0; c < n; c++)
    munmap(top[m->chunks[c]], CHUNK_BYTES);
  munmap(m, MAP_BYTES);
}

/* ---- walking the pages of a set of maps ---- */

/* One map's part in a chunk of address space: its own chunk there, or the
 * slack of its chunk before, which holds the first bytes of this one. */
struct part {
  const unsigned char *shadow;
  size_t bytes;               /* PAGE per page, or the slack */
  const unsigned char *pages; /* resident pages, NULL for a slack */
  uint32_t thread, function;  /* scope numbers, NONE: in no such scope */
  int shared;                 /* the exited threads' shared bytes */
};

struct entry {
  uint32_t chunk; /* top index */
  uint32_t map;   /* in the walk's maps */
  int slack;
};

/* A walk calls visit once per chunk of address space that one of the maps
 * holds (or holds the slack of), with the maps' parts there. */
struct walk {
  struct fp_map **maps;
  size_t n_maps;
  const uint32_t *thread_of, *function_of; /* per map: scope numbers */
  void (*visit)(void *ctx, struct part *parts, size_t n, uint32_t chunk);
  void *ctx;
};

static int by_chunk(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  if (x->chunk != y->chunk)
    return x->chunk < y->chunk ? -1 : 1;
  return x->map < y->map ? -1 : x->map > y->map;
}

/* Which of the chunk's pages are resident or swapped (/proc/self/pagemap);
 * all of them when the file cannot be read. */
static void chunk_pages(int pagemap, const unsigned char *chunk,
                        unsigned char *present, uint64_t *buf) {
  size_t n = CHUNK_PAGES;
  off_t at = (off_t)((uintptr_t)chunk / PAGE * sizeof(uint64_t));
  if (pagemap < 0 ||
      pread(pagemap, buf, n * sizeof *buf, at) != (ssize_t)(n * sizeof *buf)) {
    memset(present, 1, n);
    return;
  }
  for (size_t p = 0; p < n; p++)
    present[p] = (buf[p] >> 62) != 0; /* bit 63 present, 62 swapped */
}

/* 0, or -1 when memory ran out. */
static int walk(const struct walk *w) {
  size_t n_entries = 0;
  for (size_t m = 0; m < w->n_maps; m++)
    n_entries +=
        2 * atomic_load_explicit(&w->maps[m]->n_chunks, memory_order_acquire);
  struct entry *e = malloc((n_entries ? n_entries : 1) * sizeof *e);
  struct part *parts = malloc((n_entries ? n_entries : 1) * sizeof *parts);
  uint64_t *buf = malloc(CHUNK_PAGES * sizeof *buf);
  unsigned char *present = NULL;
  size_t present_parts = 0, k = 0;
  int status = -1, pagemap = -1;
  if (!e || !parts || !buf)
    goto out;
  for (size_t m = 0; m < w->n_maps; m++) {
    const struct fp_map *map = w->maps[m];
    uint32_t n = atomic_load_explicit(&map->n_chunks, memory_order_acquire);
    for (uint32_t c = 0; c < n && k + 2 <= n_entries; c++) {
      uint32_t next = (uint32_t)((map->chunks[c] + 1) & (TOP_ENTRIES - 1));
      e[k++] = (struct entry){map->chunks[c], (uint32_t)m, 0};
      e[k++] = (struct entry){next, (uint32_t)m, 1};
    }
  }
  n_entries = k;
  qsort(e, n_entries, sizeof *e, by_chunk);
  pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  for (size_t i = 0; i < n_entries;) {
    uint32_t chunk = e[i].chunk;
    size_t group = 0, n = 0;
    while (i + group < n_entries && e[i + group].chunk == chunk)
      group++;
    if (group > present_parts) {
      unsigned char *more = realloc(present, group * CHUNK_PAGES);
      if (!more)
        goto out;
      present = more;
      present_parts = group;
    }
    for (; i < n_entries && e[i].chunk == chunk; i++) {
      struct fp_map *map = w->maps[e[i].map];
      unsigned char **top = top_of(map);
      struct part *q = &parts[n++];
      q->thread = w->thread_of[e[i].map];
      q->function = w->function_of[e[i].map];
      q->shared = map->thread == &retired_shared;
      if (e[i].slack) {
        q->shadow = top[(chunk - 1) & (TOP_ENTRIES - 1)] + CHUNK_SHADOW;
        q->bytes = PISA_FP_SLACK;
        q->pages = NULL;
      } else {
        unsigned char *pages = present + (n - 1) * CHUNK_PAGES;
        q->shadow = top[chunk];
        q->bytes = PAGE;
        chunk_pages(pagemap, q->shadow, pages, buf);
        q->pages = pages;
      }
    }
    w->visit(w->ctx, parts, n, chunk);
  }
  status = 0;
out:
  if (pagemap >= 0)
    close(pagemap);
  free(e), free(parts), free(buf), free(present);
  return status;
}

static int part_has(const struct part *q, size_t page) {
  return q->pages ? q->pages[page] : page == 0;
}

static int any_has(const struct part *parts, size_t n, size_t page) {
  for (size_t i = 0; i < n; i++)
    if (part_has(&parts[i], page))
      return 1;
  return 0;
}

/* dst |= the part's bytes of the page (the slack: its first bytes). */
static void or_part(uint64_t *dst, const struct part *q, size_t page) {
  const unsigned char *src = q->pages ? q->shadow + page * PAGE : q->shadow;
  for (size_t i = 0; i < q->bytes / 8; i++) {
    uint64_t w;
    memcpy(&w, src + 8 * i, 8);
    dst[i] |= w;
  }
}

static int cmp_thread(const void *a, const void *b) {
  const struct part *x = a, *y = b;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_function(const void *a, const void *b) {
  const struct part *x = a, *y = b;
  return x->function < y->function ? -1 : x->function > y->function;
}

/* The next group of parts with one scope number (sorted by it) from *i:
 * its number, and the union of its page in u; NONE after the last group
 * (the parts in no scope of that kind sort last). */
static uint32_t next_group(const struct part *parts, size_t n, size_t *i,
                           size_t page, int by_thread, uint64_t *u, int *any) {
  if (*i >= n)
    return NONE;
  uint32_t key = by_thread ? parts[*i].thread : parts[*i].function;
  memset(u, 0, PAGE);
  *any = 0;
  for (; *i < n && (by_thread ? parts[*i].thread : parts[*i].function) == key;
       ++*i)
    if (part_has(&parts[*i], page)) {
      or_part(u, &parts[*i], page);
      *any = 1;
    }
  return key;
}

/* The bits set in x (without -mpopcnt the builtin is a libcall). */
static uint64_t ones(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555u;
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return (x * 0x0101010101010101u) >> 56;
}

/* Flags, one per byte of x, of the bytes that are not 0. */
static uint64_t nonzero_bytes(uint64_t x) {
  x |= x >> 4;
  x |= x >> 2;
  x |= x >> 1;
  return x & 0x0101010101010101u;
}

/* Counts one page of shadow: the bytes it marks, and the blocks of 8 to
 * 512 bytes with a byte marked (1 to 64 shadow bytes). */
static void count_page(const uint64_t *w, struct pisa_fp_count *c) {
  for (unsigned i = 0; i < PAGE / 8; i += 8) {
    uint64_t any = 0, pair = 0, quad = 0;
    for (unsigned j = 0; j < 8; j++) {
      uint64_t x = w[i + j];
      if (!x)
        continue;
      uint64_t b8 = nonzero_bytes(x);
      uint64_t b16 = (b8 | b8 >> 8) & 0x0001000100010001u;
      uint64_t b32 = (b16 | b16 >> 16) & 0x0000000100000001u;
      c->bytes += ones(x);
      c->blocks[0] += ones(b8);
      c->blocks[1] += ones(b16);
      c->blocks[2] += ones(b32);
      c->blocks[3]++;
      pair |= 1u << (j / 2);
      quad |= 1u << (j / 4);
      any = 1;
    }
    c->blocks[4] += ones(pair);
    c->blocks[5] += ones(quad);
    c->blocks[6] += any;
  }
}

/* ---- thread exit: a thread's maps folded into the retired ones ---- */

static struct fp_map *retired_map(struct pisa_cthread *owner, uint32_t module,
                                  uint32_t function) {
  struct fp_map *m = new_map();
  if (!m) {
    atomic_store(&lost, 1);
    return NULL;
  }
  m->thread = owner;
  m->module = module;
  m->function = function;
  m->next = maps;
  maps = m;
  return m;
}

/* The retired map of (module, function), made the first time. */
static struct fp_map *retired_for(uint32_t module, uint32_t function) {
  uint64_t key = (uint64_t)module << 32 | function;
  struct retired *r;
  HASH_FIND(hh, retired_maps, &key, sizeof key, r);
  if (r)
    return r->map;
  struct fp_map *m = retired_map(&retired_function, module, function);
  if (!m || !(r = calloc(1, sizeof *r))) {
    atomic_store(&lost, 1);
    return m;
  }
  r->key = key;
  r->map = m;
  HASH_ADD(hh, retired_maps, key, sizeof r->key, r);
  return m;
}

struct folding {
  struct pisa_cthread *thread;
  struct fp_map **into; /* per function number: its retired map */
  uint64_t u[PAGE / 8], fu[PAGE / 8];
};

static void fold_visit(void *ctx, struct part *parts, size_t n,
                       uint32_t chunk) {
  struct folding *f = ctx;
  qsort(parts, n, sizeof *parts, cmp_function);
  for (size_t page = 0; page < CHUNK_PAGES; page++) {
    if (!any_has(parts, n, page))
      continue;
    int any_page = 0, any;
    memset(f->u, 0, sizeof f->u);
    size_t i = 0;
    for (uint32_t fn;
         (fn = next_group(parts, n, &i, page, 0, f->fu, &any)) != NONE;) {
      if (!any || !f->into[fn])
        continue;
      uint64_t *dst = map_page(f->into[fn], chunk, page);
      for (size_t w = 0; w < PAGE / 8; w++) {
        dst[w] |= f->fu[w];
        f->u[w] |= f->fu[w];
      }
      any_page = 1;
    }
    if (!any_page)
      continue;
    count_page(f->u, &f->thread->fp);
    uint64_t *run = map_page(run_map, chunk, page);
    uint64_t *shared = NULL;
    for (size_t w = 0; w < PAGE / 8; w++) {
      if (run[w] & f->u[w]) {
        if (!shared)
          shared = map_page(shared_map, chunk, page);
        shared[w] |= run[w] & f->u[w];
      }
      run[w] |= f->u[w];
    }
  }
}

/* At thread exit (counter/registry.c, signals blocked): the thread's
 * footprint is counted and its maps are folded into the retired ones and
 * unmapped; its functions' slots are emptied, so that instrumented code
 * the thread still runs (another key's destructor) makes new maps. */
PISA_HIDDEN void pisa_fp_thread_exit(struct pisa_cthread *t) {
  pthread_mutex_lock(&maps_lock);
  size_t n = 0;
  for (struct fp_map *m = maps; m; m = m->next)
    n += m->thread == t;
  struct fp_map **mine = malloc((n ? n : 1) * sizeof *mine);
  struct fp_map **into = malloc((n ? n : 1) * sizeof *into);
  uint32_t *thread_of = calloc(n ? n : 1, sizeof *thread_of);
  uint32_t *function_of = malloc((n ? n : 1) * sizeof *function_of);
  struct folding *f = calloc(1, sizeof *f);
  if (!n || !mine || !into || !thread_of || !function_of || !f)
    goto out;
  if (!run_map)
    run_map = retired_map(&retired_run, NONE, NONE);
  if (!shared_map)
    shared_map = retired_map(&retired_shared, NONE, NONE);
  if (!run_map || !shared_map)
    goto out;
  size_t k = 0;
  for (struct fp_map **at = &maps; *at;) {
    struct fp_map *m = *at;
    if (m->thread != t) {
      at = &m->next;
      continue;
    }
    *at = m->next; /* out of the list: the result no longer sees it */
    function_of[k] = (uint32_t)k;
    into[k] = retired_for(m->module, m->function);
    mine[k++] = m;
  }
  *f = (struct folding){.thread = t, .into = into};
  t->fp_folded = 1;
  struct walk w = {mine, k, thread_of, function_of, fold_visit, f};
  if (walk(&w))
    atomic_store(&lost, 1);
  for (size_t i = 0; i < k; i++) {
    if (mine[i]->slot)
      *mine[i]->slot = NULL;
    unmap(mine[i]);
  }
out:
  if (n && !f)
    atomic_store(&lost, 1);
  pthread_mutex_unlock(&maps_lock);
  free(mine), free(into), free(thread_of), free(function_of), free(f);
}

/* A module that dlclose unloads: its thread-local slots go with it. */
PISA_HIDDEN void pisa_fp_module_unloaded(uint32_t module) {
  pthread_mutex_lock(&maps_lock);
  for (struct fp_map *m = maps; m; m = m->next)
    if (m->module == module)
      m->slot = NULL;
  pthread_mutex_unlock(&maps_lock);
}

/* ---- fork ---- */

/* In a fork child the counts start over: the forking thread's maps are
 * emptied and kept (its functions' slots point to them); the other
 * threads' maps and the retired ones stay reachable but out of the list. */
PISA_HIDDEN void pisa_fp_after_fork(const struct pisa_cthread *self) {
  pthread_mutex_init(&maps_lock, NULL);
  struct fp_map *kept = NULL;
  for (struct fp_map *m = maps, *next; m; m = next) {
    next = m->next;
    if (m->thread != self)
      continue;
    unsigned char **top = top_of(m);
    uint32_t n = atomic_load(&m->n_chunks);
    for (uint32_t c = 0; c < n; c++)
      madvise(top[m->chunks[c]], CHUNK_BYTES, MADV_DONTNEED);
    m->next = kept;
    kept = m;
  }
  maps = kept;
  atomic_store(&lost, 0);
  run_map = shared_map = NULL;
  abandoned = retired_maps; /* the parent's: reachable, not freed */
  retired_maps = NULL;
}

/* ---- the result ---- */

PISA_HIDDEN int pisa_fp_build(void) {
  uint32_t n = pisa_cmodule_count(), fp = 0;
  for (uint32_t i = 0; i < n; i++)
    fp += pisa_cmodules[i].table->mode == PISA_MODE_FOOTPRINT;
  return n && fp == n ? 1 : fp ? -1 : 0;
}

PISA_HIDDEN int pisa_fp_lost(void) { return atomic_load(&lost); }

struct counting {
  struct pisa_fp_result *r;
  uint64_t run[PAGE / 8], shared[PAGE / 8], u[PAGE / 8];
  struct part *by_fn;
  size_t by_fn_cap;
};

static void count_visit(void *ctx, struct part *parts, size_t n,
                        uint32_t chunk) {
  (void)chunk;
  struct counting *k = ctx;
  if (n > k->by_fn_cap) {
    struct part *more = realloc(k->by_fn, n * sizeof *more);
    if (!more) {
      pisa_out_of_memory();
      return;
    }
    k->by_fn = more;
    k->by_fn_cap = n;
  }
  qsort(parts, n, sizeof *parts, cmp_thread);
  memcpy(k->by_fn, parts, n * sizeof *parts);
  qsort(k->by_fn, n, sizeof *parts, cmp_function);
  for (size_t page = 0; page < CHUNK_PAGES; page++) {
    if (!any_has(parts, n, page))
      continue;
    memset(k->run, 0, sizeof k->run);
    memset(k->shared, 0, sizeof k->shared);
    size_t i = 0;
    int any;
    for (uint32_t key;
         (key = next_group(parts, n, &i, page, 1, k->u, &any)) != NONE;) {
      if (!any)
        continue;
      count_page(k->u, &k->r->threads[key].count);
      for (size_t w = 0; w < PAGE / 8; w++) {
        k->shared[w] |= k->run[w] & k->u[w];
        k->run[w] |= k->u[w];
      }
    }
    for (size_t j = 0; j < n; j++)
      if (parts[j].shared && part_has(&parts[j], page))
        or_part(k->shared, &parts[j], page);
    i = 0;
    for (uint32_t key;
         (key = next_group(k->by_fn, n, &i, page, 0, k->u, &any)) != NONE;)
      if (any)
        count_page(k->u, &k->r->functions[key].count);
    count_page(k->run, &k->r->total);
    count_page(k->shared, &k->r->shared);
  }
}

static int scope_cmp(const struct fp_map *x, const struct fp_map *y,
                     int by_function) {
  if (!by_function)
    return (uintptr_t)
                   x->thread<(uintptr_t)y->thread ? -1 : (uintptr_t)x->thread>(
                        uintptr_t) y->thread
               ? 1
               : 0;
  if (x->module != y->module)
    return x->module < y->module ? -1 : 1;
  return x->function < y->function ? -1 : x->function > y->function;
}

/* Whether map m is part of a thread's (or the exited threads') union, or
 * of a function's. */
static int in_scope(const struct fp_map *m, int by_function) {
  if (m->thread == &retired_shared)
    return 0;
  return by_function ? m->thread != &retired_run
                     : m->thread != &retired_function;
}

struct keyed {
  const struct fp_map *map;
  size_t index;
};

static int keyed_thread(const void *a, const void *b) {
  return scope_cmp(((const struct keyed *)a)->map,
                   ((const struct keyed *)b)->map, 0);
}

static int keyed_function(const void *a, const void *b) {
  return scope_cmp(((const struct keyed *)a)->map,
                   ((const struct keyed *)b)->map, 1);
}

/* The result's threads and functions, one per distinct key of the maps,
 * and each map's number in both (NONE when it is in no such scope). */
static int number_scopes(struct pisa_fp_result *r, struct fp_map **map,
                         size_t n, uint32_t *thread_of, uint32_t *function_of) {
  struct keyed *sorted = malloc((n ? n : 1) * sizeof *sorted);
  r->threads = calloc(n ? n : 1, sizeof *r->threads);
  r->functions = calloc(n ? n : 1, sizeof *r->functions);
  if (!sorted || !r->threads || !r->functions) {
    free(sorted);
    return -1;
  }
  for (int by_function = 0; by_function < 2; by_function++) {
    int (*cmp)(const void *, const void *) =
        by_function ? keyed_function : keyed_thread;
    struct pisa_fp_scope *out = by_function ? r->functions : r->threads;
    size_t *count = by_function ? &r->n_functions : &r->n_threads;
    uint32_t *of = by_function ? function_of : thread_of;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
      of[i] = NONE;
      if (in_scope(map[i], by_function))
        sorted[k++] = (struct keyed){map[i], i};
    }
    qsort(sorted, k, sizeof *sorted, cmp);
    for (size_t j = 0; j < k; j++) {
      const struct fp_map *m = sorted[j].map;
      if (!j || cmp(&sorted[j - 1], &sorted[j]))
        out[(*count)++] = (struct pisa_fp_scope){
            .thread = m->thread, .module = m->module, .function = m->function};
      of[sorted[j].index] = (uint32_t)(*count - 1);
    }
  }
  free(sorted);
  return 0;
}

PISA_HIDDEN void pisa_fp_count(struct pisa_fp_result *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_lock(&maps_lock);
  size_t n = 0;
  for (struct fp_map *m = maps; m; m = m->next)
    n++;
  struct fp_map **map = malloc((n ? n : 1) * sizeof *map);
  uint32_t *thread_of = malloc((n ? n : 1) * sizeof *thread_of);
  uint32_t *function_of = malloc((n ? n : 1) * sizeof *function_of);
  struct counting *k = calloc(1, sizeof *k);
  int failed = !map || !thread_of || !function_of || !k;
  if (!failed) {
    size_t i = 0;
    for (struct fp_map *m = maps; m; m = m->next)
      map[i++] = m;
    k->r = r;
    struct walk w = {map, n, thread_of, function_of, count_visit, k};
    failed = number_scopes(r, map, n, thread_of, function_of) || walk(&w);
  }
  pthread_mutex_unlock(&maps_lock);
  if (failed)
    pisa_out_of_memory();
  if (k)
    free(k->by_fn);
  free(map), free(thread_of), free(function_of), free(k);
}

PISA_HIDDEN void pisa_fp_result_free(struct pisa_fp_result *r) {
  free(r->threads);
  free(r->functions);
  memset(r, 0, sizeof *r);
}

PISA_HIDDEN const struct pisa_fp_count *
pisa_fp_thread(const struct pisa_fp_result *r, const struct pisa_cthread *t) {
  if (t->fp_folded)
    return &t->fp;
  for (size_t i = 0; i < r->n_threads; i++)
    if (r->threads[i].thread == t)
      return &r->threads[i].count;
  return NULL;
}

PISA_HIDDEN const struct pisa_fp_count *
pisa_fp_function(const struct pisa_fp_result *r, uint32_t module,
                 uint32_t function) {
  for (size_t i = 0; i < r->n_functions; i++)
    if (r->functions[i].module == module &&
        r->functions[i].function == function)
      return &r->functions[i].count;
  return NULL;
}
