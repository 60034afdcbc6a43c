/* footprint.h: exact memory footprint (docs/metrics.md "Memory footprint"): the
 * distinct bytes touched and the distinct blocks at any power-of-two line
 * size, from one bit per byte kept per touched 4 KiB page. */
#ifndef PISA_METRICS_FOOTPRINT_H
#define PISA_METRICS_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct json_object;

#define FOOTPRINT_LINE_SHIFT 6  /* a 64-byte line: one 64-bit mask */
#define FOOTPRINT_PAGE_SHIFT 12 /* a 4 KiB page: 64 line masks */
#define FOOTPRINT_PAGE_LINES 64
/* Pages remembered by the fast path: a direct-mapped cache indexed by the
 * xor of the page number's low bytes, so consecutive pages rarely collide,
 * nor do streams whose distance is a multiple of a large power of two. */
#ifndef FOOTPRINT_CACHE_BITS
#define FOOTPRINT_CACHE_BITS 8
#endif
#define FOOTPRINT_CACHE (1 << FOOTPRINT_CACHE_BITS)

struct footprint_slab;

/* Each touched page owns 64 masks (bit i of mask j: byte 64 j + i of the
 * page was touched), allocated in slabs that never move, so pointers to
 * them stay valid while the page table grows. */
struct footprint {
  struct u64map pages; /* addr >> 12 -> (uintptr_t) the page's 64 masks */
  /* Recently used pages and their masks; page UINT64_MAX (no addr >> 12
   * equals it) marks an empty entry.  Masks never move, so entries never
   * go stale. */
  struct footprint_cached_page {
    uint64_t page;
    uint64_t *lines;
  } cache[FOOTPRINT_CACHE];
  struct footprint_slab *slabs; /* newest first */
  size_t slab_free;             /* unused pages in the newest slab */
  size_t slab_bytes;            /* bytes of all slabs */
  int out_of_memory; /* some accesses were lost: counts are lower bounds */
};

void footprint_init(struct footprint *f);
void footprint_free(struct footprint *f);

/* Every access that is not within one line of a cached page. */
void footprint_add_slow(struct footprint *f, uint64_t addr, uint64_t size);

static inline unsigned footprint_cache_index(uint64_t page) {
  return (unsigned)((page ^ (page >> 8) ^ (page >> 16) ^ (page >> 24)) &
                    (FOOTPRINT_CACHE - 1));
}

/* Records the bytes [addr, addr + size); size 0 records nothing. */
static inline void footprint_add(struct footprint *f, uint64_t addr,
                                 uint64_t size) {
  uint64_t offset = addr & 63, page = addr >> FOOTPRINT_PAGE_SHIFT;
  const struct footprint_cached_page *c =
      &f->cache[footprint_cache_index(page)];
  /* size in [1, 64 - offset]: the access stays in one line */
  if (__builtin_expect(size - 1 < 64 - offset && c->page == page, 1)) {
    c->lines[(addr >> FOOTPRINT_LINE_SHIFT) & 63] |=
        (~UINT64_C(0) >> (64 - size)) << offset;
    return;
  }
  footprint_add_slow(f, addr, size);
}

/* dst becomes the union of dst and src. */
void footprint_merge(struct footprint *dst, const struct footprint *src);

/* Keeps only the bytes whose 64-byte line `keep` accepts (the memory
 * budget's sampling: a sampled unit of at least a line keeps its whole
 * history); the page table and masks are rebuilt to fit.  0, or -1 when
 * memory ran out (f is then unchanged). */
int footprint_keep(struct footprint *f,
                   int (*keep)(const void *ctx, uint64_t addr),
                   const void *ctx);

/* Distinct bytes touched. */
uint64_t footprint_bytes(const struct footprint *f);

/* Distinct blocks of line_bytes bytes (a power of two, 1 to 2^63) that
 * hold at least one touched byte; 0 when line_bytes is not a power of two. */
uint64_t footprint_blocks(const struct footprint *f, uint64_t line_bytes);

/* Sharing between n footprints (threads): a block of line_bytes is shared
 * when two or more footprints touched at least one byte of it, not
 * necessarily the same byte (so false sharing counts at line sizes above
 * 1).  footprint_shared_bytes is the line size 1 case: bytes touched by two
 * or more footprints. */
uint64_t footprint_shared_blocks(const struct footprint *const *fps, size_t n,
                                 uint64_t line_bytes);
uint64_t footprint_shared_bytes(const struct footprint *const *fps, size_t n);

/* Bytes of memory held by f (page table and masks). */
size_t footprint_memory(const struct footprint *f);

/* {"bytes": n, "blocks": {"8": n, ...}} for the n line sizes given, plus
 * "approximate": true when memory ran out during the run.  NULL when out of
 * memory. */
struct json_object *footprint_to_json(const struct footprint *f,
                                      const uint64_t *line_sizes, size_t n);

/* The same shape for the sharing between nfps footprints. */
struct json_object *footprint_shared_to_json(const struct footprint *const *fps,
                                             size_t nfps,
                                             const uint64_t *line_sizes,
                                             size_t n);

#endif /* PISA_METRICS_FOOTPRINT_H */
