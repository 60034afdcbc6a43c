/* sample.c: the spatial filter and the temporal slices of sampled deep
 * mode (sample.h).  Both copy into a batch of their own, so the engines
 * consume a sampled stream exactly as they consume a whole one. */
#include "sample.h"
#include "reuse.h"

#include <math.h>
#include <string.h>

void sample_filter_init(struct sample_filter *f, double rate, unsigned shift) {
  double scaled = rate * (double)(UINT64_C(1) << SAMPLE_HASH_BITS);
  uint32_t threshold = scaled < 1 ? 1 : (uint32_t)llround(scaled);
  if (threshold > (UINT32_C(1) << SAMPLE_HASH_BITS))
    threshold = UINT32_C(1) << SAMPLE_HASH_BITS;
  f->shift = shift;
  f->threshold = threshold;
  f->rate = (double)threshold / (double)(UINT64_C(1) << SAMPLE_HASH_BITS);
}

static void copy_access(struct event_batch *dst, const struct event_batch *src,
                        size_t a) {
  event_add_access(dst, src->addr[a], src->size[a], src->site[a], src->kind[a],
                   src->access_class[a]);
}

/* The filter's verdicts on the blocks it judged last, one per block
 * number modulo VERDICTS: the accesses of a loop's few streams mostly
 * fall in the blocks their previous accesses fell in, and the hash is
 * most of the filter's cost. */
#define VERDICTS 16
struct verdicts {
  const struct sample_filter *filter; /* NULL: keep everything */
  uint64_t block[VERDICTS];           /* UINT64_MAX: none yet */
  uint32_t keep;                      /* bit i: block[i] is kept */
};

static int kept(struct verdicts *v, uint64_t addr) {
  if (!v->filter)
    return 1;
  uint64_t block = addr >> v->filter->shift;
  unsigned i = (unsigned)block % VERDICTS;
  if (block != v->block[i]) {
    v->block[i] = block;
    v->keep = (v->keep & ~(1u << i)) | (uint32_t)sample_keep(v->filter, addr)
                                           << i;
  }
  return (v->keep >> i) & 1;
}

/* Instance i of src, appended to dst with the accesses v keeps. */
static void copy_instance(struct event_batch *dst,
                          const struct event_batch *src, size_t i,
                          struct verdicts *v) {
  size_t k = dst->n_instances;
  event_add_instance(dst, src->block[i], src->start[i], src->first_site[i]);
  dst->end_site[k] = src->end_site[i];
  for (size_t a = src->first_access[i]; a < src->first_access[i + 1]; a++)
    if (kept(v, src->addr[a]))
      copy_access(dst, src, a);
}

/* Copies instances [first, end) of src into dst, their accesses filtered
 * by keep (all when NULL). */
static int copy_instances(struct event_batch *dst,
                          const struct event_batch *src, size_t first,
                          size_t end, const struct sample_filter *keep) {
  size_t accesses = src->first_access[end] - src->first_access[first];
  struct verdicts v = {keep, {0}, 0};
  if (event_batch_reset(dst, end - first, accesses))
    return -1;
  /* no user-space address is in block UINT64_MAX */
  memset(v.block, 0xff, sizeof v.block);
  for (size_t i = first; i < end; i++)
    copy_instance(dst, src, i, &v);
  dst->first_access[dst->n_instances] = (uint32_t)dst->n_accesses;
  return 0;
}

int sample_filter_batch(struct event_batch *dst, const struct event_batch *src,
                        const struct sample_filter *f) {
  if (copy_instances(dst, src, 0, src->n_instances, f))
    return -1;
  dst->block_before = src->block_before;
  dst->desync = src->desync;
  return 0;
}

int sample_slice_batch(struct event_batch *dst, const struct event_batch *src,
                       size_t first, size_t end, int restart) {
  if (copy_instances(dst, src, first, end, NULL))
    return -1;
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

void sample_scaled_bins(const uint64_t *distances, size_t n, double rate,
                        uint8_t *bins) {
  double scale = 1.0 / rate;
  for (size_t i = 0; i < n; i++) {
    double d = (double)distances[i] * scale;
    bins[i] = distances[i] == UINT64_MAX ? REUSE_COLD
              : d >= 0x1p63              ? REUSE_MAX_BIN
                                         : bin_of((uint64_t)llround(d));
  }
}
