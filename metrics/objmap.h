/* objmap.h: the address ranges of the live data objects, for finding the
 * object an address belongs to: disjoint ranges in a sorted array, found
 * by binary search; an address in no range finds a gap around it (not
 * always the largest), so a caller can cache gaps (accesses to no known
 * object) like ranges. */
#ifndef PISA_METRICS_OBJMAP_H
#define PISA_METRICS_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

/* The object id of a gap: an address in no range. */
#define OBJMAP_NONE UINT32_MAX

struct objmap_range {
  uint64_t base, end; /* [base, end) */
  uint32_t object;
};

struct objmap {
  struct objmap_range *ranges; /* sorted by base, disjoint */
  size_t n, capacity;
  size_t n_dead; /* removed ranges still in the array (object NONE) */
};

void objmap_init(struct objmap *m);
void objmap_free(struct objmap *m);

/* Called for each range a new one replaces. */
typedef void objmap_ended(void *ctx, const struct objmap_range *r);

/* Adds [base, base + size) (size 0 counts as 1) for object; the ranges it
 * overlaps end first (`ended`, when not NULL, sees each).  0, or -1 when
 * memory ran out (m is then unchanged). */
int objmap_insert(struct objmap *m, uint64_t base, uint64_t size,
                  uint32_t object, objmap_ended *ended, void *ctx);

/* Removes the range that starts at base into *removed: 0, or -1 when no
 * range starts there. */
int objmap_remove(struct objmap *m, uint64_t base,
                  struct objmap_range *removed);

/* The range that holds addr or, when none does, a gap that holds it and
 * no range (object OBJMAP_NONE); ranges end before UINT64_MAX, the one
 * address no range or gap holds. */
struct objmap_range objmap_lookup(const struct objmap *m, uint64_t addr);

/* The ranges in the map. */
size_t objmap_live(const struct objmap *m);

#endif /* PISA_METRICS_OBJMAP_H */
