/* locality.h: what docs/metrics.md derives from reuse distances: the histogram
 * per line size ("Reuse distance"), the spatial locality score of each pair
 * of line sizes (b, 2b) and its strict variant, and LRU cache miss ratios,
 * from the per-access bins computed by the reuse-distance engine. */
#ifndef PISA_METRICS_LOCALITY_H
#define PISA_METRICS_LOCALITY_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define LOCALITY_MAX_SIZES 24   /* line sizes per histogram set */
#define LOCALITY_FINITE_BINS 48 /* bin 0: distance 0; i: [2^(i-1), 2^i) */
#define LOCALITY_COLD_INDEX 48  /* counts[s][48]: first references */
#define LOCALITY_BINS 49
/* The bin the engine gives a first reference (REUSE_COLD in reuse.h).  It
 * compares above every finite bin, as the score's ranking wants. */
#define LOCALITY_COLD_BIN 255
/* docs/metrics.md: miss ratios come from the 64-byte histogram. */
#define LOCALITY_MISS_LINE_BYTES 64
#define LOCALITY_DEFAULT_CACHES 3
/* 32 KiB, 1 MiB, 32 MiB */
extern const uint64_t locality_default_cache_bytes[LOCALITY_DEFAULT_CACHES];

/* Pair s is (line_bytes[s], line_bytes[s + 1]) when the second is twice
 * the first.  Its score needs only two counts, not the joint distribution
 * of (bin at b, bin at 2b): S_k = sum_i p_b(i) sum_{j<i} p_ij
 * = sum_i sum_{j<i} n_ij / N, the fraction of accesses whose bin drops.
 * 10552 bytes, no pointers: embeddable, copyable, zeroed by init. */
struct reuse_histograms {
  size_t n_sizes;
  uint64_t line_bytes[LOCALITY_MAX_SIZES]; /* increasing powers of two */
  uint64_t counts[LOCALITY_MAX_SIZES][LOCALITY_BINS];
  uint64_t drops[LOCALITY_MAX_SIZES - 1];        /* bin at 2b < bin at b */
  uint64_t strict_drops[LOCALITY_MAX_SIZES - 1]; /* by two bins or more,
                                                    or cold to finite */
  /* Sampled runs only (histograms_set_long_cut; 0: none counted): per
   * pair s, the references whose bin at s is long_cut[s] or more (far,
   * or cold: those a window leaves censored), and of them those whose bin
   * drops at s + 1, by two bins or more. */
  uint8_t long_cut[LOCALITY_MAX_SIZES];
  uint64_t long_refs[LOCALITY_MAX_SIZES - 1];
  uint64_t long_drops[LOCALITY_MAX_SIZES - 1];
  uint64_t long_strict[LOCALITY_MAX_SIZES - 1];
};

/* From now on h also counts, per pair s, the references whose bin at s
 * is cut[s] or more (1 to LOCALITY_FINITE_BINS; 0 for none) and their
 * drops (a sampled run's SHARDS stream, for the drops the windows cannot
 * tell). */
void histograms_set_long_cut(struct reuse_histograms *h, const uint8_t *cut);

/* Empty histograms for n_sizes line sizes (increasing powers of two).
 * Returns 0, or -1 (and no sizes) when n_sizes > LOCALITY_MAX_SIZES or the
 * sizes are not increasing powers of two. */
int histograms_init(struct reuse_histograms *h, const uint64_t *line_bytes,
                    size_t n_sizes);

/* Adds accesses first..first+n-1 of a batch: bins[s][i] is the bin of
 * access i at line size s (0..47, or LOCALITY_COLD_BIN; anything above 47
 * counts as cold).  No allocation; a batch can be split into runs (of one
 * function's accesses, say) by first and n. */
void histograms_add_batch(struct reuse_histograms *h,
                          const uint8_t *const *bins, size_t first, size_t n);

/* histograms_add_batch for the line sizes [from, to) of h alone: their
 * bins, and the drops of the pairs of sizes both among them.  For sizes
 * that see different streams of accesses (a sampled run's fine and coarse
 * units), each stream's sizes apart. */
void histograms_add_sizes(struct reuse_histograms *h,
                          const uint8_t *const *bins, size_t from, size_t to,
                          size_t first, size_t n);

/* The drops of pair s (sizes s and s + 1, when they are a pair) of n
 * accesses, at_b and at_2b their bins at the two sizes: for a pair whose
 * sizes see different streams, from bins at size s over the stream of
 * size s + 1. */
void histograms_add_drops(struct reuse_histograms *h, size_t s,
                          const uint8_t *at_b, const uint8_t *at_2b, size_t n);

/* Per access a of n (bins as for histograms_add_batch), bit s of drops[a]
 * (strict_drops[a]) set when its bin drops (strictly) at pair s of
 * line_bytes[0..n_sizes) (s < 32): what histograms_add_batch counts per
 * pair, for a caller that counts accesses apart (a data object's). */
void locality_drop_masks(const uint64_t *line_bytes, size_t n_sizes,
                         const uint8_t *const *bins, size_t n, uint32_t *drops,
                         uint32_t *strict_drops);

/* dst += src.  Returns -1 (and leaves dst alone) when the line sizes
 * differ. */
int histograms_merge(struct reuse_histograms *dst,
                     const struct reuse_histograms *src);
/* dst += weight * src: a sampled stream's counts, each standing for
 * `weight` references (the memory budget's sampling, consume.c). */
int histograms_merge_scaled(struct reuse_histograms *dst,
                            const struct reuse_histograms *src,
                            uint64_t weight);

/* Accesses counted at the smallest line size: at every size the same,
 * except in a sampled run's histograms before they are estimated, where
 * the sizes up to 64 bytes and those above see different streams. */
uint64_t histograms_accesses(const struct reuse_histograms *h);

/* Per pair (b, 2b), numbered k = 1..n_pairs from the smallest b:
 * score[k-1] = S_k, strict[k-1] its strict variant; slq and slq_strict
 * weigh pair k with 2^-k.  All 0 without accesses or pairs. */
struct spatial_locality {
  size_t n_pairs;
  uint64_t line_bytes[LOCALITY_MAX_SIZES - 1]; /* b of each pair */
  double score[LOCALITY_MAX_SIZES - 1];
  double strict[LOCALITY_MAX_SIZES - 1];
  double slq, slq_strict;
};
void spatial_locality_compute(const struct reuse_histograms *h,
                              struct spatial_locality *out);

/* Miss ratio of a fully associative LRU cache of cache_bytes with
 * line_bytes lines (an analysed size): the accesses with reuse distance
 * >= cache_bytes / line_bytes, cold ones included, over all accesses (0
 * without accesses).  Exact when cache_bytes / line_bytes is 0 or a power
 * of two.  Otherwise one bin straddles the capacity: *low and *high get
 * the ratios with none and all of it missing, and the result assumes its
 * distances are spread evenly.  -1 when line_bytes is not analysed. */
double histograms_miss_ratio(const struct reuse_histograms *h,
                             uint64_t cache_bytes, uint64_t line_bytes,
                             double *low, double *high);

/* The `reuse_distance` array: [{"line_bytes", "cold", "bins"}] per line
 * size, trailing zero bins left out.  NULL without line sizes or memory. */
struct json_object *reuse_distance_to_json(const struct reuse_histograms *h);

/* The `spatial_locality` object {"score", "score_strict", "pairs":
 * [{"line_bytes", "score", "strict"}]}.  NULL without a pair (b, 2b) or
 * memory. */
struct json_object *spatial_locality_to_json(const struct reuse_histograms *h);
/* The same object for `accesses` accesses with drops[s] and strict_drops[s]
 * per pair s of line_bytes[0..n_sizes) (locality_drop_masks). */
struct json_object *
spatial_locality_counts_to_json(const uint64_t *line_bytes, size_t n_sizes,
                                uint64_t accesses, const uint64_t *drops,
                                const uint64_t *strict_drops);

/* The `miss_ratio` array for the n caches of cache_bytes[] (>= 1) at
 * 64-byte lines; entries that are not exact carry "approximate": true and
 * "bound": {"ratio_low", "ratio_high"}.  NULL when 64 is not an analysed
 * line size, n is 0, or out of memory. */
struct json_object *miss_ratio_to_json(const struct reuse_histograms *h,
                                       const uint64_t *cache_bytes, size_t n);

#endif /* PISA_METRICS_LOCALITY_H */
