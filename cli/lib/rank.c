/* rank.c: the NMC offload model of rank.h: the terms of a METRICS object,
 * a roofline-style time on each side of the machine, and the explanation
 * of every term. */
#include "rank.h"
#include "cmdline.h"
#include "docmetrics.h"
#include "docset.h"
#include "jsonpath.h"
#include "numbers.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rank_model_init(struct rank_model *model) {
  machine_default(&model->machine);
}

/* ---- Terms -------------------------------------------------------------- */

/* The ILP schedule with the largest finite window: its window, ILP and
 * memory-category ILP. Unlimited windows (0) grow with the input. */
static void read_ilp(json_object *metrics, struct rank_terms *t) {
  json_object *all = json_at(metrics, "ilp");
  size_t n = all ? json_object_array_length(all) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *s = json_object_array_get_idx(all, i);
    double window = json_count_at(s, "window"), ilp, mlp = 1;
    if (window <= 0 || window <= t->window || !json_number_at(s, "ilp", &ilp))
      continue;
    json_number_at(s, "categories/memory", &mlp);
    t->has_ilp = 1;
    t->window = window;
    t->ilp = ilp;
    t->mlp = mlp;
  }
}

static struct rank_terms read_terms(json_object *metrics, int counter) {
  struct rank_terms t = {0};
  if (!counter) {
    read_ilp(metrics, &t);
    t.has_dlp = json_number_at(metrics, "dlp/dlp2", &t.dlp2);
    t.refs = metrics_reuse_references(metrics, RANK_LINE_BYTES);
    t.has_reuse = t.refs > 0;
  }
  t.counter = counter;
  t.ops = json_count_at(metrics, "instructions");
  t.bytes = json_count_at(metrics, "instruction_mix/bytes_loaded") +
            json_count_at(metrics, "instruction_mix/bytes_stored");
  t.footprint = json_count_at(metrics, "footprint/bytes");
  return t;
}

/* ---- Times -------------------------------------------------------------- */

static double min2(double a, double b) { return a < b ? a : b; }
static double max2(double a, double b) { return a > b ? a : b; }

/* Lines that miss a cache of `cache_bytes`: from the reuse histogram, else
 * (counter mode) every byte loaded or stored, as no cache is modelled. */
static double misses_of(json_object *metrics, const struct rank_terms *t,
                        double cache_bytes, int *interpolated) {
  double ratio;
  if (t->has_reuse &&
      metrics_miss_estimate(metrics, (uint64_t)cache_bytes, RANK_LINE_BYTES,
                            &ratio, interpolated))
    return ratio * t->refs;
  return t->bytes / RANK_LINE_BYTES;
}

static struct rank_time time_on(const struct machine_side *s,
                                json_object *metrics,
                                const struct rank_terms *t) {
  struct rank_time r = {0};
  r.misses = misses_of(metrics, t, s->llc_bytes, &r.interpolated);
  r.traffic = RANK_LINE_BYTES * r.misses;
  r.issue = t->has_ilp ? min2(s->issue_width, max2(1, t->ilp)) : s->issue_width;
  r.lanes = t->has_dlp ? min2(s->simd_lanes, max2(1, t->dlp2)) : 1;
  r.inflight = t->has_ilp ? min2(s->mlp, max2(1, t->mlp)) : s->mlp;
  r.compute = t->ops / (s->cores * s->frequency_ghz * r.issue * r.lanes);
  r.bandwidth = r.traffic / s->bandwidth_gbs;
  r.latency = r.misses * s->latency_ns / (s->cores * r.inflight);
  r.time = max2(r.compute, max2(r.bandwidth, r.latency));
  return r;
}

const char *rank_bound(const struct rank_time *t) {
  if (t->time == t->compute)
    return "compute";
  return t->time == t->bandwidth ? "bandwidth" : "latency";
}

void rank_evaluate(const struct rank_model *model, json_object *metrics,
                   int counter, struct rank_result *r) {
  const struct machine *m = &model->machine;
  *r = (struct rank_result){.t = read_terms(metrics, counter)};
  r->valid = r->t.ops > 0;
  if (!r->valid)
    return;
  r->host = time_on(&m->host, metrics, &r->t);
  r->nmc = time_on(&m->nmc, metrics, &r->t);
  r->intensity = r->host.traffic > 0 ? r->t.ops / r->host.traffic : -1;
  r->speedup = r->host.time / r->nmc.time;
  r->score = log2(r->speedup);
  r->fits = r->t.has_reuse && r->t.footprint > 0 &&
            r->t.footprint <= m->host.llc_bytes;
}

/* ---- Explanation -------------------------------------------------------- */

/* A time in ns with a unit people read: "850 ns", "1.23 ms". */
static const char *format_ns(char *buf, size_t n, double ns) {
  static const char *const Units[] = {"ns", "us", "ms", "s"};
  int u = 0;
  for (; u < 3 && ns >= 1000; u++)
    ns /= 1000;
  snprintf(buf, n, "%.3g %s", ns, Units[u]);
  return buf;
}

static void explain_side(struct strbuf *b, const char *indent, const char *name,
                         const struct machine_side *s,
                         const struct rank_time *t) {
  char cache[32], traffic[32], c[32], w[32], l[32], total[32];
  sb_printf(b,
            "%s%-11s %s past its %s cache (%.4g lines miss); time %s, "
            "%s-bound\n",
            indent, name, format_bytes(traffic, sizeof traffic, t->traffic),
            format_bytes(cache, sizeof cache, s->llc_bytes), t->misses,
            format_ns(total, sizeof total, t->time), rank_bound(t));
  sb_printf(b,
            "%s  compute   %s = ops / (%g cores x %g GHz x issue %.3g x "
            "%.3g SIMD lanes)\n",
            indent, format_ns(c, sizeof c, t->compute), s->cores,
            s->frequency_ghz, t->issue, t->lanes);
  sb_printf(b, "%s  bandwidth %s = traffic / %g GB/s\n", indent,
            format_ns(w, sizeof w, t->bandwidth), s->bandwidth_gbs);
  sb_printf(b,
            "%s  latency   %s = misses x %g ns / (%g cores x %.3g misses "
            "in flight)\n",
            indent, format_ns(l, sizeof l, t->latency), s->latency_ns, s->cores,
            t->inflight);
}

static void explain_terms(struct strbuf *b, const struct rank_terms *t,
                          const char *indent) {
  char fp[32];
  sb_printf(b, "%swork        %.4g operations (instructions executed)\n",
            indent, t->ops);
  sb_printf(b,
            "%saccesses    %.4g bytes loaded and stored (%.3g per op); "
            "footprint %s\n",
            indent, t->bytes, t->bytes / t->ops,
            t->footprint > 0 ? format_bytes(fp, sizeof fp, t->footprint)
                             : "n/a");
  if (t->has_reuse)
    sb_printf(b,
              "%straffic     misses from the 64-byte reuse histogram (%.4g "
              "references):\n%s            cold, or reuse distance >= the "
              "cache's lines\n",
              indent, t->refs, indent);
  else
    sb_printf(b,
              "%straffic     no reuse histogram (%s): traffic = bytes "
              "accessed, no cache\n",
              indent, t->counter ? "counter mode" : "not in the document");
  if (t->has_ilp)
    sb_printf(b,
              "%sparallelism ILP %.3g, memory ILP %.3g in a window of %.0f "
              "instructions\n",
              indent, t->ilp, t->mlp, t->window);
  else
    sb_printf(b,
              "%sparallelism no bounded-window ILP: full issue width, all "
              "misses in flight\n",
              indent);
  if (t->has_dlp)
    sb_printf(b,
              "%sSIMD        DLP2 %.3g: lanes used = min(SIMD lanes, "
              "DLP2)\n",
              indent, t->dlp2);
  else
    sb_printf(b, "%sSIMD        no DLP2: one lane assumed\n", indent);
}

void rank_explain(struct strbuf *b, const struct rank_model *model,
                  const struct rank_result *r, const char *indent) {
  const struct machine *m = &model->machine;
  if (!r->valid) {
    sb_printf(b, "%sno instructions executed: no score\n", indent);
    return;
  }
  explain_terms(b, &r->t, indent);
  if (r->intensity >= 0)
    sb_printf(b,
              "%sintensity   %.4g operations per byte past the host's "
              "cache\n",
              indent, r->intensity);
  explain_side(b, indent, "host", &m->host, &r->host);
  explain_side(b, indent, "near-memory", &m->nmc, &r->nmc);
  sb_printf(b,
            "%sspeed-up    host time / near-memory time = %.3g; score = "
            "log2 = %+.2f\n",
            indent, r->speedup, r->score);
  if (r->fits) {
    char fp[32], llc[32];
    sb_printf(b,
              "%swarning     the footprint %s fits the host's %s cache: "
              "cold misses only;\n%s            capacity misses from %s "
              "(%.3gx this footprint) up\n",
              indent, format_bytes(fp, sizeof fp, r->t.footprint),
              format_bytes(llc, sizeof llc, m->host.llc_bytes), indent, llc,
              m->host.llc_bytes / r->t.footprint);
  }
}

/* ---- Candidates --------------------------------------------------------- */

/* "LABEL:function" for a function, "LABEL:function:line" for a loop (its
 * first line, else its id), LABEL for the application. */
static char *candidate_label(const struct pisa_doc *doc, json_object *entry) {
  json_object *name = json_at(entry, "name");
  if (!entry)
    return xstrdup(doc->label);
  if (name)
    return xasprintf("%s:%s", doc->label, json_object_get_string(name));
  json_object *line = json_at(entry, "line");
  return xasprintf("%s:%s:%s%s", doc->label,
                   json_object_get_string(json_at(entry, "function")),
                   line ? "" : "loop",
                   json_object_get_string(line ? line : json_at(entry, "id")));
}

static void add_candidate(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc, json_object *function) {
  c->list = xrealloc(c->list, (c->n + 1) * sizeof *c->list);
  struct rank_candidate *k = &c->list[c->n++];
  k->doc = doc;
  k->function = function;
  k->label = candidate_label(doc, function);
  k->function_name = json_object_get_string(
      json_at(function, json_at(function, "name") ? "name" : "function"));
  rank_evaluate(model, function ? function : doc_metrics_of_record(doc),
                doc_is_counter(doc), &k->result);
}

void rank_add_application(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc) {
  add_candidate(c, model, doc, NULL);
}

/* The entries of the document's list `key` that pass the share test. */
static void add_entries(struct rank_candidates *c,
                        const struct rank_model *model,
                        const struct pisa_doc *doc, const char *key,
                        double min_share, int all) {
  json_object *functions = json_at(doc->root, key);
  double total = metrics_accesses(doc_metrics_of_record(doc));
  for (size_t i = 0; i < json_object_array_length(functions); i++) {
    json_object *f = json_object_array_get_idx(functions, i);
    double share = total > 0 ? metrics_accesses(f) / total : 0;
    if (all || share >= min_share)
      add_candidate(c, model, doc, f);
  }
}

void rank_add_functions(struct rank_candidates *c,
                        const struct rank_model *model,
                        const struct pisa_doc *doc, double min_share, int all) {
  add_entries(c, model, doc, "functions", min_share, all);
}

void rank_add_loops(struct rank_candidates *c, const struct rank_model *model,
                    const struct pisa_doc *doc, double min_share, int all) {
  add_entries(c, model, doc, "loops", min_share, all);
}

static int by_score(const void *a, const void *b) {
  const struct rank_result *x = &((const struct rank_candidate *)a)->result,
                           *y = &((const struct rank_candidate *)b)->result;
  if (x->valid != y->valid)
    return y->valid - x->valid;
  if (x->valid && x->score != y->score)
    return x->score < y->score ? 1 : -1;
  return strcmp(((const struct rank_candidate *)a)->label,
                ((const struct rank_candidate *)b)->label);
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

/* ---- Options ------------------------------------------------------------ */

int rank_parse_llc_bytes(const char *s, uint64_t *out) {
  return parse_size(s, RANK_LINE_BYTES, 0x1p50, out);
}

int rank_model_option(const struct command_line *line, struct rank_model *model,
                      int opt, const char *arg) {
  uint64_t llc;
  char err[800];
  if (opt == 'M' && machine_load(&model->machine, arg, err, sizeof err)) {
    error("%s: %s", line->name, err);
    return 2;
  }
  if (opt == 'l' && rank_parse_llc_bytes(arg, &llc))
    return usage_error(line, "--llc-bytes wants a size >= 64 bytes, not '%s'",
                       arg);
  if (opt == 'l')
    model->machine.host.llc_bytes = (double)llc;
  return 0;
}
