/* cmd_rank.c: `pisa-char rank`, which orders applications (or their
 * functions) as near-memory-computing offload candidates with the model of
 * rank.h, and prints every metric's contribution so a user sees why. */
#include "cmdline.h"
#include "commands.h"
#include "docmetrics.h"
#include "docset.h"
#include "jsonpath.h"
#include "numbers.h"
#include "rank.h"
#include "util.h"

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
    "  --by WHAT           rank applications (app, the default) or\n"
    "                      functions (function)\n"
    "  --top N             print the N best candidates only\n"
    "  --format FORMAT     output format, one of {format} (default table)\n"
    "  --json              the same as --format json\n"
    "  --weights LIST      name=w,... with w >= 0; names: {weights}\n"
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

struct options {
  struct rank_model model;
  int by_function, all;
  long top;
  double min_share;
  enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format; /* FormatNames */
};

/* ---- Output ------------------------------------------------------------- */

/* Which candidates come from sampled runs: their values are estimates. */
static void sampling_notes(const struct rank_candidate *c, size_t n) {
  char note[256];
  for (size_t i = 0; i < n; i++)
    if (metrics_sampling_note(c[i].doc->root, note, sizeof note))
      printf("\nestimate: %s was %s\n", c[i].label, note);
}

static void print_table(const struct rank_candidate *c, size_t n,
                        const struct options *o) {
  char llc[32];
  uint64_t lines = o->model.llc_bytes / RANK_LINE_BYTES;
  int absent[RANK_NUM_METRICS] = {0};
  printf("NMC offload candidates (LLC %s, 64 B lines); columns after the "
         "candidate are each\nmetric's contribution: weight x normalised "
         "value / sum of the weights present\n\n",
         format_bytes(llc, sizeof llc, (double)o->model.llc_bytes));
  printf("%3s %5s  %-25s", "#", "score", "candidate");
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    printf(" %7.7s", rank_metric_name(m));
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
  sampling_notes(c, n);
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

static void print_csv(const struct rank_candidate *c, size_t n) {
  printf("rank,candidate,document,function,score");
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    printf(",%s_value,%s_normalised,%s_contribution", rank_metric_name(m),
           rank_metric_name(m), rank_metric_name(m));
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

static json_object *candidate_json(const struct rank_candidate *c, size_t rank,
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
    json_object_object_add(metrics, rank_metric_name(m), e);
  }
  return obj;
}

static void print_json(const struct rank_candidate *c, size_t n,
                       const struct options *o) {
  json_object *root = json_object_new_object(), *list, *weights;
  json_object_object_add(
      root, "by", json_object_new_string(o->by_function ? "function" : "app"));
  json_object_object_add(root, "llc_bytes",
                         json_object_new_int64((int64_t)o->model.llc_bytes));
  json_object_object_add(root, "weights", weights = json_object_new_object());
  for (int m = 0; m < RANK_NUM_METRICS; m++)
    json_object_object_add(weights, rank_metric_name(m),
                           json_object_new_double(o->model.weights[m]));
  json_object_object_add(root, "candidates", list = json_object_new_array());
  for (size_t i = 0; i < n; i++)
    json_object_array_add(list, candidate_json(&c[i], i + 1, o));
  puts(json_object_to_json_string_ext(
      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(root);
}

/* ---- Command line ------------------------------------------------------- */

static const struct option RankOptions[] = {
    {"by", required_argument, NULL, 'b'},
    {"top", required_argument, NULL, 't'},
    {"format", required_argument, NULL, 'f'},
    {"json", no_argument, NULL, 'j'},
    {"weights", required_argument, NULL, 'w'},
    {"llc-bytes", required_argument, NULL, 'l'},
    {"min-share", required_argument, NULL, 'm'},
    {"all", no_argument, NULL, 'a'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char *const ByNames[] = {"app", "function"};
static const char *const FormatNames[] = {"table", "csv", "json"};
static const struct name_table By = NAME_TABLE_INIT(ByNames),
                               Formats = NAME_TABLE_INIT(FormatNames);
static const struct cmdline_values RankValues[] = {
    {"by", &By},
    {"format", &Formats},
    {"weights", &rank_metric_names},
    {NULL, NULL},
};

const struct command_line rank_line = {
    .name = "rank",
    .usage = usage_text,
    .short_options = ":h",
    .options = RankOptions,
    .values = RankValues,
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  char err[512];
  size_t choice;
  int status = 0;
  if (opt == 'b' && !(status = cmdline_choose(&rank_line, "by", arg, &choice)))
    o->by_function = choice == 1;
  else if (opt == 't' && parse_long(arg, 1, 1000000000, &o->top))
    return usage_error(&rank_line, "--top wants a count >= 1, not '%s'", arg);
  else if (opt == 'f' &&
           !(status = cmdline_choose(&rank_line, "format", arg, &choice)))
    o->format = (int)choice;
  else if (opt == 'j')
    o->format = FORMAT_JSON;
  else if (rank_model_option(&o->model, opt, arg, err, sizeof err))
    return usage_error(&rank_line, "%s", err);
  else if (opt == 'm') {
    char *end;
    o->min_share = strtod(arg, &end);
    if (end == arg || *end || !(o->min_share >= 0 && o->min_share <= 1))
      return usage_error(&rank_line,
                         "--min-share wants a number in [0, 1], not '%s'", arg);
  } else if (opt == 'a')
    o->all = 1;
  return status;
}

int cmd_rank(int argc, char **argv) {
  struct options o = {.min_share = RANK_MIN_SHARE, .top = 0};
  rank_model_init(&o.model);
  int status = cmdline_parse(&rank_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&rank_line, "no FILE or DIR to rank");
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, argc - optind))
    return 2;
  struct rank_candidates c = {0};
  for (size_t i = 0; i < set.count; i++) {
    if (o.by_function)
      rank_add_functions(&c, &o.model, &set.docs[i], o.min_share, o.all);
    else
      rank_add_application(&c, &o.model, &set.docs[i]);
  }
  rank_sort(&c);
  size_t shown = o.top > 0 && (size_t)o.top < c.n ? (size_t)o.top : c.n;
  if (o.format == FORMAT_TABLE)
    print_table(c.list, shown, &o);
  else if (o.format == FORMAT_CSV)
    print_csv(c.list, shown);
  else
    print_json(c.list, shown, &o);
  rank_candidates_free(&c);
  docset_free(&set);
  return 0;
}
