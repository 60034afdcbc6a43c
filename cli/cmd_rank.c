/* cmd_rank.c: `pisa-char rank`, which orders applications (or their
 * functions) as near-memory-computing offload candidates by the estimated
 * speed-up of the model of rank.h, and explains every term on request. */
#include "cmdline.h"
#include "commands.h"
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
    "Ranks applications (each document's metrics), or with --by function\n"
    "every function (--by loop: every loop of a deep document) of every\n"
    "document, as candidates for near-memory computing: from the work, the\n"
    "traffic past a modelled cache (the reuse histogram) and the parallelism\n"
    "in a bounded window, a roofline-style time on a host and on a\n"
    "near-memory machine; score = log2(host time / near-memory time).\n"
    "docs/ranking.md explains the model. DIR means every *.json document in\n"
    "the tree under it (other JSON files are skipped with a note); deep and\n"
    "counter documents are not mixed.\n"
    "\n"
    "  --by app|function|loop\n"
    "                      rank applications (default), functions or loops\n"
    "  --top N             print the N best candidates only\n"
    "  --format FORMAT     output format, one of {format} (default table)\n"
    "  --json              the same as --format json\n"
    "  --explain           after the table, every term of every candidate\n"
    "  --machine FILE      the host and near-memory machines (pisa-machine/1\n"
    "                      JSON; default: the built-in machines/default.json)\n"
    "  --llc-bytes N       the host's last-level cache, optionally with K, M\n"
    "                      or G (x1024), instead of the machine's\n"
    "  --min-share X       leave out functions (loops) that make less than X\n"
    "                      (0..1) of their program's memory accesses\n"
    "                      (default 0.01)\n"
    "  --all               keep every function (loop)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 on success, 2 on bad usage, a bad machine file or an\n"
    "unreadable, malformed or invalid document.\n";

static const char *const ByNames[] = {"app", "function", "loop"};

struct options {
  struct rank_model model;
  enum { BY_APP, BY_FUNCTION, BY_LOOP } by;
  int all, explain;
  long top;
  double min_share;
  enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format;
};

/* ---- Output ------------------------------------------------------------- */

static void print_machine(const struct machine *m) {
  char summary[200];
  printf("NMC offload candidates, machine %s\n%s\nscore = log2 of the "
         "estimated speed-up near memory; traffic = bytes past the\nhost's "
         "cache per operation\n\n",
         m->name, machine_summary(m, summary, sizeof summary));
}

/* The markers after a candidate: '*' footprint fits the host's cache, '~'
 * counts not exact, '^' measured over the program's region of interest. */
static const char *marks(const struct rank_candidate *c, char buf[4]) {
  char precision[32], *m = buf;
  if (c->result.fits)
    *m++ = '*';
  if (strcmp(doc_precision(c->doc, precision, sizeof precision), "exact"))
    *m++ = '~';
  if (!c->function && doc_region_of_record(c->doc))
    *m++ = '^';
  *m = 0;
  return buf;
}

static void print_row(size_t rank, const struct rank_candidate *c) {
  const struct rank_result *r = &c->result;
  char label[64], m[4];
  snprintf(label, sizeof label, "%.24s%s", c->label, marks(c, m));
  if (!r->valid) {
    printf("%3zu %6s %8s  %-26s (no instructions)\n", rank, "n/a", "n/a",
           label);
    return;
  }
  printf("%3zu %+6.2f %7.3gx  %-26s %9.3g %8.3g", rank, r->score, r->speedup,
         label, r->t.ops, r->host.traffic / r->t.ops);
  if (r->t.has_ilp)
    printf(" %5.3g %5.3g", r->t.ilp, r->t.mlp);
  else
    printf(" %5s %5s", "n/a", "n/a");
  printf("  %-9s %s\n", rank_bound(&r->host), rank_bound(&r->nmc));
}

static void print_explanations(const struct rank_candidate *c, size_t n,
                               const struct options *o) {
  struct strbuf b = {0};
  for (size_t i = 0; i < n; i++) {
    char precision[32];
    const char *region = c[i].function ? NULL : doc_region_of_record(c[i].doc);
    sb_printf(&b, "\n%zu. %s (%s, %s%s%s)\n", i + 1, c[i].label, c[i].doc->path,
              doc_precision(c[i].doc, precision, sizeof precision),
              region ? ", region of interest " : "", region ? region : "");
    rank_explain(&b, &o->model, &c[i].result, "   ");
  }
  fputs(b.data ? b.data : "", stdout);
  sb_free(&b);
}

static void print_table(const struct rank_candidate *c, size_t n,
                        const struct options *o) {
  int fits = 0, inexact = 0, region = 0;
  print_machine(&o->model.machine);
  printf("%3s %6s %8s  %-26s %9s %8s %5s %5s  %-9s %s\n", "#", "score",
         "speed-up", "candidate", "ops", "traffic", "ILP", "MLP", "host",
         "near-mem");
  for (size_t i = 0; i < n; i++) {
    print_row(i + 1, &c[i]);
    char m[4];
    fits |= strchr(marks(&c[i], m), '*') != NULL;
    inexact |= strchr(m, '~') != NULL;
    region |= strchr(m, '^') != NULL;
  }
  if (fits)
    puts("\n*: the footprint fits the host's cache, so only cold misses "
         "reach memory; a\nlarger input may rank higher (--explain says "
         "from which size).");
  if (inexact)
    puts("\n~: sampled or approximate counts (--explain says which).");
  if (region)
    puts("\n^: measured over the program's region of interest, not the whole "
         "run (--explain\nnames it).");
  if (o->explain)
    print_explanations(c, n, o);
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
  puts("rank,candidate,document,function,precision,score,speedup,ops,bytes,"
       "footprint,host_traffic,nmc_traffic,intensity,ilp,mlp,dlp2,"
       "host_time_ns,host_bound,nmc_time_ns,nmc_bound,fits,region");
  for (size_t i = 0; i < n; i++) {
    const struct rank_result *r = &c[i].result;
    char precision[32];
    printf("%zu,", i + 1);
    print_csv_field(c[i].label);
    putchar(',');
    print_csv_field(c[i].doc->path);
    putchar(',');
    print_csv_field(c[i].function_name ? c[i].function_name : "");
    printf(",%s,", doc_precision(c[i].doc, precision, sizeof precision));
    const char *region = c[i].function ? NULL : doc_region_of_record(c[i].doc);
    if (!r->valid) {
      fputs(",,,,,,,,,,,,,,,", stdout);
      print_csv_field(region ? region : "");
      putchar('\n');
      continue;
    }
    printf("%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", r->score, r->speedup,
           r->t.ops, r->t.bytes, r->t.footprint, r->host.traffic,
           r->nmc.traffic);
    if (r->intensity >= 0)
      printf("%.6g", r->intensity);
    if (r->t.has_ilp)
      printf(",%.6g,%.6g,", r->t.ilp, r->t.mlp);
    else
      printf(",,,");
    if (r->t.has_dlp)
      printf("%.6g", r->t.dlp2);
    printf(",%.6g,%s,%.6g,%s,%d,", r->host.time, rank_bound(&r->host),
           r->nmc.time, rank_bound(&r->nmc), r->fits);
    print_csv_field(region ? region : "");
    putchar('\n');
  }
}

static json_object *time_json(const struct rank_time *t) {
  json_object *o = json_object_new_object();
  static const char *const Keys[] = {"misses",       "traffic",    "issue",
                                     "lanes",        "inflight",   "compute_ns",
                                     "bandwidth_ns", "latency_ns", "time_ns"};
  const double v[] = {t->misses,    t->traffic,  t->issue,
                      t->lanes,     t->inflight, t->compute,
                      t->bandwidth, t->latency,  t->time};
  for (size_t i = 0; i < sizeof Keys / sizeof *Keys; i++)
    json_object_object_add(o, Keys[i], json_object_new_double(v[i]));
  json_object_object_add(o, "bound", json_object_new_string(rank_bound(t)));
  json_object_object_add(o, "interpolated",
                         json_object_new_boolean(t->interpolated));
  return o;
}

static json_object *optional(int present, double v) {
  return present ? json_object_new_double(v) : NULL;
}

static json_object *terms_json(const struct rank_result *r) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "ops", json_object_new_double(r->t.ops));
  json_object_object_add(o, "bytes", json_object_new_double(r->t.bytes));
  json_object_object_add(o, "footprint",
                         optional(r->t.footprint > 0, r->t.footprint));
  json_object_object_add(o, "references", optional(r->t.has_reuse, r->t.refs));
  json_object_object_add(o, "intensity",
                         optional(r->intensity >= 0, r->intensity));
  json_object_object_add(o, "window", optional(r->t.has_ilp, r->t.window));
  json_object_object_add(o, "ilp", optional(r->t.has_ilp, r->t.ilp));
  json_object_object_add(o, "mlp", optional(r->t.has_ilp, r->t.mlp));
  json_object_object_add(o, "dlp2", optional(r->t.has_dlp, r->t.dlp2));
  return o;
}

static json_object *candidate_json(const struct rank_candidate *c, size_t rank,
                                   const struct options *o) {
  const struct rank_result *r = &c->result;
  json_object *obj = json_object_new_object();
  char precision[32];
  struct strbuf why = {0};
  json_object_object_add(obj, "rank", json_object_new_int64((int64_t)rank));
  json_object_object_add(obj, "candidate", json_object_new_string(c->label));
  json_object_object_add(obj, "document", json_object_new_string(c->doc->path));
  json_object_object_add(
      obj, "function",
      c->function_name ? json_object_new_string(c->function_name) : NULL);
  const char *region = c->function ? NULL : doc_region_of_record(c->doc);
  json_object_object_add(obj, "region",
                         region ? json_object_new_string(region) : NULL);
  json_object_object_add(obj, "precision",
                         json_object_new_string(doc_precision(
                             c->doc, precision, sizeof precision)));
  json_object_object_add(obj, "score", optional(r->valid, r->score));
  json_object_object_add(obj, "speedup", optional(r->valid, r->speedup));
  json_object_object_add(obj, "fits", json_object_new_boolean(r->fits));
  if (r->valid) {
    json_object_object_add(obj, "terms", terms_json(r));
    json_object_object_add(obj, "host", time_json(&r->host));
    json_object_object_add(obj, "nmc", time_json(&r->nmc));
  }
  rank_explain(&why, &o->model, r, "");
  json_object_object_add(obj, "explanation", json_object_new_string(why.data));
  sb_free(&why);
  return obj;
}

static json_object *side_json(const struct machine_side *s) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "cores", json_object_new_double(s->cores));
  json_object_object_add(o, "llc_bytes", json_object_new_double(s->llc_bytes));
  json_object_object_add(o, "bandwidth_gbs",
                         json_object_new_double(s->bandwidth_gbs));
  return o;
}

static void print_json(const struct rank_candidate *c, size_t n,
                       const struct options *o) {
  json_object *root = json_object_new_object(), *list, *machine;
  json_object_object_add(root, "by", json_object_new_string(ByNames[o->by]));
  json_object_object_add(root, "machine", machine = json_object_new_object());
  json_object_object_add(machine, "name",
                         json_object_new_string(o->model.machine.name));
  json_object_object_add(machine, "host", side_json(&o->model.machine.host));
  json_object_object_add(machine, "nmc", side_json(&o->model.machine.nmc));
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
    {"explain", no_argument, NULL, 'e'},
    {"machine", required_argument, NULL, 'M'},
    {"llc-bytes", required_argument, NULL, 'l'},
    {"min-share", required_argument, NULL, 'm'},
    {"all", no_argument, NULL, 'a'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char *const FormatNames[] = {"table", "csv", "json"};
static const struct name_table By = NAME_TABLE_INIT(ByNames),
                               Formats = NAME_TABLE_INIT(FormatNames);
static const struct cmdline_values RankValues[] = {
    {"by", &By},
    {"format", &Formats},
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
  size_t choice;
  int status = 0;
  if (opt == 'b' && !(status = cmdline_choose(&rank_line, "by", arg, &choice)))
    o->by = (int)choice;
  else if (opt == 't' && parse_long(arg, 1, 1000000000, &o->top))
    return usage_error(&rank_line, "--top wants a count >= 1, not '%s'", arg);
  else if (opt == 'f' &&
           !(status = cmdline_choose(&rank_line, "format", arg, &choice)))
    o->format = (int)choice;
  else if (opt == 'j')
    o->format = FORMAT_JSON;
  else if (status == 0 &&
           (status = rank_model_option(&rank_line, &o->model, opt, arg)))
    return status;
  else if (opt == 'm') {
    char *end;
    o->min_share = strtod(arg, &end);
    if (end == arg || *end || !(o->min_share >= 0 && o->min_share <= 1))
      return usage_error(&rank_line,
                         "--min-share wants a number in [0, 1], not '%s'", arg);
  } else if (opt == 'a')
    o->all = 1;
  else if (opt == 'e')
    o->explain = 1;
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
    if (o.by == BY_FUNCTION)
      rank_add_functions(&c, &o.model, &set.docs[i], o.min_share, o.all);
    else if (o.by == BY_LOOP)
      rank_add_loops(&c, &o.model, &set.docs[i], o.min_share, o.all);
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
