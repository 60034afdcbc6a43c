/* estimate.c: a sampled run's figures (docs/result-document.md
 * "Sampling").  Spatially sampled families count the references to one
 * block in 1 / rate: their counts and footprints scale by 1 / rate, their
 * distances were scaled as they were measured (consume.c), and memory
 * entropy gains log2(1 / rate) (the Horvitz-Thompson estimate of
 * sum c log c).  Temporally sampled families are ratios over the bursts
 * and need no scaling. */
#include "estimate.h"
#include "reuse.h"
#include "threads.h"

#include <math.h>

PISA_HIDDEN int pisa_sampled(void) { return pisa_config.sampling.rate < 1; }

static double scale(void) { return 1.0 / pisa_config.sampling.rate; }

PISA_HIDDEN uint64_t pisa_estimate_count(uint64_t sampled) {
  return pisa_sampled() ? (uint64_t)llround((double)sampled * scale())
                        : sampled;
}

/* Bin 0 takes the difference between the expected and the scaled
 * references, down to 0. */
static void adjust_bin0(uint64_t *counts, uint64_t accesses) {
  uint64_t scaled = 0;
  for (unsigned b = 0; b < LOCALITY_BINS; b++)
    scaled += counts[b];
  if (accesses >= scaled)
    counts[0] += accesses - scaled;
  else
    counts[0] -= scaled - accesses < counts[0] ? scaled - accesses : counts[0];
}

PISA_HIDDEN void pisa_estimate_histograms(struct reuse_histograms *h,
                                          uint64_t accesses) {
  if (!pisa_sampled() || !histograms_accesses(h))
    return;
  for (size_t s = 0; s < h->n_sizes; s++) {
    for (unsigned b = 0; b < LOCALITY_BINS; b++)
      h->counts[s][b] = pisa_estimate_count(h->counts[s][b]);
    adjust_bin0(h->counts[s], accesses);
  }
  for (size_t s = 0; s + 1 < h->n_sizes; s++) {
    h->drops[s] = pisa_estimate_count(h->drops[s]);
    h->strict_drops[s] = pisa_estimate_count(h->strict_drops[s]);
  }
}

PISA_HIDDEN void pisa_estimate_counts(json_object *o) {
  json_object_object_foreach(o, key, value) {
    if (json_object_is_type(value, json_type_object))
      pisa_estimate_counts(value);
    else if (json_object_is_type(value, json_type_int))
      json_object_object_add(o, key,
                             json_object_new_uint64(pisa_estimate_count(
                                 json_object_get_uint64(value))));
  }
}

PISA_HIDDEN void pisa_estimate_json(json_object *o, uint64_t sampled_accesses) {
  json_object *v;
  if (!pisa_sampled())
    return;
  if (json_object_object_get_ex(o, "footprint", &v))
    pisa_estimate_counts(v);
  if (!sampled_accesses || !json_object_object_get_ex(o, "memory_entropy", &v))
    return;
  for (size_t k = 0; k < json_object_array_length(v); k++) {
    double h =
        json_object_get_double(json_object_array_get_idx(v, k)) + log2(scale());
    json_object_array_put_idx(v, k, json_object_new_double(h > 64 ? 64 : h));
  }
}

/* ---- config.sampling ---------------------------------------------------- */

/* Blocks of the reuse filter's size that the threads' engines saw: the
 * sampled units of the reuse family. */
static uint64_t reuse_units(void) {
  uint64_t n = 0;
  size_t last = pisa_config.n_line_sizes - 1;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    if (t->reuse[last])
      n += reuse_distinct_blocks(t->reuse[last]);
  return n;
}

/* The bursts the threads analysed (the schedules' and branch's clocks
 * agree when both run). */
static void burst_coverage(uint64_t *bursts) {
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  *bursts = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
    uint64_t n = t->sched_bursts.instances > t->branch_bursts.instances
                     ? t->sched_bursts.instances
                     : t->branch_bursts.instances;
    *bursts += (n + c->burst_period - 1) / c->burst_period;
  }
}

static json_object *spatial_json(const struct sample_filter *f, uint64_t units,
                                 double error_factor) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "method", json_object_new_string("spatial"));
  json_object_object_add(o, "rate", json_object_new_double(f->rate));
  json_object_object_add(o, "unit_bytes",
                         json_object_new_uint64(UINT64_C(1) << f->shift));
  json_object_object_add(o, "sampled_units", json_object_new_uint64(units));
  if (units)
    json_object_object_add(
        o, "error",
        json_object_new_double(error_factor *
                               sqrt((1 - f->rate) / (double)units)));
  return o;
}

static json_object *temporal_json(uint64_t bursts) {
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "method", json_object_new_string("temporal"));
  json_object_object_add(o, "rate", json_object_new_double(c->rate));
  json_object_object_add(o, "burst_instances",
                         json_object_new_uint64(c->burst_instances));
  json_object_object_add(o, "period_instances",
                         json_object_new_uint64(c->burst_period));
  json_object_object_add(o, "bursts", json_object_new_uint64(bursts));
  return o;
}

/* Which method each enabled family's figures come from, and the error
 * estimate of the spatial ones: the relative standard error of a count
 * scaled from n sampled units, sqrt((1 - rate) / n), and for entropy the
 * bits that error moves log2 N by. */
PISA_HIDDEN json_object *pisa_sampling_json(const struct aggregate *totals) {
  if (!pisa_sampled())
    return NULL;
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  unsigned fam = pisa_config.families;
  struct footprint all;
  footprint_init(&all);
  for (int k = 0; k < 3; k++)
    footprint_merge(&all, &totals->class_footprint[k]);
  uint64_t space_units = footprint_blocks(&all, UINT64_C(1) << c->space.shift);
  uint64_t reuse = reuse_units(), bursts;
  footprint_free(&all);
  burst_coverage(&bursts);
  json_object *families = json_object_new_object();
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++) {
    unsigned bit = 1u << f;
    json_object *o;
    if (!(fam & bit))
      continue;
    if (bit & (PISA_FAMILY(REUSE) | PISA_FAMILY(LOCALITY)))
      o = spatial_json(&c->reuse, reuse, 1);
    else if (bit & (PISA_FAMILY(FOOTPRINT) | PISA_FAMILY(CLASSES)))
      o = spatial_json(&c->space, space_units, 1);
    else if (bit & PISA_FAMILY(ENTROPY))
      o = spatial_json(&c->space, space_units, 1 / M_LN2);
    else
      o = temporal_json(bursts);
    json_object_object_add(families, pisa_family_names[f], o);
  }
  json_object *o = json_object_new_object();
  json_object_object_add(o, "rate", json_object_new_double(c->rate));
  json_object_object_add(o, "families", families);
  return o;
}
