/* estimate.c: a sampled run's figures (docs/result-document.md
 * "Sampling").  Spatially sampled families count the references to one
 * block in 1 / rate: their counts scale by 1 / rate and their distances
 * were scaled as they were measured (consume.c).  A run sampled from the
 * start also counts every unit's accesses (unit_counts.h): its footprints
 * scale by its units over its sampled units, and its memory entropy is
 * the exact entropy of the units plus an estimate of the entropy within
 * them.  After the memory budget's switch alone, footprints scale by
 * 1 / rate and memory entropy gains log2(1 / rate) (the Horvitz-Thompson
 * estimate of sum c log c).  Temporally sampled families are ratios over
 * the bursts and need no scaling. */
#include "estimate.h"
#include "fallback.h"
#include "reuse.h"
#include "threads.h"

#include <math.h>
#include <stdlib.h>

PISA_HIDDEN int pisa_sampled(void) { return pisa_config.sampling.rate < 1; }

/* The filter the space group ends the run with: the run's, or a lower
 * rate after the memory budget's steps (its state holds the blocks of the
 * last). */
static struct sample_filter space_filter(void) {
  return pisa_group_filter(PISA_CONSUME_SPACE,
                           pisa_group_steps(PISA_CONSUME_SPACE));
}

static double space_rate(void) { return space_filter().rate; }

static uint64_t scaled(uint64_t sampled, double rate) {
  return rate < 1 ? (uint64_t)llround((double)sampled / rate) : sampled;
}

/* Whether a's units were counted (a run sampled from the start). */
static int with_units(const struct aggregate *a) {
  return unit_counts_units(&a->units) != 0;
}

/* The sampled units of the space group: its last filter's blocks in the
 * process's footprint. */
static uint64_t space_units(const struct aggregate *totals, unsigned shift) {
  struct footprint all;
  footprint_init(&all);
  for (int k = 0; k < 3; k++)
    footprint_merge(&all, &totals->class_footprint[k]);
  uint64_t units = footprint_blocks(&all, UINT64_C(1) << shift);
  footprint_free(&all);
  return units;
}

/* pisa_footprint_scale, made once per aggregate */
static double footprint_scale(const struct aggregate *a) {
  double rate = space_rate();
  if (rate == 1)
    return 1;
  if (!with_units(a))
    return 1 / rate;
  struct sample_filter f = space_filter();
  size_t seen = unit_counts_sampled(&a->units, &f);
  if (seen)
    return (double)unit_counts_units(&a->units) / (double)seen;
  return space_units(a, f.shift) ? 1 / rate : 0;
}

PISA_HIDDEN double pisa_footprint_scale(struct aggregate *a) {
  if (!a->footprint_scaled) {
    a->footprint_scale = footprint_scale(a);
    a->footprint_scaled = 1;
  }
  return a->footprint_scale;
}

static uint64_t times(uint64_t count, double scale) {
  return scale == 1 ? count : (uint64_t)llround((double)count * scale);
}

PISA_HIDDEN uint64_t pisa_estimate_bytes(struct aggregate *a,
                                         uint64_t sampled) {
  return times(sampled, pisa_footprint_scale(a));
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

/* A pair's drops among `sampled` references of the stream that counted
 * them (the stream of the pair's larger size), as the same share of the
 * exact `accesses`: a ratio estimate, so that a score stays at most 1 even
 * where a hot sampled block weighs 1 / rate, or where the pair's stream
 * sampled a scope's few references and the smallest size's did not. */
static uint64_t drops_estimate(uint64_t drops, uint64_t sampled,
                               uint64_t accesses) {
  return sampled ? (uint64_t)llround((double)drops * (double)accesses /
                                     (double)sampled)
                 : 0;
}

/* A pair's drops from the windows where they tell them, and from SHARDS
 * where they do not: of the references the windows measured at both
 * sizes, the share exact at b whose bin drops (exact: a distance at 2b is
 * at most the one at b), plus the share censored at b times the drop rate
 * of SHARDS's references from the windows' cut on (far or cold, whose
 * scaled distances SHARDS resolves), of the exact `accesses`.  The drops
 * of SHARDS's own short distances, distances among the sampled lines only
 * (a line reused after other arrays' lines is at distance 0 there), are
 * not used: they made triad's (32, 64) score 0.50 against 0.83. */
static void windowed_drops(struct reuse_histograms *h,
                           const struct burst_histograms *w, size_t s,
                           uint64_t accesses, uint64_t sampled) {
  double measured = (double)w->pair_measured[s],
         censored = (double)w->pair_censored[s] / measured;
  /* SHARDS's far references, or all of its references when it has no far
   * ones (a scope whose sampled references are all short) */
  double far = (double)(h->long_refs[s] ? h->long_refs[s] : sampled),
         far_drops = (double)(h->long_refs[s] ? h->long_drops[s] : h->drops[s]),
         far_strict =
             (double)(h->long_refs[s] ? h->long_strict[s] : h->strict_drops[s]);
  double drops = (double)w->pair_drops[s] / measured,
         strict = (double)w->pair_strict[s] / measured;
  if (far > 0) {
    drops += censored * far_drops / far;
    strict += censored * far_strict / far;
  }
  h->drops[s] = (uint64_t)llround(drops * (double)accesses);
  h->strict_drops[s] = (uint64_t)llround(strict * (double)accesses);
}

/* The windows that give the short distances at line size s: bursts, or
 * pooled where bursts measured fewer than PISA_STRATUM_MIN references (any
 * at all without pooled); NULL when neither measured any. */
static const struct burst_histograms *
windows_at(const struct burst_histograms *bursts,
           const struct burst_histograms *pooled, size_t s) {
  uint64_t enough = pooled ? PISA_STRATUM_MIN : 1;
  if (s < bursts->n_sizes && burst_histograms_measured(bursts, s) >= enough)
    return bursts;
  if (pooled && s < pooled->n_sizes && burst_histograms_measured(pooled, s))
    return pooled;
  return NULL;
}

/* The counts of a run sampled from the start are scaled here; those
 * after the memory budget's steps were weighted as they were counted
 * (consume.c), relative to the run's rate. */
PISA_HIDDEN void pisa_estimate_histograms(struct reuse_histograms *h,
                                          const struct burst_histograms *bursts,
                                          const struct burst_histograms *pooled,
                                          uint64_t accesses) {
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  double rate = c->rate;
  uint64_t threshold = c->reuse_bursts.threshold_bytes;
  /* per size, the references its stream sampled: a pair's drops are
   * counted over the stream of its larger size (consume.c add_bins) */
  uint64_t sampled[LOCALITY_MAX_SIZES], any = 0;
  for (size_t s = 0; s < h->n_sizes; s++) {
    sampled[s] = 0;
    for (unsigned b = 0; b < LOCALITY_BINS; b++)
      sampled[s] += h->counts[s][b];
    any |= sampled[s];
  }
  int windows = windows_at(bursts, pooled, 0) != NULL;
  if ((rate == 1 && !pisa_group_steps(PISA_CONSUME_REUSE)) ||
      (!any && !windows))
    return;
  for (size_t s = 0; s < h->n_sizes; s++) {
    unsigned unit_shift =
        s < c->fine_sizes ? c->fine_reuse.unit_shift : c->reuse.shift;
    for (unsigned b = 0; b < LOCALITY_BINS; b++)
      h->counts[s][b] = scaled(h->counts[s][b], rate);
    const struct burst_histograms *w = windows_at(bursts, pooled, s);
    if (w)
      burst_estimate(
          h->counts[s], w->exact[s], w->censored[s],
          burst_cut(threshold, h->line_bytes[s]),
          burst_resolved(rate, UINT64_C(1) << unit_shift, h->line_bytes[s]),
          accesses);
    else
      adjust_bin0(h->counts[s], accesses);
  }
  for (size_t s = 0; s + 1 < h->n_sizes; s++) {
    const struct burst_histograms *w = windows_at(bursts, pooled, s);
    if (w && w->pair_measured[s]) {
      windowed_drops(h, w, s, accesses, sampled[s + 1]);
      continue;
    }
    h->drops[s] = drops_estimate(h->drops[s], sampled[s + 1], accesses);
    h->strict_drops[s] =
        drops_estimate(h->strict_drops[s], sampled[s + 1], accesses);
  }
}

PISA_HIDDEN void pisa_estimate_counts(json_object *o, double scale) {
  json_object_object_foreach(o, key, value) {
    if (json_object_is_type(value, json_type_object))
      pisa_estimate_counts(value, scale);
    else if (json_object_is_type(value, json_type_int))
      json_object_object_add(
          o, key,
          json_object_new_uint64(times(json_object_get_uint64(value), scale)));
  }
}

/* A footprint object of a scope none of whose units was sampled: each
 * unit it touched counted as touched whole (an upper bound). */
static void whole_units(json_object *footprint, const struct aggregate *a) {
  uint64_t bytes = (uint64_t)unit_counts_units(&a->units) << a->units.shift;
  json_object *blocks;
  json_object_object_add(footprint, "bytes", json_object_new_uint64(bytes));
  if (!json_object_object_get_ex(footprint, "blocks", &blocks))
    return;
  json_object_object_foreach(blocks, key, value) {
    (void)value;
    uint64_t size = strtoull(key, NULL, 10);
    json_object_object_add(blocks, key,
                           json_object_new_uint64(size ? bytes / size : 0));
  }
}

/* Whether a has its memory entropy estimate from the units, made now if
 * not yet (the totals' is asked for by the document and by its config). */
static int units_estimate(struct aggregate *a) {
  if (!a->entropy_estimated) {
    struct sample_filter f = space_filter();
    a->entropy_estimated =
        with_units(a) && unit_entropy_estimate(&a->units, &a->entropy, &f,
                                               pisa_config.entropy_bits,
                                               a->entropy_estimate,
                                               &a->entropy_error) == 0
            ? 1
            : -1;
  }
  return a->entropy_estimated > 0;
}

PISA_HIDDEN json_object *pisa_estimate_entropy(struct aggregate *a) {
  if (space_rate() == 1 || !units_estimate(a))
    return NULL;
  json_object *array = json_object_new_array();
  for (unsigned k = 0; k <= pisa_config.entropy_bits; k++)
    json_object_array_add(array,
                          json_object_new_double(a->entropy_estimate[k]));
  return array;
}

PISA_HIDDEN void pisa_estimate_json(json_object *o, struct aggregate *a) {
  json_object *v;
  double rate = space_rate();
  if (rate == 1)
    return;
  if (json_object_object_get_ex(o, "footprint", &v)) {
    double scale = pisa_footprint_scale(a);
    if (scale > 0)
      pisa_estimate_counts(v, scale);
    else
      whole_units(v, a);
  }
  /* an estimate from the units is made by pisa_estimate_entropy */
  if (!json_object_object_get_ex(o, "memory_entropy", &v) ||
      units_estimate(a) || !a->entropy.accesses)
    return;
  for (size_t k = 0; k < json_object_array_length(v); k++) {
    double h =
        json_object_get_double(json_object_array_get_idx(v, k)) - log2(rate);
    json_object_array_put_idx(v, k, json_object_new_double(h > 64 ? 64 : h));
  }
}

/* ---- config.sampling ---------------------------------------------------- */

/* Blocks that the threads' engines of line size s saw: at the largest
 * size, those of the reuse filter's size, the sampled units of the
 * reuse family; at the largest fine size, the fine stream's. */
static uint64_t engine_blocks(size_t s) {
  uint64_t n = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    if (t->reuse[s])
      n += reuse_distinct_blocks(t->reuse[s]);
  return n;
}

static uint64_t reuse_units(void) {
  return engine_blocks(pisa_config.n_line_sizes - 1);
}

/* The bursts the threads analysed for a temporal group, at its last
 * period: those that started in a thread's n instances, one at
 * burst_offset and every period after it. */
static uint64_t burst_coverage(unsigned g, uint64_t period) {
  uint64_t bursts = 0, offset = pisa_config.sampling.burst_offset % period;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
    uint64_t n = g == PISA_CONSUME_SCHED ? t->sched_bursts.instances
                                         : t->branch_bursts.instances;
    bursts += n > offset ? (n - offset + period - 1) / period : 0;
  }
  return bursts;
}

/* The windows the threads' reuse groups started. */
static uint64_t reuse_windows(void) {
  uint64_t n = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    n += t->bursts.windows;
  return n;
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

static json_object *temporal_json(unsigned g) {
  unsigned steps = pisa_group_steps(g);
  uint64_t period = pisa_group_burst_period(g, steps);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "method", json_object_new_string("temporal"));
  json_object_object_add(o, "rate",
                         json_object_new_double(pisa_group_rate(g, steps)));
  json_object_object_add(
      o, "burst_instances",
      json_object_new_uint64(pisa_config.sampling.burst_instances));
  json_object_object_add(o, "period_instances", json_object_new_uint64(period));
  json_object_object_add(o, "bursts",
                         json_object_new_uint64(burst_coverage(g, period)));
  return o;
}

/* The fine stream of the reuse group (config.h fine_reuse), when it has
 * one: the line sizes it feeds, its unit and sampled units, and its error
 * (as the family's, plus window_error when windows measured). */
static void add_fine_units(json_object *o, const struct sample_filter *filter,
                           double window_error) {
  size_t fine = pisa_config.sampling.fine_sizes;
  if (!fine)
    return;
  uint64_t units = engine_blocks(fine - 1);
  json_object *f = json_object_new_object();
  json_object_object_add(
      f, "line_bytes_max",
      json_object_new_uint64(pisa_config.line_sizes[fine - 1]));
  json_object_object_add(
      f, "unit_bytes",
      json_object_new_uint64(UINT64_C(1)
                             << pisa_config.sampling.fine_reuse.unit_shift));
  json_object_object_add(f, "sampled_units", json_object_new_uint64(units));
  if (units)
    json_object_object_add(
        f, "error",
        json_object_new_double(window_error +
                               sqrt((1 - filter->rate) / (double)units)));
  json_object_object_add(o, "fine", f);
}

/* The reuse family of a sampled run: SHARDS for the long distances and
 * the windows for the short ones.  Its error is a bound on the standard
 * error of a miss ratio or a histogram share: at most 1 / (2 sqrt(k))
 * from k windows (a share's variance is at most 1/4 per window, the
 * references of one window counted as one), plus SHARDS's relative error
 * of the share above the threshold. */
static json_object *reuse_json(const struct sample_filter *filter) {
  const struct burst_config *c = &pisa_config.sampling.reuse_bursts;
  uint64_t units = reuse_units(), windows = reuse_windows();
  json_object *o = spatial_json(filter, units, 1);
  json_object_object_add(o, "method", json_object_new_string("spatial+bursts"));
  json_object_object_add(o, "window_accesses",
                         json_object_new_uint64(c->window));
  json_object_object_add(o, "period_accesses",
                         json_object_new_uint64(c->period));
  json_object_object_add(o, "threshold_bytes",
                         json_object_new_uint64(c->threshold_bytes));
  json_object_object_add(o, "windows", json_object_new_uint64(windows));
  double window_error = windows ? 0.5 / sqrt((double)windows) : 0;
  if (windows) {
    double shards = units ? sqrt((1 - filter->rate) / (double)units) : 1;
    json_object_object_add(o, "window_error",
                           json_object_new_double(window_error));
    json_object_object_add(o, "error",
                           json_object_new_double(window_error + shards));
  }
  add_fine_units(o, filter, window_error);
  return o;
}

/* The branch lengths sampled by context in a sampled run, each with the
 * share of its (branch, history) contexts kept. */
static json_object *history_rates_json(void) {
  json_object *a = json_object_new_array();
  size_t n = sizeof pisa_branch_histories / sizeof *pisa_branch_histories;
  for (size_t i = 0; i < n; i++) {
    if (pisa_branch_histories[i] <= BRANCH_EXACT_HISTORY)
      continue;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "history",
                           json_object_new_int((int)pisa_branch_histories[i]));
    json_object_object_add(
        o, "rate",
        json_object_new_double(branch_sampling_rate(&pisa_branch_sampling, i)));
    json_object_array_add(a, o);
  }
  return a;
}

/* A space family of a run sampled from the start (unit_counts.h): the
 * units the temporal sample saw, the held ones, and the error: for
 * entropy the standard error of the ratio estimate's part (bits, the
 * largest over k), for the footprints the relative standard error of a
 * count scaled from the hashed units. */
static json_object *units_json(const struct sample_filter *f,
                               struct aggregate *totals, unsigned bit) {
  const struct unit_counts *u = &totals->units;
  json_object *o = spatial_json(f, space_units(totals, f->shift), 1);
  json_object_object_add(o, "method", json_object_new_string("spatial+units"));
  json_object_object_add(o, "units",
                         json_object_new_uint64(unit_counts_units(u)));
  json_object_object_add(o, "held_units",
                         json_object_new_uint64(unit_counts_held(u)));
  if (bit & PISA_FAMILY(ENTROPY)) {
    json_object_object_del(o, "error");
    if (units_estimate(totals))
      json_object_object_add(o, "error",
                             json_object_new_double(totals->entropy_error));
  }
  return o;
}

/* Family f's entry: its method, rate and error estimate (the relative
 * standard error of a count scaled from n sampled units,
 * sqrt((1 - rate) / n), and for entropy the bits that error moves log2 N
 * by), and where the memory budget switched it. */
static json_object *family_json(unsigned f, struct aggregate *totals) {
  unsigned g = pisa_family_group(f), bit = 1u << f;
  struct sample_filter filter = pisa_group_filter(g, pisa_group_steps(g));
  json_object *o;
  if (bit == PISA_FAMILY(REUSE) && pisa_sampled())
    o = reuse_json(&filter);
  else if (g == PISA_CONSUME_REUSE) {
    o = spatial_json(&filter, reuse_units(), 1);
    add_fine_units(o, &filter, 0);
  } else if (g == PISA_CONSUME_SPACE && with_units(totals))
    o = units_json(&filter, totals, bit);
  else if (g == PISA_CONSUME_SPACE)
    o = spatial_json(&filter, space_units(totals, filter.shift),
                     bit & PISA_FAMILY(ENTROPY) ? 1 / M_LN2 : 1);
  else
    o = temporal_json(g);
  if (bit == PISA_FAMILY(BRANCH) && pisa_sampled())
    json_object_object_add(o, "history_rates", history_rates_json());
  pisa_fallback_json(f, o);
  return o;
}

/* Sampled runs (--sample) give every enabled family; exact ones the
 * families the memory budget switched, if any. */
PISA_HIDDEN json_object *pisa_sampling_json(struct aggregate *totals) {
  json_object *families = json_object_new_object();
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if ((pisa_config.families & (1u << f)) &&
        (pisa_sampled() || pisa_group_steps(pisa_family_group(f))))
      json_object_object_add(families, pisa_family_names[f],
                             family_json(f, totals));
  if (!json_object_object_length(families)) {
    json_object_put(families);
    return NULL;
  }
  json_object *o = json_object_new_object();
  json_object_object_add(o, "rate",
                         json_object_new_double(pisa_config.sampling.rate));
  json_object_object_add(o, "seed",
                         json_object_new_uint64(pisa_config.sampling.seed));
  json_object_object_add(o, "families", families);
  return o;
}
