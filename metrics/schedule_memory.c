/* schedule_memory.c: the schedules' memory-dependency state (shadow pages
 * of entries by exact start address, overflow chunks for the addresses that
 * share an entry) and the process-wide budget all schedulers draw it from.
 * The page-cache hit is inline in schedule_internal.h; this is the rest. */
#include "schedule_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ENTRIES 1024

/* Memory-dependency state held by every scheduler of the process. */
static _Atomic uint64_t memory_bytes;

/* Takes `bytes` from the process's budget; 0 when it is spent. */
static int budget_take(const struct sched *s, uint64_t bytes) {
  uint64_t limit = s->cfg.max_memory_bytes;
  if (!limit) {
    atomic_fetch_add_explicit(&memory_bytes, bytes, memory_order_relaxed);
    return 1;
  }
  uint64_t used = atomic_load_explicit(&memory_bytes, memory_order_relaxed);
  do {
    if (used + bytes > limit)
      return 0;
  } while (!atomic_compare_exchange_weak_explicit(
      &memory_bytes, &used, used + bytes, memory_order_relaxed,
      memory_order_relaxed));
  return 1;
}

static void budget_give(uint64_t bytes) {
  atomic_fetch_sub_explicit(&memory_bytes, bytes, memory_order_relaxed);
}

/* Zeroed memory taken from the budget; NULL when either is short. */
static uint64_t *budget_calloc(const struct sched *s, size_t bytes) {
  if (!budget_take(s, bytes))
    return NULL;
  uint64_t *p = calloc(bytes, 1);
  if (!p)
    budget_give(bytes);
  return p;
}

static size_t page_bytes(const struct sched *s, unsigned shift) {
  return ((size_t)1 << (PAGE_SHIFT - shift)) * s->entry_words * 8;
}

static size_t chunk_bytes(const struct sched *s) {
  return (size_t)CHUNK_ENTRIES * s->entry_words * 8;
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
uint64_t *sched_overflow_entry(struct sched *s, uint64_t addr) {
  uint64_t *v = u64map_slot(&s->overflow, addr);
  if (!v)
    return NULL;
  if (!*v) {
    size_t n = s->n_overflow, c = n / CHUNK_ENTRIES;
    if (n % CHUNK_ENTRIES == 0) {
      uint64_t **ch = sched_grow(s->chunks, &s->chunk_cap, c + 1, sizeof *ch);
      if (!ch)
        return NULL;
      s->chunks = ch;
      if (!(ch[c] = budget_calloc(s, chunk_bytes(s))))
        return NULL;
    }
    *v = ++s->n_overflow;
  }
  size_t n = *v - 1;
  uint64_t *e =
      s->chunks[n / CHUNK_ENTRIES] + n % CHUNK_ENTRIES * s->entry_words;
  e[0] = addr;
  return e;
}

void sched_memory_free(struct sched *s) {
  u64map_free(&s->pages);
  for (size_t p = 0; p < s->n_pages; p++) {
    budget_give(page_bytes(s, s->page_base[p].shift));
    free(s->page_base[p].base);
  }
  free(s->page_base);
  u64map_free(&s->overflow);
  for (size_t c = 0; c * CHUNK_ENTRIES < s->n_overflow; c++) {
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
