/* schedule_memory.c: the schedules' memory-dependency state (shadow pages
 * of entries by exact start address, short until the page's first store;
 * overflow chunks for the addresses that share an entry), its widening
 * from 32- to 64-bit words, and its charges to the process's memory budget
 * (budget.h).  The page-cache hit is inline in schedule_internal.h; this
 * is the rest. */
#include "budget.h"
#include "schedule_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_ENTRIES 1024

/* Takes `bytes` for the memory-dependency state from the process's budget
 * (budget.h): 0 when all analysis state together would pass the limit. */
static int budget_take(const struct sched *s, uint64_t bytes) {
  uint64_t limit = s->cfg.max_memory_bytes;
  if (limit && budget_used() + bytes > limit)
    return 0;
  budget_charge(BUDGET_SCHED, bytes);
  return 1;
}

static void budget_give(uint64_t bytes) { budget_release(BUDGET_SCHED, bytes); }

/* Zeroed memory taken from the budget; NULL when either is short. */
static unsigned char *budget_calloc(const struct sched *s, size_t bytes) {
  if (!budget_take(s, bytes))
    return NULL;
  unsigned char *p = calloc(bytes, 1);
  if (!p)
    budget_give(bytes);
  return p;
}

/* Bytes of a page of 2^shift-byte slots with entries of `words` words:
 * its key bytes and its entries. */
static size_t page_bytes(const struct sched *s, unsigned shift,
                         unsigned words) {
  return page_entries(shift) * (1 + ((size_t)words << (s->wide ? 3 : 2)));
}

static size_t shadow_bytes(const struct sched *s, const struct shadow_page *p) {
  return page_bytes(s, p->shift, p->words);
}

/* ---- Pages' memory -------------------------------------------------
 * Whole pages are heap blocks.  Short pages are cut from mapped runs: a
 * freed one (made whole, or replaced by one of smaller slots) goes to a
 * list for the next short page of its slot size, and a run is unmapped
 * once every page cut from it is freed.  So an array a scope reads in one
 * sweep and writes in the next gives its short pages' memory back, and a
 * table whose pages are read first and written later, in no order (a hash
 * table filling up), reuses it; heap blocks of their size would stay
 * behind as holes too small for whole pages.  When the lists hold half as
 * much as the short pages in use (pages freed among pages that stay short,
 * and no new ones to take their places: of two arrays read, one is then
 * written), the short pages move into new runs and the old ones go. */
#define SHORT_RUN ((size_t)256 << 10)
_Static_assert(SHORT_RUN >= ((size_t)1 << PAGE_SHIFT) *
                                (1 + 8 * (SCHED_MAX_WINDOWS + 2)),
               "a run holds the largest short page (1-byte slots, 64-bit "
               "words, every schedule)");

/* Unmaps run number `run` (1-based), whose pages are all in the lists. */
static void run_unmap(struct sched *s, uint32_t run) {
  for (unsigned sh = 0; sh < PAGE_SHIFT_SLOTS; sh++) {
    size_t kept = 0;
    for (size_t i = 0; i < s->n_freed[sh]; i++)
      if (s->freed[sh][i].run != run)
        s->freed[sh][kept++] = s->freed[sh][i];
    s->n_freed[sh] = kept;
  }
  munmap(s->runs[run - 1].base, SHORT_RUN);
  budget_give(SHORT_RUN);
  s->runs[run - 1].base = NULL;
}

/* Zeroed memory for a page of 2^shift-byte slots (a short one from the
 * runs: *run its number + 1): where its entries start, its key bytes
 * before them; NULL when memory or the budget is short. */
static unsigned char *page_alloc(struct sched *s, size_t bytes, unsigned shift,
                                 int in_run, uint32_t *run) {
  *run = 0;
  if (!in_run) {
    unsigned char *block = budget_calloc(s, bytes);
    return block ? block + page_entries(shift) : NULL;
  }
  if (s->n_freed[shift]) {
    struct freed_page f = s->freed[shift][--s->n_freed[shift]];
    memset(f.base - page_entries(shift), 0, bytes);
    s->runs[f.run - 1].live++;
    s->short_live += bytes;
    *run = f.run;
    return f.base;
  }
  if (!s->n_runs || s->run_fill + bytes > SHORT_RUN) {
    struct short_run *r =
        sched_grow(s->runs, &s->runs_cap, s->n_runs + 1, sizeof *r);
    if (!r)
      return NULL;
    s->runs = r;
    if (!budget_take(s, SHORT_RUN))
      return NULL;
    void *base = mmap(NULL, SHORT_RUN, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      budget_give(SHORT_RUN);
      return NULL;
    }
    if (s->n_runs && r[s->n_runs - 1].base && !r[s->n_runs - 1].live)
      run_unmap(s, (uint32_t)s->n_runs); /* every page of it went */
    r[s->n_runs++] = (struct short_run){base, 0};
    s->run_fill = 0;
  }
  unsigned char *p = s->runs[s->n_runs - 1].base + s->run_fill;
  s->run_fill += bytes;
  s->short_live += bytes;
  s->runs[s->n_runs - 1].live++;
  *run = (uint32_t)s->n_runs;
  return p + page_entries(shift);
}

/* Frees a page (`base`: its entries): a heap block's memory, or a short
 * page into the list of its slot size (when the list cannot grow, the
 * page's memory stays unused until the scheduler is freed). */
static void page_free(struct sched *s, unsigned char *base, size_t bytes,
                      unsigned shift, uint32_t run) {
  if (!run) {
    budget_give(bytes);
    free(base - page_entries(shift));
    return;
  }
  s->short_live -= bytes;
  struct freed_page *f = sched_grow(s->freed[shift], &s->freed_cap[shift],
                                    s->n_freed[shift] + 1, sizeof *f);
  if (f) {
    s->freed[shift] = f;
    f[s->n_freed[shift]++] = (struct freed_page){base, run};
  }
  if (!--s->runs[run - 1].live && run != s->n_runs && f)
    run_unmap(s, run);
}

static void runs_free(struct sched *s) {
  for (size_t r = 0; r < s->n_runs; r++)
    if (s->runs[r].base) {
      munmap(s->runs[r].base, SHORT_RUN);
      budget_give(SHORT_RUN);
    }
  free(s->runs);
  s->runs = NULL;
  s->n_runs = s->runs_cap = s->run_fill = s->short_live = 0;
  for (unsigned sh = 0; sh < PAGE_SHIFT_SLOTS; sh++) {
    free(s->freed[sh]);
    s->freed[sh] = NULL;
    s->n_freed[sh] = s->freed_cap[sh] = 0;
  }
}

/* Every short page moved, in page order, into new runs, and the old runs
 * unmapped (those of pages that could not move stay).  Entries move: the
 * page cache is emptied, and entries_moved counts it. */
static void compact_runs(struct sched *s) {
  uint64_t limit = s->cfg.max_memory_bytes;
  if (limit && budget_used() + s->short_live + SHORT_RUN > limit)
    return;
  size_t first_new = s->n_runs;
  for (unsigned sh = 0; sh < PAGE_SHIFT_SLOTS; sh++)
    s->n_freed[sh] = 0;    /* in the old runs */
  s->run_fill = SHORT_RUN; /* the next page starts a run */
  for (size_t i = 0; i < s->n_pages; i++) {
    struct shadow_page *p = &s->page_base[i];
    if (!p->run || p->run > first_new)
      continue;
    size_t bytes = shadow_bytes(s, p);
    uint32_t run;
    unsigned char *to = page_alloc(s, bytes, p->shift, 1, &run);
    if (!to)
      break;
    memcpy(to - page_entries(p->shift), page_keys(p), bytes);
    s->runs[p->run - 1].live--;
    s->short_live -= bytes;
    p->base = to;
    p->run = run;
  }
  for (size_t r = 0; r < first_new; r++)
    if (s->runs[r].base && !s->runs[r].live)
      run_unmap(s, (uint32_t)r + 1);
  memset(s->page_cache, 0, sizeof s->page_cache);
  s->entries_moved++;
}

/* After a short page was freed: compaction once the lists hold at least
 * 1 MiB, half as much as the short pages in use (the copy then costs two
 * bytes per byte given back) and 16 bytes per page (which bounds the walk
 * over the pages per byte given back). */
static void maybe_compact(struct sched *s) {
  size_t freed = 0;
  for (unsigned sh = 0; sh < PAGE_SHIFT_SLOTS; sh++)
    freed += s->n_freed[sh] * page_bytes(s, sh, (unsigned)s->load_words);
  if (freed >= 4 * SHORT_RUN && 2 * freed >= s->short_live &&
      freed >= 16 * s->n_pages)
    compact_runs(s);
}

static size_t chunk_bytes(const struct sched *s) {
  return (size_t)CHUNK_ENTRIES * sched_entry_bytes(s);
}

static size_t n_chunks(const struct sched *s) {
  return (s->n_overflow + CHUNK_ENTRIES - 1) / CHUNK_ENTRIES;
}

static const struct shadow_page *cache_page(struct sched *s, uint64_t page,
                                            uint64_t index) {
  unsigned c = (unsigned)(page & (PAGE_CACHE - 1));
  s->page_cache[c].page = page + 1;
  s->page_cache[c].p = s->page_base[index];
  return &s->page_cache[c].p;
}

/* Created zeroed with slots of 2^shift bytes, short entries unless the
 * first access stores. */
const struct shadow_page *sched_shadow_page(struct sched *s, uint64_t page,
                                            unsigned shift, int store) {
  uint64_t *v = u64map_slot(&s->pages, page);
  if (!v)
    return NULL;
  if (!*v) {
    struct shadow_page *b =
        sched_grow(s->page_base, &s->page_cap, s->n_pages + 1, sizeof *b);
    if (!b)
      return NULL;
    s->page_base = b;
    unsigned words = (unsigned)(store ? s->entry_words : s->load_words);
    if (!(b[s->n_pages].base = page_alloc(s, page_bytes(s, shift, words), shift,
                                          !store, &b[s->n_pages].run)))
      return NULL;
    b[s->n_pages].shift = shift;
    b[s->n_pages].words = words;
    b[s->n_pages].overflow = 0;
    *v = ++s->n_pages;
  }
  return cache_page(s, page, *v - 1);
}

/* The keys stay; each short entry's load words go to their places in a
 * whole one (store words and tag 0).  No pointer to a short entry outlives the
 * instruction that took it (the stores list holds whole entries only):
 * site_accesses (schedule_run.c) takes its accesses again when this ran
 * while it took them. */
const struct shadow_page *sched_page_whole(struct sched *s, uint64_t page) {
  uint64_t *v = u64map_find(&s->pages, page);
  struct shadow_page *p = &s->page_base[*v - 1];
  size_t n = page_entries(p->shift), from = p->words, to = s->entry_words;
  uint32_t run;
  unsigned char *whole =
      page_alloc(s, page_bytes(s, p->shift, (unsigned)to), p->shift, 0, &run);
  if (!whole)
    return NULL;
  size_t word = s->wide ? 8 : 4, ld = s->n_sched;
  memcpy(whole - n, page_keys(p), n);
  for (size_t i = 0; i < n; i++) /* load ready */
    memcpy(whole + (i * to + ld) * word, p->base + i * from * word,
           from * word);
  page_free(s, p->base, shadow_bytes(s, p), p->shift, p->run);
  p->base = whole;
  p->words = (unsigned)to;
  p->run = run;
  s->entries_moved++;
  maybe_compact(s);
  return cache_page(s, page, *v - 1);
}

static unsigned char *chunk_entry(const struct sched *s, size_t n) {
  return s->chunks[n / CHUNK_ENTRIES] +
         n % CHUNK_ENTRIES * sched_entry_bytes(s);
}

/* ---- Smaller slots ------------------------------------------------- */

/* log2 of the largest slot, at most 2^shift bytes, that starts at a page
 * offset: slots of that size or smaller give it a slot of its own. */
static unsigned alignment(uint64_t offset, unsigned shift) {
  unsigned a = offset ? (unsigned)__builtin_ctzll(offset) : shift;
  return a < shift ? a : shift;
}

/* An overflow entry moving into a page, and where it was. */
struct moving {
  uint64_t offset;        /* in the page */
  size_t n;               /* overflow entry number */
  const unsigned char *e; /* the entry */
};

static int by_entry(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const struct moving *)a)->e,
            y = (uintptr_t)((const struct moving *)b)->e;
  return (x > y) - (x < y);
}

/* The page offset of the start address that slot i of page p holds. */
static uint64_t slot_offset(const struct shadow_page *p, size_t i) {
  return ((uint64_t)i << p->shift) + page_keys(p)[i] - 1;
}

/* The stores list's pointers into the old page's entries (`old`, slots of
 * `ew` bytes) and into the moving overflow entries (mv, sorted by entry)
 * point at their places in `fine`, a page of 2^to-byte slots. */
static void follow_stores(struct sched *s, const struct shadow_page *old,
                          unsigned char *fine, unsigned to, size_t ew,
                          const struct moving *mv, size_t n_mv) {
  uintptr_t lo = (uintptr_t)old->base, hi = lo + page_entries(old->shift) * ew;
  for (size_t i = 0; i < s->n_stores; i++) {
    const unsigned char *q = s->stores[i];
    uint64_t offset;
    if ((uintptr_t)q >= lo && (uintptr_t)q < hi)
      offset = slot_offset(old, ((uintptr_t)q - lo) / ew);
    else {
      struct moving key = {0, 0, q};
      const struct moving *m = bsearch(&key, mv, n_mv, sizeof *mv, by_entry);
      if (!m)
        continue;
      offset = m->offset;
    }
    s->stores[i] = fine + (offset >> to) * ew;
  }
}

/* Gives the page slots small enough (2^finer bytes or smaller) for each of
 * its start addresses, its own and its overflow entries' alike, and moves
 * the overflow entries in: 0, or -1 without memory (nothing changed). */
static int refine_page(struct sched *s, uint64_t page, struct shadow_page *p,
                       unsigned finer) {
  size_t word = s->wide ? 8 : 4, ew = p->words * word;
  size_t n = page_entries(p->shift), n_mv = 0;
  struct moving mv[(size_t)1 << PAGE_SHIFT];
  unsigned to = finer;
  const unsigned char *keys = page_keys(p);
  for (size_t i = 0; i < n; i++)
    if (keys[i])
      to = alignment(slot_offset(p, i), to);
  for (uint64_t off = 0; off < ((uint64_t)1 << PAGE_SHIFT); off++) {
    uint64_t addr = page << PAGE_SHIFT | off;
    const uint64_t *v = u64map_find(&s->overflow, addr);
    if (!addr || !v)
      continue;
    mv[n_mv++] = (struct moving){off, *v - 1, chunk_entry(s, *v - 1)};
    to = alignment(off, to);
  }
  size_t *fr =
      sched_grow(s->free_overflow, &s->free_cap, s->n_free + n_mv, sizeof *fr);
  if (!fr)
    return -1;
  s->free_overflow = fr;
  uint32_t run;
  unsigned char *fine = page_alloc(s, page_bytes(s, to, p->words), to,
                                   p->words != s->entry_words, &run);
  if (!fine)
    return -1;
  unsigned char *fine_keys = fine - page_entries(to);
  uint64_t in_slot = ((uint64_t)1 << to) - 1;
  for (size_t i = 0; i < n; i++)
    if (keys[i]) {
      uint64_t offset = slot_offset(p, i);
      memcpy(fine + (offset >> to) * ew, p->base + i * ew, ew);
      fine_keys[offset >> to] = (unsigned char)((offset & in_slot) + 1);
    }
  /* Overflow entries are whole; a short page's have never been stored to
   * (a store makes the page whole before it takes an entry). */
  size_t ld = p->words == s->entry_words ? 0 : s->n_sched;
  for (size_t m = 0; m < n_mv; m++) {
    uint64_t offset = mv[m].offset;
    memcpy(fine + (offset >> to) * ew, mv[m].e + ld * word, ew);
    fine_keys[offset >> to] = (unsigned char)((offset & in_slot) + 1);
    u64map_remove(&s->overflow, page << PAGE_SHIFT | offset);
    s->free_overflow[s->n_free++] = mv[m].n;
  }
  qsort(mv, n_mv, sizeof *mv, by_entry);
  follow_stores(s, p, fine, to, ew, mv, n_mv);
  page_free(s, p->base, shadow_bytes(s, p), p->shift, p->run);
  p->base = fine;
  p->run = run;
  p->shift = to;
  p->overflow = 0;
  s->entries_moved++;
  maybe_compact(s);
  return 0;
}

void *sched_overflow_entry(struct sched *s, uint64_t addr, int *short_entry) {
  uint64_t *v = u64map_find(&s->overflow, addr);
  if (v)
    return chunk_entry(s, *v - 1);
  uint64_t page = addr >> PAGE_SHIFT, offset = addr & ((1u << PAGE_SHIFT) - 1);
  uint64_t index = *u64map_find(&s->pages, page) - 1;
  struct shadow_page *p = &s->page_base[index];
  unsigned finer = alignment(offset, p->shift);
  /* Smaller slots once the page's overflow entries would take about the
   * memory they add. */
  if (finer < p->shift &&
      ++p->overflow >= (page_entries(finer) - page_entries(p->shift)) / 2) {
    if (refine_page(s, page, p, finer) == 0) {
      cache_page(s, page, index);
      unsigned char *e =
          p->base + (offset >> p->shift) * (p->words << (s->wide ? 3 : 2));
      page_keys(p)[offset >> p->shift] =
          (unsigned char)((offset & ((1u << p->shift) - 1)) + 1);
      *short_entry = p->words != s->entry_words;
      return e;
    }
    p->overflow = 0; /* no memory: try again after as many more */
  }
  if (!(v = u64map_slot(&s->overflow, addr)))
    return NULL;
  size_t n;
  if (s->n_free) {
    n = s->free_overflow[--s->n_free];
    memset(chunk_entry(s, n), 0, sched_entry_bytes(s));
  } else {
    n = s->n_overflow;
    size_t c = n / CHUNK_ENTRIES;
    if (n % CHUNK_ENTRIES == 0) {
      unsigned char **ch =
          sched_grow(s->chunks, &s->chunk_cap, c + 1, sizeof *ch);
      if (!ch)
        return NULL;
      s->chunks = ch;
      if (!(ch[c] = budget_calloc(s, chunk_bytes(s))))
        return NULL;
    }
    s->n_overflow++;
  }
  *v = n + 1;
  return chunk_entry(s, n);
}

void sched_memory_free(struct sched *s) {
  u64map_free(&s->pages);
  for (size_t p = 0; p < s->n_pages; p++)
    if (!s->page_base[p].run) {
      budget_give(shadow_bytes(s, &s->page_base[p]));
      free(page_keys(&s->page_base[p]));
    }
  runs_free(s);
  free(s->page_base);
  u64map_free(&s->overflow);
  for (size_t c = 0; c < n_chunks(s); c++) {
    budget_give(chunk_bytes(s));
    free(s->chunks[c]);
  }
  free(s->chunks);
  free(s->free_overflow);
}

void sched_forget_memory(struct sched *s) {
  sched_memory_free(s);
  u64map_init(&s->pages);
  u64map_init(&s->overflow);
  s->page_base = NULL;
  s->n_pages = s->page_cap = 0;
  s->chunks = NULL;
  s->n_overflow = s->chunk_cap = 0;
  s->free_overflow = NULL;
  s->n_free = s->free_cap = 0;
  memset(s->page_cache, 0, sizeof s->page_cache);
  s->n_stores = 0; /* entries of instances cut by the gap */
}

/* ---- Widening ------------------------------------------------------ */

/* A stored-entry pointer of s->stores and its position there. */
struct moved {
  uintptr_t at;
  size_t i;
};

static int by_address(const void *a, const void *b) {
  uintptr_t x = ((const struct moved *)a)->at,
            y = ((const struct moved *)b)->at;
  return (x > y) - (x < y);
}

/* Fills the wide copy `to` of the narrow block `from` of `bytes` bytes
 * (the first `keys` of them key bytes, copied as they are), and points the
 * stores into it (st, sorted by address) at their new places. */
static void widen_block(struct sched *s, unsigned char *to,
                        const unsigned char *from, size_t keys, size_t bytes,
                        const struct moved *st, size_t n_st) {
  memcpy(to, from, keys);
  for (size_t i = keys; i < bytes; i += 4) {
    uint32_t w;
    uint64_t v;
    memcpy(&w, from + i, sizeof w);
    v = w;
    memcpy(to + keys + 2 * (i - keys), &v, sizeof v);
  }
  size_t lo = 0, hi = n_st; /* the first store at or above from */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (st[mid].at < (uintptr_t)from)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < n_st && st[lo].at < (uintptr_t)from + bytes; lo++)
    s->stores[st[lo].i] = to + keys + 2 * (st[lo].at - (uintptr_t)from - keys);
}

/* A narrow block of entries: where its owner keeps its entries' address,
 * its size and its key bytes (a page's, before the entries). */
struct narrow_block {
  unsigned char **entries;
  size_t bytes, keys;
};

/* The narrow blocks (pages, then chunks), in one list. */
static size_t narrow_blocks(struct sched *s, struct narrow_block *block) {
  size_t n = 0;
  for (size_t p = 0; p < s->n_pages; p++)
    block[n++] = (struct narrow_block){&s->page_base[p].base,
                                       shadow_bytes(s, &s->page_base[p]),
                                       page_entries(s->page_base[p].shift)};
  for (size_t c = 0; c < n_chunks(s); c++)
    block[n++] = (struct narrow_block){&s->chunks[c], chunk_bytes(s), 0};
  return n;
}

/* Every block is allocated wide before any is replaced, so a shortage
 * leaves the narrow state whole to be forgotten. */
void sched_widen(struct sched *s) {
  size_t n = s->n_pages + n_chunks(s), total = 0, k = 0;
  struct narrow_block *block = malloc((n ? n : 1) * sizeof *block);
  unsigned char **wide = calloc(n ? n : 1, sizeof *wide);
  struct moved *st = malloc((s->n_stores ? s->n_stores : 1) * sizeof *st);
  if (block && wide && st) {
    narrow_blocks(s, block);
    for (; k < n && (wide[k] = malloc(2 * block[k].bytes - block[k].keys)); k++)
      total += block[k].bytes - block[k].keys;
  }
  if (k == n && st) {
    for (size_t i = 0; i < s->n_stores; i++)
      st[i] = (struct moved){(uintptr_t)s->stores[i], i};
    qsort(st, s->n_stores, sizeof *st, by_address);
    size_t in_runs = 0; /* bytes of short pages, charged with their runs */
    for (size_t b = 0; b < n; b++) {
      unsigned char *from = *block[b].entries - block[b].keys;
      widen_block(s, wide[b], from, block[b].keys, block[b].bytes, st,
                  s->n_stores);
      if (b < s->n_pages && s->page_base[b].run) {
        in_runs += block[b].bytes;
        s->page_base[b].run = 0; /* a heap block from now on */
      } else
        free(from);
      *block[b].entries = wide[b] + block[b].keys;
    }
    budget_charge(BUDGET_SCHED, total + in_runs);
    runs_free(s);
    memset(s->page_cache, 0, sizeof s->page_cache);
  } else { /* no memory: forget the state, and say the results are not exact */
    for (size_t b = 0; b < k; b++)
      free(wide[b]);
    sched_forget_memory(s);
    s->untracked++;
  }
  s->wide = 1;
  free(block);
  free(wide);
  free(st);
}
