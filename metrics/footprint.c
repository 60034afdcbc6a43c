/* footprint.c: the exact footprint of footprint.h.  Per access: one mask OR
 * when the page is in the direct-mapped cache (the inline fast path), else a
 * page-table lookup; block counts at every line size are derived from the
 * masks when the run ends. */
#include "footprint.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_BYTES (UINT64_C(1) << FOOTPRINT_PAGE_SHIFT)
#define SLAB_MIN_PAGES 4
/* The largest slab fills one 2 MiB huge page, header included. */
#define SLAB_MAX_PAGES                                                         \
  (((2u << 20) - sizeof(struct footprint_slab)) / sizeof(uint64_t[64]))

/* Pages' masks, 64-byte aligned so a page spans exactly 8 cache lines. */
struct footprint_slab {
  struct footprint_slab *next;
  size_t pages;
  _Alignas(64) uint64_t lines[][FOOTPRINT_PAGE_LINES];
};

void footprint_init(struct footprint *f) {
  memset(f, 0, sizeof(*f));
  u64map_init(&f->pages);
  for (int i = 0; i < FOOTPRINT_CACHE; i++)
    f->cache[i].page = UINT64_MAX;
}

static size_t slab_size(size_t pages) {
  return sizeof(struct footprint_slab) + pages * sizeof(uint64_t[64]);
}

void footprint_free(struct footprint *f) {
  while (f->slabs) {
    struct footprint_slab *next = f->slabs->next;
    pisa_table_free(f->slabs, slab_size(f->slabs->pages));
    f->slabs = next;
  }
  u64map_free(&f->pages);
  footprint_init(f);
}

/* Zeroed masks for a new page, from the newest slab or a new one twice its
 * size up to a huge page (small footprints stay small, large ones allocate
 * rarely and fault once per 2 MiB). */
static uint64_t *page_alloc(struct footprint *f) {
  if (f->slab_free == 0) {
    size_t pages = f->slabs ? 2 * f->slabs->pages : SLAB_MIN_PAGES;
    if (pages >= SLAB_MAX_PAGES / 2)
      pages = SLAB_MAX_PAGES;
    size_t bytes = slab_size(pages);
    struct footprint_slab *slab = pisa_table_alloc(bytes);
    if (!slab)
      return NULL;
    slab->next = f->slabs;
    slab->pages = pages;
    f->slabs = slab;
    f->slab_free = pages;
    f->slab_bytes += bytes;
  }
  return f->slabs->lines[f->slabs->pages - f->slab_free--];
}

/* The masks of page, created when new; NULL when out of memory.  A page
 * whose masks could not be allocated stays in the table with value 0. */
static uint64_t *footprint_page(struct footprint *f, uint64_t page) {
  struct footprint_cached_page *c = &f->cache[footprint_cache_index(page)];
  if (c->page == page)
    return c->lines;
  uint64_t *value = u64map_slot(&f->pages, page);
  if (!value)
    return NULL;
  if (*value == 0) {
    uint64_t *lines = page_alloc(f);
    if (!lines)
      return NULL;
    *value = (uintptr_t)lines;
  }
  c->page = page;
  c->lines = (uint64_t *)(uintptr_t)*value;
  return c->lines;
}

/* Walks the pages that have masks, in unspecified order. */
static int next_page(const struct footprint *f, size_t *iter, uint64_t *page,
                     const uint64_t **lines) {
  uint64_t value;
  while (u64map_next(&f->pages, iter, page, &value))
    if (value) {
      *lines = (const uint64_t *)(uintptr_t)value;
      return 1;
    }
  return 0;
}

/* Whether line l of page holds touched bytes that keep accepts. */
static int line_kept(const uint64_t *lines, uint64_t page, unsigned l,
                     int (*keep)(const void *, uint64_t), const void *ctx) {
  return lines[l] &&
         keep(ctx, page << FOOTPRINT_PAGE_SHIFT | l << FOOTPRINT_LINE_SHIFT);
}

int footprint_keep(struct footprint *f,
                   int (*keep)(const void *ctx, uint64_t addr),
                   const void *ctx) {
  struct footprint kept;
  size_t iter = 0, n = 0;
  uint64_t page;
  const uint64_t *lines;
  footprint_init(&kept);
  while (next_page(f, &iter, &page, &lines))
    for (unsigned l = 0; l < FOOTPRINT_PAGE_LINES; l++)
      if (line_kept(lines, page, l, keep, ctx)) {
        n++;
        break;
      }
  /* room first: pages come out in hash order (see entropy_keep) */
  if (n && u64map_reserve(&kept.pages, n)) {
    footprint_free(&kept);
    return -1;
  }
  iter = 0;
  while (next_page(f, &iter, &page, &lines)) {
    uint64_t *to = NULL;
    for (unsigned l = 0; l < FOOTPRINT_PAGE_LINES; l++) {
      if (!line_kept(lines, page, l, keep, ctx))
        continue;
      if (!to && !(to = footprint_page(&kept, page))) {
        footprint_free(&kept);
        return -1;
      }
      to[l] = lines[l];
    }
  }
  kept.out_of_memory = f->out_of_memory;
  footprint_free(f);
  *f = kept; /* its cached masks live in its slabs, which do not move */
  return 0;
}

/* Mask of bytes [first, last] of a line, 0 <= first <= last <= 63. */
static inline uint64_t byte_range_mask(unsigned first, unsigned last) {
  return (~UINT64_C(0) << first) & (~UINT64_C(0) >> (63 - last));
}

/* Marks bytes [first, last] of a page, 0 <= first <= last < 4096. */
static void mark_page(uint64_t *lines, unsigned first, unsigned last) {
  unsigned first_line = first >> 6, last_line = last >> 6;
  if (first_line == last_line) {
    lines[first_line] |= byte_range_mask(first & 63, last & 63);
    return;
  }
  lines[first_line] |= byte_range_mask(first & 63, 63);
  for (unsigned l = first_line + 1; l < last_line; l++)
    lines[l] = ~UINT64_C(0);
  lines[last_line] |= byte_range_mask(0, last & 63);
}

void footprint_add_slow(struct footprint *f, uint64_t addr, uint64_t size) {
  if (size == 0)
    return;
  uint64_t last = addr + (size - 1);
  if (last < addr) /* wraps past the top of the address space */
    last = UINT64_MAX;
  uint64_t page = addr >> FOOTPRINT_PAGE_SHIFT;
  uint64_t end_page = last >> FOOTPRINT_PAGE_SHIFT;
  unsigned first = (unsigned)(addr & (PAGE_BYTES - 1));
  for (;; page++, first = 0) {
    uint64_t *lines = footprint_page(f, page);
    if (!lines) {
      f->out_of_memory = 1;
      return;
    }
    if (page == end_page) {
      mark_page(lines, first, (unsigned)(last & (PAGE_BYTES - 1)));
      return;
    }
    mark_page(lines, first, (unsigned)PAGE_BYTES - 1);
  }
}

void footprint_merge(struct footprint *dst, const struct footprint *src) {
  size_t iter = 0;
  uint64_t page;
  const uint64_t *lines;
  dst->out_of_memory |= src->out_of_memory;
  while (next_page(src, &iter, &page, &lines)) {
    uint64_t *into = footprint_page(dst, page);
    if (!into) {
      dst->out_of_memory = 1;
      return;
    }
    for (int l = 0; l < FOOTPRINT_PAGE_LINES; l++)
      into[l] |= lines[l];
  }
}

uint64_t footprint_bytes(const struct footprint *f) {
  return footprint_blocks(f, 1);
}

size_t footprint_memory(const struct footprint *f) {
  return u64map_bytes(&f->pages) + f->slab_bytes;
}

/* ---- Blocks at any line size ------------------------------------------ */

static int is_power_of_two(uint64_t x) { return x && !(x & (x - 1)); }

/* log2 of a power of two */
static unsigned log2_exact(uint64_t x) { return (unsigned)__builtin_ctzll(x); }

/* Folds a mask to one bit per group of `group` bits (a power of two up to
 * 64): the lowest bit of a group is set when any bit of the group is. */
static inline uint64_t fold_mask(uint64_t mask, uint64_t group) {
  for (uint64_t shift = 1; shift < group; shift <<= 1)
    mask |= mask >> shift;
  uint64_t lowest_bits =
      group == 64 ? 1 : ~UINT64_C(0) / ((UINT64_C(1) << group) - 1);
  return mask & lowest_bits;
}

/* The blocks of line_bytes <= 4096 touched in one page, as bit sets: for
 * line sizes below 64, out[l] holds line l's blocks (64 words); from 64 up,
 * out[0] holds the page's blocks (1 word).  Returns the number of words. */
static int page_blocks(const uint64_t *lines, uint64_t line_bytes,
                       uint64_t *out) {
  if (line_bytes < 64) {
    for (int l = 0; l < FOOTPRINT_PAGE_LINES; l++)
      out[l] = fold_mask(lines[l], line_bytes);
    return FOOTPRINT_PAGE_LINES;
  }
  uint64_t touched_lines = 0;
  for (int l = 0; l < FOOTPRINT_PAGE_LINES; l++)
    touched_lines |= (uint64_t)(lines[l] != 0) << l;
  out[0] = fold_mask(touched_lines, line_bytes >> FOOTPRINT_LINE_SHIFT);
  return 1;
}

static uint64_t popcount_words(const uint64_t *words, int n) {
  uint64_t count = 0;
  for (int i = 0; i < n; i++)
    count += (uint64_t)__builtin_popcountll(words[i]);
  return count;
}

/* Adds the blocks touched in one page at each line size up to a page. */
static void count_page_blocks(const uint64_t *lines, const uint64_t *sizes,
                              size_t n, uint64_t *out) {
  uint64_t words[FOOTPRINT_PAGE_LINES];
  for (size_t i = 0; i < n; i++)
    if (is_power_of_two(sizes[i]) && sizes[i] <= PAGE_BYTES)
      out[i] += popcount_words(words, page_blocks(lines, sizes[i], words));
}

/* Blocks at line sizes up to a page: a sequential walk over the slabs,
 * which hold every touched page's masks exactly once. */
static void blocks_within_pages(const struct footprint *f,
                                const uint64_t *sizes, size_t n,
                                uint64_t *out) {
  for (const struct footprint_slab *slab = f->slabs; slab; slab = slab->next) {
    size_t used = slab->pages - (slab == f->slabs ? f->slab_free : 0);
    for (size_t p = 0; p < used; p++)
      count_page_blocks(slab->lines[p], sizes, n, out);
  }
}

/* LSD radix sort by bytes, skipping bytes that are equal in every key
 * (the high bytes of page numbers mostly are). */
static void radix_sort(uint64_t *keys, uint64_t *tmp, size_t n) {
  uint64_t varying = 0;
  for (size_t i = 1; i < n; i++)
    varying |= keys[i] ^ keys[0];
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xff) == 0)
      continue;
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((keys[i] >> shift) & 0xff) + 1]++;
    for (unsigned d = 1; d <= 256; d++)
      count[d] += count[d - 1];
    for (size_t i = 0; i < n; i++)
      tmp[count[(keys[i] >> shift) & 0xff]++] = keys[i];
    memcpy(keys, tmp, n * sizeof(*keys));
  }
}

/* The page numbers of f in increasing order (malloc'd); NULL when out of
 * memory or empty, with *n = 0. */
static uint64_t *sorted_pages(const struct footprint *f, size_t *n) {
  size_t count = u64map_count(&f->pages), iter = 0;
  uint64_t *keys = malloc((count ? count : 1) * sizeof(*keys));
  uint64_t *tmp = malloc((count ? count : 1) * sizeof(*tmp));
  uint64_t page;
  const uint64_t *lines;
  *n = 0;
  if (keys && tmp) {
    while (next_page(f, &iter, &page, &lines))
      keys[(*n)++] = page;
    radix_sort(keys, tmp, *n);
  }
  free(tmp);
  if (*n == 0) {
    free(keys);
    return NULL;
  }
  return keys;
}

/* Distinct values of keys[i] >> shift in a sorted array. */
static uint64_t distinct_shifted(const uint64_t *keys, size_t n,
                                 unsigned shift) {
  uint64_t distinct = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || keys[i] >> shift != keys[i - 1] >> shift)
      distinct++;
  return distinct;
}

/* Blocks at n line sizes into out[]: one walk over the masks for the
 * sizes up to a page, one sort of the page numbers for the larger ones. */
static void footprint_blocks_many(const struct footprint *f,
                                  const uint64_t *line_sizes, size_t n,
                                  uint64_t *out) {
  uint64_t *pages = NULL;
  size_t npages = 0;
  memset(out, 0, n * sizeof(*out));
  blocks_within_pages(f, line_sizes, n, out);
  for (size_t i = 0; i < n; i++) {
    uint64_t b = line_sizes[i];
    if (!is_power_of_two(b) || b <= PAGE_BYTES)
      continue;
    if (!pages)
      pages = sorted_pages(f, &npages);
    out[i] =
        distinct_shifted(pages, npages, log2_exact(b) - FOOTPRINT_PAGE_SHIFT);
  }
  free(pages);
}

uint64_t footprint_blocks(const struct footprint *f, uint64_t line_bytes) {
  uint64_t blocks;
  footprint_blocks_many(f, &line_bytes, 1, &blocks);
  return blocks;
}

/* ---- Sharing ---------------------------------------------------------- */

/* Line sizes up to a page: the blocks seen by some footprint so far and
 * those seen by two or more, kept per page in two scratch footprints
 * (pages are distinct within a footprint, so no footprint meets itself). */
static uint64_t shared_within_pages(const struct footprint *const *fps,
                                    size_t n, uint64_t line_bytes) {
  /* On the heap: the result may be built on a signal's small stack. */
  struct footprint *scratch = malloc(2 * sizeof *scratch);
  uint64_t words[FOOTPRINT_PAGE_LINES];
  if (!scratch)
    return 0;
  struct footprint *seen = &scratch[0], *shared = &scratch[1];
  footprint_init(seen);
  footprint_init(shared);
  for (size_t t = 0; t < n; t++) {
    size_t iter = 0;
    uint64_t page;
    const uint64_t *lines;
    while (next_page(fps[t], &iter, &page, &lines)) {
      int nwords = page_blocks(lines, line_bytes, words);
      uint64_t *before = footprint_page(seen, page), *both = NULL;
      for (int w = 0; before && w < nwords; w++) {
        uint64_t again = before[w] & words[w];
        before[w] |= words[w];
        if (again && (both || (both = footprint_page(shared, page))))
          both[w] |= again;
      }
    }
  }
  uint64_t count = footprint_blocks(shared, 1);
  footprint_free(seen);
  footprint_free(shared);
  free(scratch);
  return count;
}

#define SHARED_OWNER UINT64_MAX

/* Line sizes above a page: several pages of one footprint fall into one
 * block, so each block remembers its first footprint (index + 1) or
 * SHARED_OWNER once a second one touched it. */
static uint64_t shared_across_pages(const struct footprint *const *fps,
                                    size_t n, unsigned shift) {
  struct u64map owner;
  uint64_t count = 0;
  u64map_init(&owner);
  for (size_t t = 0; t < n; t++) {
    size_t iter = 0;
    uint64_t page;
    const uint64_t *lines;
    while (next_page(fps[t], &iter, &page, &lines)) {
      uint64_t *first = u64map_slot(&owner, page >> shift);
      if (!first)
        break;
      if (*first == 0) {
        *first = t + 1;
      } else if (*first != t + 1 && *first != SHARED_OWNER) {
        *first = SHARED_OWNER;
        count++;
      }
    }
  }
  u64map_free(&owner);
  return count;
}

uint64_t footprint_shared_blocks(const struct footprint *const *fps, size_t n,
                                 uint64_t line_bytes) {
  if (n < 2 || !is_power_of_two(line_bytes))
    return 0;
  if (line_bytes <= PAGE_BYTES)
    return shared_within_pages(fps, n, line_bytes);
  return shared_across_pages(fps, n,
                             log2_exact(line_bytes) - FOOTPRINT_PAGE_SHIFT);
}

uint64_t footprint_shared_bytes(const struct footprint *const *fps, size_t n) {
  return footprint_shared_blocks(fps, n, 1);
}

/* ---- JSON ------------------------------------------------------------- */

static struct json_object *footprint_json(uint64_t bytes,
                                          const uint64_t *line_sizes,
                                          const uint64_t *blocks, size_t n,
                                          int approximate) {
  struct json_object *obj = json_object_new_object();
  struct json_object *by_size = json_object_new_object();
  if (!obj || !by_size) {
    json_object_put(obj);
    json_object_put(by_size);
    return NULL;
  }
  json_object_object_add(obj, "bytes", json_object_new_int64((int64_t)bytes));
  for (size_t i = 0; i < n; i++) {
    char key[24];
    snprintf(key, sizeof(key), "%llu", (unsigned long long)line_sizes[i]);
    json_object_object_add(by_size, key,
                           json_object_new_int64((int64_t)blocks[i]));
  }
  json_object_object_add(obj, "blocks", by_size);
  if (approximate) { /* memory ran out: the counts are lower bounds */
    struct json_object *bound = json_object_new_object();
    json_object_object_add(bound, "lower_bound_bytes",
                           json_object_new_int64((int64_t)bytes));
    json_object_object_add(obj, "approximate", json_object_new_boolean(1));
    json_object_object_add(obj, "bound", bound);
  }
  return obj;
}

struct json_object *footprint_to_json(const struct footprint *f,
                                      const uint64_t *line_sizes, size_t n) {
  uint64_t *blocks = malloc((n ? n : 1) * sizeof(*blocks));
  if (!blocks)
    return NULL;
  footprint_blocks_many(f, line_sizes, n, blocks);
  struct json_object *obj = footprint_json(footprint_bytes(f), line_sizes,
                                           blocks, n, f->out_of_memory);
  free(blocks);
  return obj;
}

struct json_object *footprint_shared_to_json(const struct footprint *const *fps,
                                             size_t nfps,
                                             const uint64_t *line_sizes,
                                             size_t n) {
  uint64_t *blocks = malloc((n ? n : 1) * sizeof(*blocks));
  if (!blocks)
    return NULL;
  int approximate = 0;
  for (size_t t = 0; t < nfps; t++)
    approximate |= fps[t]->out_of_memory;
  for (size_t i = 0; i < n; i++)
    blocks[i] = footprint_shared_blocks(fps, nfps, line_sizes[i]);
  struct json_object *obj = footprint_json(footprint_shared_bytes(fps, nfps),
                                           line_sizes, blocks, n, approximate);
  free(blocks);
  return obj;
}
