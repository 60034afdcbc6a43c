/* objmap.c: the live objects' address ranges (objmap.h).  A sorted array:
 * a lookup is a binary search, an insertion or removal moves the ranges
 * after it (programs allocate far less often than they access memory). */
#include "objmap.h"

#include <stdlib.h>
#include <string.h>

void objmap_init(struct objmap *m) { memset(m, 0, sizeof *m); }

void objmap_free(struct objmap *m) {
  free(m->ranges);
  objmap_init(m);
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

int objmap_insert(struct objmap *m, uint64_t base, uint64_t size,
                  uint32_t object, objmap_ended *ended, void *ctx) {
  uint64_t end = base + (size ? size : 1);
  if (end < base) /* wraps: up to the top of the address space */
    end = UINT64_MAX;
  if (m->n == m->capacity) {
    size_t cap = m->capacity ? 2 * m->capacity : 64;
    struct objmap_range *r = realloc(m->ranges, cap * sizeof *r);
    if (!r)
      return -1;
    m->ranges = r;
    m->capacity = cap;
  }
  size_t first = first_ending_after(m, base), last = first;
  for (; last < m->n && m->ranges[last].base < end; last++)
    if (ended)
      ended(ctx, &m->ranges[last]);
  /* ranges [first, last) overlap the new one and go; it takes their place */
  memmove(&m->ranges[first + 1], &m->ranges[last],
          (m->n - last) * sizeof *m->ranges);
  m->ranges[first] = (struct objmap_range){base, end, object};
  m->n = m->n - (last - first) + 1;
  return 0;
}

int objmap_remove(struct objmap *m, uint64_t base,
                  struct objmap_range *removed) {
  size_t i = first_ending_after(m, base);
  if (i == m->n || m->ranges[i].base != base)
    return -1;
  *removed = m->ranges[i];
  memmove(&m->ranges[i], &m->ranges[i + 1], (m->n - i - 1) * sizeof *m->ranges);
  m->n--;
  return 0;
}

struct objmap_range objmap_lookup(const struct objmap *m, uint64_t addr) {
  size_t i = first_ending_after(m, addr);
  if (i < m->n && m->ranges[i].base <= addr)
    return m->ranges[i];
  struct objmap_range gap = {0, UINT64_MAX, OBJMAP_NONE};
  if (i > 0)
    gap.base = m->ranges[i - 1].end;
  if (i < m->n)
    gap.end = m->ranges[i].base;
  return gap;
}
