/* objmap.c: the live objects' address ranges (objmap.h).  A sorted array:
 * a lookup is a binary search.  A removal leaves a dead range (a gap piece)
 * in place, and the array is compacted when half of it is dead; a new
 * range takes the place of a dead neighbour when it can, else the ranges
 * after it move.  Programs that free in any order and reuse the memory
 * they freed then pay no move of the array per call. */
#include "objmap.h"

#include <stdlib.h>
#include <string.h>

void objmap_init(struct objmap *m) { memset(m, 0, sizeof *m); }

void objmap_free(struct objmap *m) {
  free(m->ranges);
  objmap_init(m);
}

static int dead(const struct objmap_range *r) {
  return r->object == OBJMAP_NONE;
}

/* The index of the first range that ends after addr (n when none does). */
static size_t first_ending_after(const struct objmap *m, uint64_t addr) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->ranges[mid].end <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Drops the dead ranges. */
static void compact(struct objmap *m) {
  size_t kept = 0;
  for (size_t i = 0; i < m->n; i++)
    if (!dead(&m->ranges[i]))
      m->ranges[kept++] = m->ranges[i];
  m->n = kept;
  m->n_dead = 0;
}

static int make_room(struct objmap *m) {
  if (m->n < m->capacity)
    return 0;
  size_t cap = m->capacity ? 2 * m->capacity : 64;
  struct objmap_range *r = realloc(m->ranges, cap * sizeof *r);
  if (!r)
    return -1;
  m->ranges = r;
  m->capacity = cap;
  return 0;
}

/* Puts r, which overlaps no range, in order before ranges[at]: into a dead
 * neighbour's place when there is one (the order holds: ranges[at - 1]
 * ends before r starts and ranges[at] starts after it ends). */
static void place(struct objmap *m, size_t at, struct objmap_range r) {
  size_t slot = SIZE_MAX;
  if (at < m->n && dead(&m->ranges[at]))
    slot = at;
  else if (at > 0 && dead(&m->ranges[at - 1]))
    slot = at - 1;
  if (slot != SIZE_MAX) {
    m->ranges[slot] = r;
    m->n_dead--;
    return;
  }
  memmove(&m->ranges[at + 1], &m->ranges[at], (m->n - at) * sizeof *m->ranges);
  m->ranges[at] = r;
  m->n++;
}

int objmap_insert(struct objmap *m, uint64_t base, uint64_t size,
                  uint32_t object, objmap_ended *ended, void *ctx) {
  uint64_t end = base + (size ? size : 1);
  if (end < base) /* wraps: up to the top of the address space */
    end = UINT64_MAX;
  if (make_room(m))
    return -1;
  size_t first = first_ending_after(m, base), last = first;
  for (; last < m->n && m->ranges[last].base < end; last++) {
    if (dead(&m->ranges[last]))
      m->n_dead--;
    else if (ended)
      ended(ctx, &m->ranges[last]);
  }
  /* ranges [first, last) overlap the new one and go */
  memmove(&m->ranges[first], &m->ranges[last],
          (m->n - last) * sizeof *m->ranges);
  m->n -= last - first;
  place(m, first, (struct objmap_range){base, end, object});
  return 0;
}

int objmap_remove(struct objmap *m, uint64_t base,
                  struct objmap_range *removed) {
  size_t i = first_ending_after(m, base);
  if (i == m->n || m->ranges[i].base != base || dead(&m->ranges[i]))
    return -1;
  *removed = m->ranges[i];
  m->ranges[i].object = OBJMAP_NONE;
  if (++m->n_dead > m->n / 2)
    compact(m);
  return 0;
}

struct objmap_range objmap_lookup(const struct objmap *m, uint64_t addr) {
  size_t i = first_ending_after(m, addr);
  if (i < m->n && m->ranges[i].base <= addr)
    return m->ranges[i]; /* a dead one is a piece of a gap */
  struct objmap_range gap = {0, UINT64_MAX, OBJMAP_NONE};
  if (i > 0)
    gap.base = m->ranges[i - 1].end;
  if (i < m->n)
    gap.end = m->ranges[i].base;
  return gap;
}

size_t objmap_live(const struct objmap *m) { return m->n - m->n_dead; }
