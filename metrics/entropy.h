/* entropy.h: memory entropy (docs/metrics.md "Memory entropy"): the Shannon
 * entropy of the access start addresses with k low bits cut, H_k for
 * k = 0..K, from one exact count per distinct start address.  Recent
 * counts are in hash tables; when they have as many addresses as a quarter
 * of the older ones (and at least spill_at) they spill into a run: every
 * address counted so far in increasing order with its count, coded in a
 * few bytes each.  A scope that comes back to the addresses it counted
 * has the run moved back into its tables instead (entropy.c). */
#ifndef PISA_METRICS_ENTROPY_H
#define PISA_METRICS_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#include "bucket_table.h"

struct json_object;

/* The largest K: H_k is defined for k = 0..63. */
#define ENTROPY_MAX_SHIFT 63

/* Part of a run, allocated with pisa_table_map: entries end-to-end in
 * bytes[0, len), each the address less the previous entry's (the run's
 * first: less 0) and the count, as LEB128 numbers. */
struct entropy_chunk {
  struct entropy_chunk *next;
  size_t len, cap; /* bytes used and held after the header */
  uint8_t bytes[];
};

/* Distinct start addresses in increasing order with their counts (>= 1). */
struct entropy_run {
  struct entropy_chunk *first, *last;
  size_t n;     /* addresses */
  size_t bytes; /* held by the chunks, headers included */
};

/* The counts of the addresses of one 4 GiB region (`high`, their top 32
 * bits): 64-byte buckets of eight slots of the address's low 32 bits and
 * its count, a slot free while its count is 0 (8 to 15 bytes an address,
 * where 64-bit keys take 16 to 24). */
#define ENTROPY_SLOTS 8
struct entropy_bucket {
  uint32_t key[ENTROPY_SLOTS];
  uint32_t count[ENTROPY_SLOTS];
};
struct entropy_table {
  struct entropy_bucket *buckets;
  size_t nbuckets, used, limit;
};

/* Regions with a table of their own; the addresses of any further ones
 * are counted in `counts`. */
#define ENTROPY_REGIONS 4

/* The 8-byte-aligned start addresses of one span of a region, counted in
 * place: made when a run moves into the tables (a scope sweeping its
 * arrays again) and the run's aligned addresses in the region are dense
 * enough (4 bytes an address where the region's table takes 10 to 11). */
struct entropy_direct {
  uint32_t *counts; /* one per word of [lo, lo + 8 n), 0 for none */
  uint64_t lo;
  size_t n, used; /* words; words with a count */
};

/* A start address's count is its count in `run`, plus its count c in the
 * table of its region (or in `counts`), 1 <= c < 2^32, plus
 * (2^32 - 1) times its value in `carries`, where table counts that pass
 * 2^32 - 1 carry, plus its count in its region's direct span (a count
 * that would pass 2^32 - 1 there goes to the table instead). */
struct entropy_counts {
  struct entropy_table near[ENTROPY_REGIONS];
  struct entropy_direct direct[ENTROPY_REGIONS];
  uint32_t high[ENTROPY_REGIONS];
  unsigned n_regions;
  struct bucket_table counts; /* other regions' addresses -> counts */
  struct u64map carries;      /* start address -> carries of its count */
  struct entropy_run run;     /* the counts spilled from the tables */
  size_t spill_at;            /* the tables spill from this many addresses on */
  size_t absorbed;            /* addresses the tables took from the run */
  uint64_t accesses;          /* N: the sum of the counts */
  int out_of_memory; /* some accesses were dropped: counts are partial */
};

/* spill_at after entropy_init: a table of 2^16 addresses is about 1.5 MB,
 * which stays in the last-level cache. */
#define ENTROPY_SPILL_AT ((size_t)1 << 16)

void entropy_init(struct entropy_counts *e);
void entropy_free(struct entropy_counts *e);

/* Counts one access at each of addrs[0..n-1] (start addresses).  The map's
 * slots are prefetched a few accesses ahead, so a batch of accesses to a
 * large, cold table overlaps its cache misses. */
void entropy_add_batch(struct entropy_counts *e, const uint64_t *addrs,
                       size_t n);

/* Adds n accesses to addr's count (n = 0 adds nothing, not even the
 * address); -1 when memory ran out (out_of_memory is then set). */
int entropy_add(struct entropy_counts *e, uint64_t addr, uint64_t n);

/* An address and its count. */
struct entropy_pair {
  uint64_t addr;
  uint64_t count;
};

/* e's (address, count) pairs in increasing address order (a radix sort),
 * malloc'd; *n their number; NULL when out of memory. */
struct entropy_pair *entropy_sorted_pairs(const struct entropy_counts *e,
                                          size_t *n);

/* dst counts every access of src as well (the counts add): src's
 * addresses are added to dst's table, or when src has a quarter as many
 * as dst or more, the two are merged into a new run. */
void entropy_merge(struct entropy_counts *dst,
                   const struct entropy_counts *src);

/* h[k] = H_k in bits for k = 0..max_shift (max_shift <= ENTROPY_MAX_SHIFT):
 * the entropy of the distribution of addr >> k over all accesses; 0 when
 * there are none.  One pass over the addresses in increasing order (the
 * run, and the table's addresses sorted beside it) computes every k.
 * Returns 0, or -1 when out of memory (h is then all zero). */
int entropy_compute(const struct entropy_counts *e, unsigned max_shift,
                    double *h);

/* The `memory_entropy` array [H_0, ..., H_max_shift]; NULL when out of
 * memory or max_shift > ENTROPY_MAX_SHIFT. */
struct json_object *entropy_to_json(const struct entropy_counts *e,
                                    unsigned max_shift);

/* Moves every count into the run and gives the tables' and the direct
 * spans' memory back (the counts are the same; later additions start new
 * tables): for counts that are only read from now on, such as a finished
 * run's before its result is built.  0, or -1 when out of memory (e is
 * then unchanged). */
int entropy_compact(struct entropy_counts *e);

/* Keeps only the counts of the start addresses `keep` accepts (the memory
 * budget's sampling), in a new run (a table rebuilt to fit when they are
 * fewer than spill_at); N becomes their sum.  0, or -1 when memory ran out
 * (e is then unchanged). */
int entropy_keep(struct entropy_counts *e,
                 int (*keep)(const void *ctx, uint64_t addr), const void *ctx);

/* The part (0..n-1) an address belongs to, n or more for none. */
typedef size_t entropy_part_fn(const void *ctx, uint64_t addr);

/* Splits e's counts among parts[0..n-1] (initialised by the caller, their
 * counts kept): each address's count less its count in `less` (NULL: 0)
 * is added to parts[part(ctx, addr)], or to none.  The parts' H_k are then
 * those of the partition of e's accesses (the data objects of an access
 * stream, say) less the ones counted apart in `less`.  0, or -1 when
 * memory ran out (some counts were dropped; out_of_memory set in that
 * part). */
int entropy_split(const struct entropy_counts *e,
                  const struct entropy_counts *less, entropy_part_fn *part,
                  const void *ctx, struct entropy_counts *parts, size_t n);

/* Distinct start addresses counted (when the table and the run hold some
 * of the same and memory runs out to tell, an upper bound). */
size_t entropy_distinct_addresses(const struct entropy_counts *e);

/* Bytes of memory held by e, the struct included. */
size_t entropy_memory_bytes(const struct entropy_counts *e);

#endif /* PISA_METRICS_ENTROPY_H */
