/* cmd_rank.c: `pisa-char rank`, which orders applications (or their
 * functions) as near-memory-computing offload candidates with the model of
 * rank.h, and prints every metric's contribution so a user sees why. */
#include "commands.h"
#include "docset.h"
#include "rank.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char rank [options] FILE|DIR...\n"
    "\n"
    "Ranks applications (the totals of each document), or with --by function\n"
    "every function of every document, as candidates for near-memory\n"
    "computing. score = sum of weight x normalised metric over the metrics a\n"
    "document holds, divided by the sum of their weights; each metric column\n"
    "is its contribution to the score (n/a: not in the document). The model\n"
    "is explained in docs/ranking.md. DIR means every *.json file in it.\n"
    "\n"
    "  --by app|function   rank applications (default) or functions\n"
    "  --top N             print the N best candidates only\n"
    "  --format table|csv|json\n"
    "                      output format (default table)\n"
    "  --weights LIST      name=w,... with w >= 0; names: access, bytes,\n"
    "                      entropy, spatial, miss, dlp, bblp, pbblp\n"
    "                      (defaults 1, 1, 1, 1, 2, 1, 1, 1)\n"
    "  --llc-bytes N       last-level cache capacity for the miss ratio,\n"
    "                      optionally with K, M or G (x1024); default 32M\n"
    "  --min-share X       leave out functions that make less than X (0..1)\n"
    "                      of their program's memory accesses (default 0.01)\n"
    "  --all               keep every function\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 on success, 2 on bad usage or an unreadable, malformed\n"
    "or invalid document.\n";

/* ---- The model ---------------------------------------------------------- */

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
#define LLC_LINE_BYTES 64

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
      snprintf(err, errlen,
               "bad weight '%.*s': want NAME=W with W >= 0 and NAME one of "
               "access, bytes, entropy, spatial, miss, dlp, bblp, pbblp",
               (int)len, spec);
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
  if (metrics_miss_estimate(metrics, model->llc_bytes, LLC_LINE_BYTES, &v,
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

struct candidate {
  const struct pisa_doc *doc;
  json_object *function; /* NULL for an application */
  char *label;
  struct rank_result result;
};

struct options {
  struct rank_model model;
  int by_function, all;
  long top;
  double min_share;
  enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format;
};

static void add_candidate(struct candidate **list, size_t *n,
                          const struct options *o, const struct pisa_doc *doc,
                          json_object *function) {
  *list = xrealloc(*list, (*n + 1) * sizeof **list);
  struct candidate *c = &(*list)[(*n)++];
  c->doc = doc;
  c->function = function;
  c->label = function
                 ? xasprintf("%s:%s", doc->label,
                             json_object_get_string(json_at(function, "name")))
                 : xstrdup(doc->label);
  rank_evaluate(&o->model, function ? function : json_at(doc->root, "totals"),
                &c->result);
}

static void add_functions(struct candidate **list, size_t *n,
                          const struct options *o, const struct pisa_doc *doc) {
  json_object *functions = json_at(doc->root, "functions");
  double total = metrics_accesses(json_at(doc->root, "totals"));
  for (size_t i = 0; i < json_object_array_length(functions); i++) {
    json_object *f = json_object_array_get_idx(functions, i);
    double share = total > 0 ? metrics_accesses(f) / total : 0;
    if (o->all || share >= o->min_share)
      add_candidate(list, n, o, doc, f);
  }
}

static int by_score(const void *a, const void *b) {
  const struct candidate *x = a, *y = b;
  if (x->result.score != y->result.score)
    return x->result.score < y->result.score ? 1 : -1;
  return strcmp(x->label, y->label);
}

/* ---- Output ------------------------------------------------------------- */

static void print_table(const struct candidate *c, size_t n,
                        const struct options *o) {
  char llc[32];
  uint64_t lines = o->model.llc_bytes / LLC_LINE_BYTES;
  int absent[RANK_NUM_METRICS] = {0};
  printf("NMC offload candidates (LLC %s, 64 B lines); columns after the "
         "candidate are each\nmetric's contribution: weight x normalised "
         "value / sum of the weights present\n\n",
         format_bytes(llc, sizeof llc, (double)o->model.llc_bytes));
  printf("%3s %5s  %-25s", "#", "score", "candidate");
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    printf(" %7.7s", Metrics[m].name);
  printf("\n%3s %5s  %-25s", "", "", "(weight)");
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    printf(" %7g", o->model.weights[m]);
  putchar('\n');
  for (size_t i = 0; i < n; i++) {
    const struct rank_result *r = &c[i].result;
    if (r->score < 0)
      printf("%3zu %5s  %-25.25s", i + 1, "n/a", c[i].label);
    else
      printf("%3zu %5.3f  %-25.25s", i + 1, r->score, c[i].label);
    for (int m = 0; m < RANK_NUM_METRICS; m++) {
      if (r->present[m])
        printf(" %7.3f", r->contribution[m]);
      else
        printf(" %7s", "n/a"), absent[m]++;
    }
    putchar('\n');
  }
  if (absent[RANK_DLP] + absent[RANK_BBLP] + absent[RANK_PBBLP])
    puts("\nn/a: not in the document; the parallelism metrics (dlp, bblp, "
         "pbblp) are\nabsent until pisa-char computes them, and a score "
         "covers only the metrics present.");
  if (lines & (lines - 1))
    printf("\nnote: %s / 64 B is not a power of two lines: the miss ratio "
           "is interpolated\nwithin a log2 reuse-distance bin.\n",
           llc);
}

/* A quoted CSV field: quotes inside are doubled (RFC 4180). */
static void print_csv_field(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"')
      putchar('"');
    putchar(*s);
  }
  putchar('"');
}

static void print_csv(const struct candidate *c, size_t n) {
  printf("rank,candidate,document,function,score");
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    printf(",%s_value,%s_normalised,%s_contribution", Metrics[m].name,
           Metrics[m].name, Metrics[m].name);
  putchar('\n');
  for (size_t i = 0; i < n; i++) {
    const struct rank_result *r = &c[i].result;
    printf("%zu,", i + 1);
    print_csv_field(c[i].label);
    putchar(',');
    print_csv_field(c[i].doc->path);
    putchar(',');
    print_csv_field(c[i].function
                        ? json_object_get_string(json_at(c[i].function, "name"))
                        : "");
    putchar(',');
    if (r->score >= 0)
      printf("%.6g", r->score);
    for (int m = 0; m < RANK_NUM_METRICS; m++) {
      if (r->present[m])
        printf(",%.6g,%.6g,%.6g", r->value[m], r->normalised[m],
               r->contribution[m]);
      else
        printf(",,,");
    }
    putchar('\n');
  }
}

static json_object *candidate_json(const struct candidate *c, size_t rank,
                                   const struct options *o) {
  const struct rank_result *r = &c->result;
  json_object *obj = json_object_new_object(), *metrics;
  json_object_object_add(obj, "rank", json_object_new_int64((int64_t)rank));
  json_object_object_add(obj, "candidate", json_object_new_string(c->label));
  json_object_object_add(obj, "document", json_object_new_string(c->doc->path));
  json_object_object_add(
      obj, "function",
      c->function ? json_object_get(json_at(c->function, "name")) : NULL);
  json_object_object_add(
      obj, "score", r->score >= 0 ? json_object_new_double(r->score) : NULL);
  json_object_object_add(obj, "metrics", metrics = json_object_new_object());
  for (int m = 0; m < RANK_NUM_METRICS; m++) {
    json_object *e = NULL;
    if (r->present[m]) {
      e = json_object_new_object();
      json_object_object_add(e, "value", json_object_new_double(r->value[m]));
      json_object_object_add(e, "normalised",
                             json_object_new_double(r->normalised[m]));
      json_object_object_add(e, "weight",
                             json_object_new_double(o->model.weights[m]));
      json_object_object_add(e, "contribution",
                             json_object_new_double(r->contribution[m]));
      if (m == RANK_MISS)
        json_object_object_add(e, "interpolated",
                               json_object_new_boolean(r->miss_interpolated));
    }
    json_object_object_add(metrics, Metrics[m].name, e);
  }
  return obj;
}

static void print_json(const struct candidate *c, size_t n,
                       const struct options *o) {
  json_object *root = json_object_new_object(), *list, *weights;
  json_object_object_add(
      root, "by", json_object_new_string(o->by_function ? "function" : "app"));
  json_object_object_add(root, "llc_bytes",
                         json_object_new_int64((int64_t)o->model.llc_bytes));
  json_object_object_add(root, "weights", weights = json_object_new_object());
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    json_object_object_add(weights, Metrics[m].name,
                           json_object_new_double(o->model.weights[m]));
  json_object_object_add(root, "candidates", list = json_object_new_array());
  for (size_t i = 0; i < n; i++)
    json_object_array_add(list, candidate_json(&c[i], i + 1, o));
  puts(json_object_to_json_string_ext(
      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(root);
}

/* ---- Command line ------------------------------------------------------- */

int rank_parse_llc_bytes(const char *s, uint64_t *out) {
  char *end;
  double v = strtod(s, &end);
  const char *units = "KMG";
  const char *unit = *end ? strchr(units, *end & ~0x20) : NULL;
  if (end == s || (*end && (!unit || end[1])))
    return -1;
  v *= unit ? pow(1024, (double)(unit - units + 1)) : 1;
  if (!(v >= LLC_LINE_BYTES && v <= 0x1p50))
    return -1;
  *out = (uint64_t)v;
  return 0;
}

static int parse_option(int opt, struct options *o, char **argv) {
  char err[512];
  if (opt == 'b' &&
      (strcmp(optarg, "app") == 0 || strcmp(optarg, "function") == 0))
    o->by_function = strcmp(optarg, "function") == 0;
  else if (opt == 'b')
    return cmd_usage_error("rank", usage_text,
                           "--by wants app or function, not '%s'", optarg);
  else if (opt == 't' && parse_long(optarg, 1, 1000000000, &o->top))
    return cmd_usage_error("rank", usage_text,
                           "--top wants a count >= 1, not '%s'", optarg);
  else if (opt == 'f' && strcmp(optarg, "table") == 0)
    o->format = FORMAT_TABLE;
  else if (opt == 'f' && strcmp(optarg, "csv") == 0)
    o->format = FORMAT_CSV;
  else if (opt == 'f' && strcmp(optarg, "json") == 0)
    o->format = FORMAT_JSON;
  else if (opt == 'f')
    return cmd_usage_error("rank", usage_text,
                           "--format wants table, csv or json, not '%s'",
                           optarg);
  else if (opt == 'w' && rank_parse_weights(&o->model, optarg, err, sizeof err))
    return cmd_usage_error("rank", usage_text, "--weights: %s", err);
  else if (opt == 'l' && rank_parse_llc_bytes(optarg, &o->model.llc_bytes))
    return cmd_usage_error("rank", usage_text,
                           "--llc-bytes wants a size >= 64 bytes, not '%s'",
                           optarg);
  else if (opt == 'm') {
    char *end;
    o->min_share = strtod(optarg, &end);
    if (end == optarg || *end || !(o->min_share >= 0 && o->min_share <= 1))
      return cmd_usage_error("rank", usage_text,
                             "--min-share wants a number in [0, 1], not '%s'",
                             optarg);
  } else if (opt == 'a')
    o->all = 1;
  else if (!strchr("btfwl", opt))
    return cmd_bad_option("rank", usage_text, opt, argv);
  return 0;
}

int cmd_rank(int argc, char **argv) {
  static const struct option options[] = {
      {"by", required_argument, NULL, 'b'},
      {"top", required_argument, NULL, 't'},
      {"format", required_argument, NULL, 'f'},
      {"weights", required_argument, NULL, 'w'},
      {"llc-bytes", required_argument, NULL, 'l'},
      {"min-share", required_argument, NULL, 'm'},
      {"all", no_argument, NULL, 'a'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  struct options o = {.min_share = RANK_MIN_SHARE, .top = 0};
  rank_model_init(&o.model);
  int opt;
  optind = 0;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
    if (opt == 'h') {
      fputs(usage_text, stdout);
      return 0;
    }
    if (parse_option(opt, &o, argv))
      return 2;
  }
  if (optind >= argc)
    return cmd_usage_error("rank", usage_text, "no FILE or DIR to rank");
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  struct candidate *list = NULL;
  size_t n = 0;
  for (size_t i = 0; i < set.count; i++) {
    if (o.by_function)
      add_functions(&list, &n, &o, &set.docs[i]);
    else
      add_candidate(&list, &n, &o, &set.docs[i], NULL);
  }
  qsort(list, n, sizeof *list, by_score);
  size_t shown = o.top > 0 && (size_t)o.top < n ? (size_t)o.top : n;
  if (o.format == FORMAT_TABLE)
    print_table(list, shown, &o);
  else if (o.format == FORMAT_CSV)
    print_csv(list, shown);
  else
    print_json(list, shown, &o);
  for (size_t i = 0; i < n; i++)
    free(list[i].label);
  free(list);
  docset_free(&set);
  return 0;
}
