/* rank.c: the NMC offload-candidate model of rank.h: fixed normalisations
 * of the metrics a METRICS object holds, weighted and summed. */
#include "rank.h"
#include "docmetrics.h"
#include "docset.h"
#include "jsonpath.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  double weight;
} Metrics[RANK_NUM_METRICS] = {
    [RANK_INTENSITY] = {"access", 1}, [RANK_BYTES] = {"bytes", 1},
    [RANK_ENTROPY] = {"entropy", 1},  [RANK_SPATIAL] = {"spatial", 1},
    [RANK_MISS] = {"miss", 2},        [RANK_DLP] = {"dlp", 1},
    [RANK_BBLP] = {"bblp", 1},        [RANK_PBBLP] = {"pbblp", 1},
};

/* Fixed scales, so that a score means the same in every run: the value at
 * which a metric reaches 1 (docs/ranking.md says why these). */
#define INTENSITY_FULL 0.5    /* accesses per instruction */
#define BYTES_FULL 4.0        /* bytes per instruction */
#define ENTROPY_FULL 24.0     /* bits: 16 Mi equally used 64-byte lines */
#define PARALLELISM_FULL 64.0 /* DLP, BBLP, PBBLP: log2 scale from 1 */
#define ENTROPY_CUT 6         /* low bits cut: 64-byte line granularity */

const char *rank_metric_name(enum rank_metric metric) {
  return Metrics[metric].name;
}

void rank_model_init(struct rank_model *model) {
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    model->weights[m] = Metrics[m].weight;
  model->llc_bytes = 32u << 20;
}

static int metric_by_name(const char *name, size_t len) {
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    if (strlen(Metrics[m].name) == len &&
        strncmp(Metrics[m].name, name, len) == 0)
      return m;
  return -1;
}

const struct name_table rank_metric_names = NAME_TABLE_INIT(Metrics);

/* "bad weight 'X': want NAME=W ..." with the names and the closest one. */
static void bad_weight(const char *spec, size_t len, size_t name_len, char *err,
                       size_t errlen) {
  char *names = join_names(rank_metric_names, ", ");
  char *word = xasprintf("%.*s", (int)name_len, spec);
  const char *close = suggest_name(word, rank_metric_names);
  snprintf(err, errlen,
           "bad weight '%.*s': want NAME=W with W >= 0 and NAME one of "
           "%s%s%s%s",
           (int)len, spec, names, close ? "; did you mean '" : "",
           close ? close : "", close ? "'?" : "");
  free(names);
  free(word);
}

int rank_parse_weights(struct rank_model *model, const char *spec, char *err,
                       size_t errlen) {
  while (*spec) {
    size_t len = strcspn(spec, ",");
    const char *eq = memchr(spec, '=', len);
    int m = eq ? metric_by_name(spec, (size_t)(eq - spec)) : -1;
    char *end;
    double w = eq ? strtod(eq + 1, &end) : -1;
    if (m < 0 || end != spec + len || eq + 1 == end || !(w >= 0) ||
        !isfinite(w)) {
      bad_weight(spec, len, eq ? (size_t)(eq - spec) : len, err, errlen);
      return -1;
    }
    model->weights[m] = w;
    spec += len + (spec[len] == ',');
  }
  return 0;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Parallelism p >= 1 on a log2 scale: 1 -> 0, PARALLELISM_FULL -> 1. */
static double parallelism_scale(double p) {
  return p > 0 ? clamp01(log2(p) / log2(PARALLELISM_FULL)) : 0;
}

static void set_metric(struct rank_result *r, int m, double value,
                       double normalised) {
  r->present[m] = 1;
  r->value[m] = value;
  r->normalised[m] = clamp01(normalised);
}

static void measure(const struct rank_model *model, json_object *metrics,
                    struct rank_result *r) {
  double instructions = json_count_at(metrics, "instructions"), v;
  if (instructions > 0) {
    v = metrics_accesses(metrics) / instructions;
    set_metric(r, RANK_INTENSITY, v, v / INTENSITY_FULL);
    v = (json_count_at(metrics, "instruction_mix/bytes_loaded") +
         json_count_at(metrics, "instruction_mix/bytes_stored")) /
        instructions;
    set_metric(r, RANK_BYTES, v, v / BYTES_FULL);
  }
  if (metrics_entropy(metrics, ENTROPY_CUT, &v))
    set_metric(r, RANK_ENTROPY, v, v / ENTROPY_FULL);
  if (json_number_at(metrics, "spatial_locality/score_strict", &v))
    set_metric(r, RANK_SPATIAL, v, 1 - v);
  if (metrics_miss_estimate(metrics, model->llc_bytes, RANK_LINE_BYTES, &v,
                            &r->miss_interpolated))
    set_metric(r, RANK_MISS, v, v);
  if (json_number_at(metrics, "dlp/dlp2", &v))
    set_metric(r, RANK_DLP, v, parallelism_scale(v));
  if (json_number_at(metrics, "bblp/bblp_smart", &v))
    set_metric(r, RANK_BBLP, v, parallelism_scale(v));
  if (json_number_at(metrics, "bblp/pbblp", &v))
    set_metric(r, RANK_PBBLP, v, parallelism_scale(v));
}

void rank_evaluate(const struct rank_model *model, json_object *metrics,
                   struct rank_result *r) {
  *r = (struct rank_result){0};
  measure(model, metrics, r);
  double weights = 0;
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    if (r->present[m])
      weights += model->weights[m];
  r->score = weights > 0 ? 0 : -1;
  for (int m = 0; m < RANK_NUM_METRICS && weights > 0; m++)
    if (r->present[m]) {
      r->contribution[m] = model->weights[m] * r->normalised[m] / weights;
      r->score += r->contribution[m];
    }
}

/* ---- Candidates --------------------------------------------------------- */

static void add_candidate(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc, json_object *function) {
  c->list = xrealloc(c->list, (c->n + 1) * sizeof *c->list);
  struct rank_candidate *k = &c->list[c->n++];
  k->doc = doc;
  k->function = function;
  k->label = function
                 ? xasprintf("%s:%s", doc->label,
                             json_object_get_string(json_at(function, "name")))
                 : xstrdup(doc->label);
  rank_evaluate(model, function ? function : json_at(doc->root, "totals"),
                &k->result);
}

void rank_add_application(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc) {
  add_candidate(c, model, doc, NULL);
}

void rank_add_functions(struct rank_candidates *c,
                        const struct rank_model *model,
                        const struct pisa_doc *doc, double min_share, int all) {
  json_object *functions = json_at(doc->root, "functions");
  double total = metrics_accesses(json_at(doc->root, "totals"));
  for (size_t i = 0; i < json_object_array_length(functions); i++) {
    json_object *f = json_object_array_get_idx(functions, i);
    double share = total > 0 ? metrics_accesses(f) / total : 0;
    if (all || share >= min_share)
      add_candidate(c, model, doc, f);
  }
}

static int by_score(const void *a, const void *b) {
  const struct rank_candidate *x = a, *y = b;
  if (x->result.score != y->result.score)
    return x->result.score < y->result.score ? 1 : -1;
  return strcmp(x->label, y->label);
}

void rank_sort(struct rank_candidates *c) {
  if (c->n)
    qsort(c->list, c->n, sizeof *c->list, by_score);
}

void rank_candidates_free(struct rank_candidates *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->list[i].label);
  free(c->list);
  *c = (struct rank_candidates){0};
}

/* ---- Parsing ------------------------------------------------------------ */

int rank_parse_llc_bytes(const char *s, uint64_t *out) {
  char *end;
  double v = strtod(s, &end);
  const char *units = "KMG";
  const char *unit = *end ? strchr(units, *end & ~0x20) : NULL;
  if (end == s || (*end && (!unit || end[1])))
    return -1;
  v *= unit ? pow(1024, (double)(unit - units + 1)) : 1;
  if (!(v >= RANK_LINE_BYTES && v <= 0x1p50))
    return -1;
  *out = (uint64_t)v;
  return 0;
}

int rank_model_option(struct rank_model *model, int opt, const char *arg,
                      char *err, size_t errlen) {
  char why[400];
  if (opt == 'w' && rank_parse_weights(model, arg, why, sizeof why)) {
    snprintf(err, errlen, "--weights: %s", why);
    return -1;
  }
  if (opt == 'l' && rank_parse_llc_bytes(arg, &model->llc_bytes)) {
    snprintf(err, errlen, "--llc-bytes wants a size >= 64 bytes, not '%s'",
             arg);
    return -1;
  }
  return 0;
}
