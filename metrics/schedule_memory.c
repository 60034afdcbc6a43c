/* schedule_memory.c: the schedules' memory-dependency state (shadow pages
 * of entries by exact start address, overflow chunks for the addresses that
 * share an entry), its widening from 32- to 64-bit words, and its charges
 * to the process's memory budget (budget.h).  The page-cache hit is
 * inline in schedule_internal.h; this is the rest. */
#include "budget.h"
#include "schedule_internal.h"

#include <stdlib.h>
#include <string.h>

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

static size_t page_entries(unsigned shift) {
  return (size_t)1 << (PAGE_SHIFT - shift);
}

static size_t page_bytes(const struct sched *s, unsigned shift) {
  return page_entries(shift) * sched_entry_bytes(s);
}

static size_t chunk_bytes(const struct sched *s) {
  return (size_t)CHUNK_ENTRIES * sched_entry_bytes(s);
}

static size_t n_chunks(const struct sched *s) {
  return (s->n_overflow + CHUNK_ENTRIES - 1) / CHUNK_ENTRIES;
}

/* The shadow page of a page number missing from the page cache, created
 * zeroed with slots of 2^shift bytes; NULL without memory. */
const struct shadow_page *sched_shadow_page(struct sched *s, uint64_t page,
                                            unsigned shift) {
  unsigned c = (unsigned)(page & (PAGE_CACHE - 1));
  uint64_t *v = u64map_slot(&s->pages, page);
  if (!v)
    return NULL;
  if (!*v) {
    struct shadow_page *b =
        sched_grow(s->page_base, &s->page_cap, s->n_pages + 1, sizeof *b);
    if (!b)
      return NULL;
    s->page_base = b;
    if (!(b[s->n_pages].base = budget_calloc(s, page_bytes(s, shift))))
      return NULL;
    b[s->n_pages].shift = shift;
    *v = ++s->n_pages;
  }
  s->page_cache[c].page = page + 1;
  s->page_cache[c].p = s->page_base[*v - 1];
  return &s->page_cache[c].p;
}

/* A start address whose shadow entry another start address holds. */
void *sched_overflow_entry(struct sched *s, uint64_t addr) {
  uint64_t *v = u64map_slot(&s->overflow, addr);
  if (!v)
    return NULL;
  if (!*v) {
    size_t n = s->n_overflow, c = n / CHUNK_ENTRIES;
    if (n % CHUNK_ENTRIES == 0) {
      unsigned char **ch =
          sched_grow(s->chunks, &s->chunk_cap, c + 1, sizeof *ch);
      if (!ch)
        return NULL;
      s->chunks = ch;
      if (!(ch[c] = budget_calloc(s, chunk_bytes(s))))
        return NULL;
    }
    *v = ++s->n_overflow;
  }
  size_t n = *v - 1;
  return s->chunks[n / CHUNK_ENTRIES] +
         n % CHUNK_ENTRIES * sched_entry_bytes(s);
}

void sched_memory_free(struct sched *s) {
  u64map_free(&s->pages);
  for (size_t p = 0; p < s->n_pages; p++) {
    budget_give(page_bytes(s, s->page_base[p].shift));
    free(s->page_base[p].base);
  }
  free(s->page_base);
  u64map_free(&s->overflow);
  for (size_t c = 0; c < n_chunks(s); c++) {
    budget_give(chunk_bytes(s));
    free(s->chunks[c]);
  }
  free(s->chunks);
}

void sched_forget_memory(struct sched *s) {
  sched_memory_free(s);
  u64map_init(&s->pages);
  u64map_init(&s->overflow);
  s->page_base = NULL;
  s->n_pages = s->page_cap = 0;
  s->chunks = NULL;
  s->n_overflow = s->chunk_cap = 0;
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

/* Fills the wide copy `to` of the narrow block `from` of `bytes` bytes, and
 * points the stores into it (st, sorted by address) at their new places. */
static void widen_block(struct sched *s, uint64_t *to,
                        const unsigned char *from, size_t bytes,
                        const struct moved *st, size_t n_st) {
  const uint32_t *w = (const uint32_t *)from;
  for (size_t i = 0; i < bytes / 4; i++)
    to[i] = w[i];
  size_t lo = 0, hi = n_st; /* the first store at or above from */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (st[mid].at < (uintptr_t)from)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < n_st && st[lo].at < (uintptr_t)from + bytes; lo++)
    s->stores[st[lo].i] =
        (unsigned char *)to + 2 * (st[lo].at - (uintptr_t)from);
}

/* The narrow blocks (pages, then chunks) and their sizes, in one list. */
static size_t narrow_blocks(struct sched *s, unsigned char ***block,
                            size_t *bytes) {
  size_t n = 0;
  for (size_t p = 0; p < s->n_pages; p++) {
    block[n] = &s->page_base[p].base;
    bytes[n++] = page_bytes(s, s->page_base[p].shift);
  }
  for (size_t c = 0; c < n_chunks(s); c++) {
    block[n] = &s->chunks[c];
    bytes[n++] = chunk_bytes(s);
  }
  return n;
}

/* Every block is allocated wide before any is replaced, so a shortage
 * leaves the narrow state whole to be forgotten. */
void sched_widen(struct sched *s) {
  size_t n = s->n_pages + n_chunks(s), total = 0, k = 0;
  unsigned char ***block = malloc((n ? n : 1) * sizeof *block);
  size_t *bytes = malloc((n ? n : 1) * sizeof *bytes);
  uint64_t **wide = calloc(n ? n : 1, sizeof *wide);
  struct moved *st = malloc((s->n_stores ? s->n_stores : 1) * sizeof *st);
  if (block && bytes && wide && st) {
    narrow_blocks(s, block, bytes);
    for (; k < n && (wide[k] = malloc(2 * bytes[k])); k++)
      total += bytes[k];
  }
  if (k == n && st) {
    for (size_t i = 0; i < s->n_stores; i++)
      st[i] = (struct moved){(uintptr_t)s->stores[i], i};
    qsort(st, s->n_stores, sizeof *st, by_address);
    for (size_t b = 0; b < n; b++) {
      widen_block(s, wide[b], *block[b], bytes[b], st, s->n_stores);
      free(*block[b]);
      *block[b] = (unsigned char *)wide[b];
    }
    budget_charge(BUDGET_SCHED, total);
    memset(s->page_cache, 0, sizeof s->page_cache);
  } else { /* no memory: forget the state, and say the results are not exact */
    for (size_t b = 0; b < k; b++)
      free(wide[b]);
    sched_forget_memory(s);
    s->untracked++;
  }
  s->wide = 1;
  free(block);
  free(bytes);
  free(wide);
  free(st);
}
