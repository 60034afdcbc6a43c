/* sample.c: the spatial filter and the temporal slices of sampled deep
 * mode (sample.h).  Both write a batch of their own, so the engines
 * consume a sampled stream exactly as they consume a whole one; the
 * filter's shares the instances of the batch it filters. */
#include "sample.h"
#include "reuse.h"

#include <math.h>

void sample_filter_init(struct sample_filter *f, double rate, unsigned shift) {
  double scaled = rate * (double)(UINT64_C(1) << SAMPLE_HASH_BITS);
  uint32_t threshold = scaled < 1 ? 1 : (uint32_t)llround(scaled);
  if (threshold > (UINT32_C(1) << SAMPLE_HASH_BITS))
    threshold = UINT32_C(1) << SAMPLE_HASH_BITS;
  f->shift = shift;
  f->threshold = threshold;
  f->rate = (double)threshold / (double)(UINT64_C(1) << SAMPLE_HASH_BITS);
  f->seed = 0;
  f->unit_shift = shift;
}

void sample_filter_units(struct sample_filter *units,
                         const struct sample_filter *f, unsigned unit_shift) {
  *units = *f;
  units->unit_shift = unit_shift;
}

static void copy_access(struct event_batch *dst, const struct event_batch *src,
                        size_t a) {
  event_add_access(dst, src->addr[a], src->size[a], src->site[a], src->kind[a],
                   src->access_class[a]);
}

/* Instance i of src and its accesses, appended to dst. */
static void copy_instance(struct event_batch *dst,
                          const struct event_batch *src, size_t i) {
  size_t k = dst->n_instances;
  event_add_instance(dst, src->block[i], src->start[i], src->first_site[i]);
  dst->end_site[k] = src->end_site[i];
  for (size_t a = src->first_access[i]; a < src->first_access[i + 1]; a++)
    copy_access(dst, src, a);
}

/* index[0..k): the accesses of [from, end) that f keeps, in order; k. */
static size_t keep_baseline(const struct sample_filter *f, const uint64_t *addr,
                            uint32_t from, uint32_t end, uint32_t *index) {
  const struct sample_filter keep = *f; /* not reloaded after each store */
  size_t kept = 0;
  for (uint32_t a = from; a < end; a++) {
    index[kept] = a;
    kept += (size_t)sample_keep(&keep, addr[a]);
  }
  return kept;
}

/* keep_baseline for f and units at once (sample_keep_indices2). */
static size_t keep2_baseline(const struct sample_filter *f,
                             const struct sample_filter *units,
                             const uint64_t *addr, uint32_t from, uint32_t end,
                             uint32_t *index, uint32_t *unit_index,
                             size_t *n_units) {
  const struct sample_filter keep = *f, unit = *units;
  const uint64_t mask = (UINT64_C(1) << SAMPLE_HASH_BITS) - 1;
  size_t kept = 0, kept_units = *n_units;
  for (uint32_t a = from; a < end; a++) {
    uint64_t h = sample_hash((addr[a] >> keep.shift) ^ keep.seed);
    index[kept] = unit_index[kept_units] = a;
    kept += (size_t)((h & mask) < keep.threshold);
    kept_units += (size_t)(((h + sample_unit_offset(&unit, addr[a])) & mask) <
                           unit.threshold);
  }
  *n_units = kept_units;
  return kept;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* The low 64 bits of each lane of x times the constant k (AVX2 has no
 * 64-bit multiply): x_lo k_lo + (x_hi k_lo + x_lo k_hi) << 32. */
AVX2 static inline __m256i mul64(__m256i x, uint64_t k) {
  __m256i lo = _mm256_set1_epi64x((long long)(k & 0xffffffffu)),
          hi = _mm256_set1_epi64x((long long)(k >> 32));
  __m256i cross = _mm256_add_epi64(
      _mm256_mul_epu32(_mm256_srli_epi64(x, 32), lo), _mm256_mul_epu32(x, hi));
  return _mm256_add_epi64(_mm256_mul_epu32(x, lo),
                          _mm256_slli_epi64(cross, 32));
}

/* sample_hash of four lanes' (block number ^ seed). */
AVX2 static inline __m256i hash_avx2(__m256i x) {
  x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 30));
  x = mul64(x, SAMPLE_HASH_K1);
  x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 27));
  x = mul64(x, SAMPLE_HASH_K2);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 31));
}

/* The lanes (bits 0..3) whose masked x is below threshold. */
AVX2 static inline unsigned below_avx2(__m256i x, __m256i mask,
                                       __m256i threshold) {
  return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(
      _mm256_cmpgt_epi64(threshold, _mm256_and_si256(x, mask))));
}

/* keep_baseline, four hashes at a time (sample_hash on four lanes). */
AVX2 static size_t keep_avx2(const struct sample_filter *f,
                             const uint64_t *addr, uint32_t from, uint32_t end,
                             uint32_t *index) {
  const __m128i shift = _mm_cvtsi32_si128((int)f->shift);
  const __m256i mask = _mm256_set1_epi64x((INT64_C(1) << SAMPLE_HASH_BITS) - 1),
                threshold = _mm256_set1_epi64x((long long)f->threshold),
                seed = _mm256_set1_epi64x((long long)f->seed);
  size_t kept = 0;
  uint32_t a = from;
  for (; end - a >= 4; a += 4) {
    __m256i x = hash_avx2(_mm256_xor_si256(
        _mm256_srl_epi64(_mm256_loadu_si256((const __m256i *)(addr + a)),
                         shift),
        seed));
    for (unsigned lanes = below_avx2(x, mask, threshold); lanes;
         lanes &= lanes - 1)
      index[kept++] = a + (uint32_t)__builtin_ctz(lanes);
  }
  return kept + keep_baseline(f, addr, a, end, index + kept);
}

/* keep2_baseline, four hashes at a time: the units' verdicts add each
 * lane's unit offset (sample_unit_offset) to the block's hash. */
AVX2 static size_t keep2_avx2(const struct sample_filter *f,
                              const struct sample_filter *units,
                              const uint64_t *addr, uint32_t from, uint32_t end,
                              uint32_t *index, uint32_t *unit_index,
                              size_t *n_units) {
  const __m128i shift = _mm_cvtsi32_si128((int)f->shift),
                unit_shift = _mm_cvtsi32_si128((int)units->unit_shift),
                offset_shift = _mm_cvtsi32_si128(
                    (int)(SAMPLE_HASH_BITS - (f->shift - units->unit_shift)));
  const __m256i mask = _mm256_set1_epi64x((INT64_C(1) << SAMPLE_HASH_BITS) - 1),
                threshold = _mm256_set1_epi64x((long long)f->threshold),
                seed = _mm256_set1_epi64x((long long)f->seed);
  size_t kept = 0, kept_units = 0;
  uint32_t a = from;
  for (; end - a >= 4; a += 4) {
    __m256i at = _mm256_loadu_si256((const __m256i *)(addr + a));
    __m256i x = hash_avx2(_mm256_xor_si256(_mm256_srl_epi64(at, shift), seed));
    __m256i offset =
        _mm256_sll_epi64(_mm256_srl_epi64(at, unit_shift), offset_shift);
    for (unsigned lanes = below_avx2(x, mask, threshold); lanes;
         lanes &= lanes - 1)
      index[kept++] = a + (uint32_t)__builtin_ctz(lanes);
    for (unsigned lanes =
             below_avx2(_mm256_add_epi64(x, offset), mask, threshold);
         lanes; lanes &= lanes - 1)
      unit_index[kept_units++] = a + (uint32_t)__builtin_ctz(lanes);
  }
  *n_units = kept_units;
  return kept + keep2_baseline(f, units, addr, a, end, index + kept, unit_index,
                               n_units);
}

#define AVX512 __attribute__((target("avx512f,avx512dq")))

/* sample_hash of eight lanes' (block number ^ seed): AVX-512DQ multiplies
 * 64-bit lanes. */
AVX512 static inline __m512i hash_avx512(__m512i x) {
  x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
  x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)SAMPLE_HASH_K1));
  x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 27));
  x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)SAMPLE_HASH_K2));
  return _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
}

/* keep_baseline, eight hashes at a time. */
AVX512 static size_t keep_avx512(const struct sample_filter *f,
                                 const uint64_t *addr, uint32_t from,
                                 uint32_t end, uint32_t *index) {
  const __m128i shift = _mm_cvtsi32_si128((int)f->shift);
  const __m512i mask = _mm512_set1_epi64((INT64_C(1) << SAMPLE_HASH_BITS) - 1),
                threshold = _mm512_set1_epi64((long long)f->threshold),
                seed = _mm512_set1_epi64((long long)f->seed);
  size_t kept = 0;
  uint32_t a = from;
  for (; end - a >= 8; a += 8) {
    __m512i x = hash_avx512(_mm512_xor_si512(
        _mm512_srl_epi64(_mm512_loadu_si512(addr + a), shift), seed));
    for (unsigned lanes =
             _mm512_cmplt_epu64_mask(_mm512_and_si512(x, mask), threshold);
         lanes; lanes &= lanes - 1)
      index[kept++] = a + (uint32_t)__builtin_ctz(lanes);
  }
  return kept + keep_baseline(f, addr, a, end, index + kept);
}

/* keep2_baseline, eight hashes at a time. */
AVX512 static size_t keep2_avx512(const struct sample_filter *f,
                                  const struct sample_filter *units,
                                  const uint64_t *addr, uint32_t from,
                                  uint32_t end, uint32_t *index,
                                  uint32_t *unit_index, size_t *n_units) {
  const __m128i shift = _mm_cvtsi32_si128((int)f->shift),
                unit_shift = _mm_cvtsi32_si128((int)units->unit_shift),
                offset_shift = _mm_cvtsi32_si128(
                    (int)(SAMPLE_HASH_BITS - (f->shift - units->unit_shift)));
  const __m512i mask = _mm512_set1_epi64((INT64_C(1) << SAMPLE_HASH_BITS) - 1),
                threshold = _mm512_set1_epi64((long long)f->threshold),
                seed = _mm512_set1_epi64((long long)f->seed);
  size_t kept = 0, kept_units = 0;
  uint32_t a = from;
  for (; end - a >= 8; a += 8) {
    __m512i at = _mm512_loadu_si512(addr + a);
    __m512i x =
        hash_avx512(_mm512_xor_si512(_mm512_srl_epi64(at, shift), seed));
    __m512i offset =
        _mm512_sll_epi64(_mm512_srl_epi64(at, unit_shift), offset_shift);
    for (unsigned lanes =
             _mm512_cmplt_epu64_mask(_mm512_and_si512(x, mask), threshold);
         lanes; lanes &= lanes - 1)
      index[kept++] = a + (uint32_t)__builtin_ctz(lanes);
    for (unsigned lanes = _mm512_cmplt_epu64_mask(
             _mm512_and_si512(_mm512_add_epi64(x, offset), mask), threshold);
         lanes; lanes &= lanes - 1)
      unit_index[kept_units++] = a + (uint32_t)__builtin_ctz(lanes);
  }
  *n_units = kept_units;
  return kept + keep2_baseline(f, units, addr, a, end, index + kept, unit_index,
                               n_units);
}
#endif

size_t sample_keep_indices(const struct sample_filter *f, const uint64_t *addr,
                           uint32_t from, uint32_t end, uint32_t *index,
                           enum sample_code code) {
#if defined(__x86_64__)
  if (code >= SAMPLE_AVX512 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq"))
    return keep_avx512(f, addr, from, end, index);
  if (code >= SAMPLE_AVX2 && __builtin_cpu_supports("avx2"))
    return keep_avx2(f, addr, from, end, index);
#endif
  (void)code;
  return keep_baseline(f, addr, from, end, index);
}

size_t sample_keep_indices2(const struct sample_filter *f,
                            const struct sample_filter *units,
                            const uint64_t *addr, uint32_t from, uint32_t end,
                            uint32_t *index, uint32_t *unit_index,
                            size_t *n_units, enum sample_code code) {
  *n_units = 0;
#if defined(__x86_64__)
  if (code >= SAMPLE_AVX512 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq"))
    return keep2_avx512(f, units, addr, from, end, index, unit_index, n_units);
  if (code >= SAMPLE_AVX2 && __builtin_cpu_supports("avx2"))
    return keep2_avx2(f, units, addr, from, end, index, unit_index, n_units);
#endif
  (void)code;
  return keep2_baseline(f, units, addr, from, end, index, unit_index, n_units);
}

/* dst's first_access for the kept accesses of src's instances (shared),
 * then those accesses, their indices index[0..kept) in dst's site array
 * (each read before its slot is written). */
static void fill_kept(struct event_batch *dst, const struct event_batch *src,
                      size_t kept) {
  const uint32_t *index = dst->site, *first = src->first_access;
  uint32_t *to = dst->first_access;
  size_t n = src->n_instances, i = 0;
  /* Instance i's first kept access is the number of kept accesses before
   * its first access: k for each instance whose first access is after
   * index[k - 1] and not after index[k].  Kept accesses are rare, so these
   * runs are long: eight instances at a time while the eighth's first
   * access is not past index[k] (first is sorted). */
  for (size_t k = 0; k < kept; k++) {
    uint32_t at = index[k];
    for (; i + 8 <= n && first[i + 7] <= at; i += 8)
      for (size_t j = 0; j < 8; j++)
        to[i + j] = (uint32_t)k;
    for (; i < n && first[i] <= at; i++)
      to[i] = (uint32_t)k;
  }
  for (; i < n; i++)
    to[i] = (uint32_t)kept;
  to[n] = (uint32_t)kept;
  for (size_t k = 0; k < kept; k++)
    copy_access(dst, src, index[k]); /* writes site[k] after reading it */
}

/* The filter hashes every access (four or eight at a time where the
 * processor can): that costs less than remembering verdicts, whose misses the
 * branch predictor cannot learn (performance.md "Sampled 1%: the spatial
 * filter").
 * The indices of the kept accesses go to dst->site, which has room for
 * all of them, then each instance's first kept access, then the kept
 * accesses themselves. */
int sample_filter_batch(struct event_batch *dst, const struct event_batch *src,
                        const struct sample_filter *f) {
  size_t n = src->n_instances;
  const uint32_t *first = src->first_access;
  if (event_batch_share_instances(dst, src, first[n] - first[0]))
    return -1;
  fill_kept(dst, src,
            sample_keep_indices(f, src->addr, first[0], first[n], dst->site,
                                SAMPLE_BEST));
  return 0;
}

int sample_filter_batch2(struct event_batch *dst, struct event_batch *unit_dst,
                         const struct event_batch *src,
                         const struct sample_filter *f,
                         const struct sample_filter *units) {
  size_t n = src->n_instances, kept_units;
  const uint32_t *first = src->first_access;
  if (event_batch_share_instances(dst, src, first[n] - first[0]) ||
      event_batch_share_instances(unit_dst, src, first[n] - first[0]))
    return -1;
  size_t kept =
      sample_keep_indices2(f, units, src->addr, first[0], first[n], dst->site,
                           unit_dst->site, &kept_units, SAMPLE_BEST);
  /* two walks of the instances: one walk with two cursors cost more
   * (callgrind, gemm at 1%) */
  fill_kept(dst, src, kept);
  fill_kept(unit_dst, src, kept_units);
  return 0;
}

int sample_slice_batch(struct event_batch *dst, const struct event_batch *src,
                       size_t first, size_t end, int restart) {
  size_t accesses = src->first_access[end] - src->first_access[first];
  if (event_batch_reset(dst, end - first, accesses))
    return -1;
  for (size_t i = first; i < end; i++)
    copy_instance(dst, src, i);
  dst->first_access[dst->n_instances] = (uint32_t)dst->n_accesses;
  if (restart && dst->n_instances)
    dst->start[0] |= INSTANCE_LOST_CONTEXT;
  dst->block_before = restart
                          ? PROGRAM_NONE
                          : (first ? src->block[first - 1] : src->block_before);
  return 0;
}

static uint8_t bin_of(uint64_t distance) {
  if (!distance)
    return 0;
  unsigned bin = 64u - (unsigned)__builtin_clzll(distance);
  return (uint8_t)(bin > REUSE_MAX_BIN ? REUSE_MAX_BIN : bin);
}

/* llround of 0 <= d < 2^63 inline (a call per sampled reference and
 * engine cost 2.8% of a sampled run): below 2^52 half up, above it d is
 * a whole number already. */
static inline uint64_t round_half_up(double d) {
  return d < 0x1p52 ? (uint64_t)(d + 0.5) : (uint64_t)d;
}

void sample_scaled_bins(const uint64_t *distances, size_t n, double rate,
                        uint8_t *bins) {
  double scale = 1.0 / rate;
  for (size_t i = 0; i < n; i++) {
    double d = (double)distances[i] * scale;
    bins[i] = distances[i] == UINT64_MAX ? REUSE_COLD
              : d >= 0x1p63              ? REUSE_MAX_BIN
                                         : bin_of(round_half_up(d));
  }
}
