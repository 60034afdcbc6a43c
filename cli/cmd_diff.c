/* cmd_diff.c: `pisa-char diff A.json B.json`: every metric of two runs side
 * by side with its absolute and relative change, largest first, for the
 * totals, threads, functions, regions, ranks and data objects
 * (docdiff.h); a threshold
 * hides small changes and --fail-above makes a regression check of it. */
#include "cmdline.h"
#include "commands.h"
#include "docdiff.h"
#include "docset.h"
#include "jsonpath.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char diff [options] A.json B.json\n"
    "\n"
    "Compares two documents of the same mode, metric by metric: the totals,\n"
    "and the threads (by number), functions (by name), regions (by name),\n"
    "ranks and data objects (by kind, name and site) that both hold. Each\n"
    "row has the value in A and in B, the change B - A and the relative\n"
    "change (B - A) / |A|, and the rows are sorted by the size of the\n"
    "relative change; a metric that is 0 in A and not in B has an infinite\n"
    "change (shown as 'new') and comes first.\n"
    "Entries and metrics that only one document holds are listed after.\n"
    "\n"
    "Options:\n"
    "      --threshold PCT   show only changes of at least PCT percent\n"
    "                        (default 0: every metric)\n"
    "      --fail-above PCT  exit with status 1 when a metric changed by\n"
    "                        more than PCT percent (a regression check)\n"
    "      --format FORMAT   one of {format} (default table)\n"
    "      --json            the same as --format json\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0, or 1 with --fail-above when a metric changed more; 2 on\n"
    "bad usage, an unreadable, malformed or invalid document, or documents\n"
    "of different modes.\n";

enum { OPT_THRESHOLD = 256, OPT_FAIL_ABOVE, OPT_FORMAT, OPT_JSON };

static const struct option DiffOptions[] = {
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

enum format { FORMAT_TABLE, FORMAT_JSON };
static const char *const FormatNames[] = {"table", "json"};
static const struct name_table Formats = NAME_TABLE_INIT(FormatNames);
static const struct cmdline_values DiffValues[] = {
    {"format", &Formats},
    {NULL, NULL},
};

const struct command_line diff_line = {
    .name = "diff",
    .usage = usage_text,
    .short_options = ":h",
    .options = DiffOptions,
    .values = DiffValues,
};

struct options {
  double threshold;  /* percent */
  double fail_above; /* percent, or negative: no check */
  enum format format;
};

static int parse_percent(const char *option, const char *arg, double *out) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (end == arg || *end || errno || !(v >= 0) || isinf(v))
    return usage_error(&diff_line, "%s '%s': expected a percentage >= 0",
                       option, arg);
  *out = v;
  return 0;
}

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  size_t format;
  int status = 0;
  if (opt == OPT_THRESHOLD)
    return parse_percent("--threshold", arg, &o->threshold);
  if (opt == OPT_FAIL_ABOVE)
    return parse_percent("--fail-above", arg, &o->fail_above);
  if (opt == OPT_FORMAT &&
      !(status = cmdline_choose(&diff_line, "format", arg, &format)))
    o->format = (enum format)format;
  if (opt == OPT_JSON)
    o->format = FORMAT_JSON;
  return status;
}

/* ---- Output ------------------------------------------------------------- */

static int shown(const struct metric_change *c, const struct options *o) {
  return o->threshold <= 0 || fabs(c->relative) * 100 >= o->threshold;
}

static int exceeds(const struct metric_change *c, const struct options *o) {
  return o->fail_above >= 0 && fabs(c->relative) * 100 > o->fail_above;
}

/* A value as people read it: whole numbers in full, others to 6 digits. */
static const char *format_value(char *buf, size_t n, double v) {
  if (v == floor(v) && fabs(v) < 1e15)
    snprintf(buf, n, "%.0f", v);
  else
    snprintf(buf, n, "%.6g", v);
  return buf;
}

static const char *format_relative(char *buf, size_t n, double r) {
  if (isinf(r))
    snprintf(buf, n, "%s", r > 0 ? "new" : "-new");
  else
    snprintf(buf, n, "%+.1f%%", 100 * r);
  return buf;
}

/* The cells of a row: scope, key, metric, A, B, change, relative. */
static void cells(const struct metric_change *c, char bufs[4][64],
                  const char *cell[7]) {
  cell[0] = c->scope;
  cell[1] = c->key[0] ? c->key : "-";
  cell[2] = c->metric;
  cell[3] = format_value(bufs[0], sizeof bufs[0], c->a);
  cell[4] = format_value(bufs[1], sizeof bufs[1], c->b);
  cell[5] = format_value(bufs[2], sizeof bufs[2], c->absolute);
  cell[6] = format_relative(bufs[3], sizeof bufs[3], c->relative);
}

static void print_row(const char *const cell[7], const int width[7]) {
  for (int k = 0; k < 7; k++)
    printf(k < 3 ? "%-*s%s" : "%*s%s", width[k], cell[k], k < 6 ? "  " : "\n");
}

/* Columns as wide as their widest cell: names are never cut. */
static void print_table(const struct doc_diff *d, const struct options *o) {
  static const char *const Header[7] = {"scope", "key",   "metric",  "A",
                                        "B",     "B - A", "relative"};
  int width[7];
  char bufs[4][64];
  const char *cell[7];
  for (int k = 0; k < 7; k++)
    width[k] = (int)strlen(Header[k]);
  for (size_t i = 0; i < d->nchanges; i++) {
    if (!shown(&d->changes[i], o))
      continue;
    cells(&d->changes[i], bufs, cell);
    for (int k = 0; k < 7; k++)
      if ((int)strlen(cell[k]) > width[k])
        width[k] = (int)strlen(cell[k]);
  }
  print_row(Header, width);
  for (size_t i = 0; i < d->nchanges; i++)
    if (shown(&d->changes[i], o)) {
      cells(&d->changes[i], bufs, cell);
      print_row(cell, width);
    }
  for (size_t i = 0; i < d->nunmatched; i++) {
    const struct unmatched *u = &d->unmatched[i];
    printf("only in %s: %s %s (%zu metric%s)\n", u->in_b ? "B" : "A", u->scope,
           u->key[0] ? u->key : "-", u->metrics, u->metrics == 1 ? "" : "s");
  }
}

static void print_heading(const struct pisa_doc *a, const struct pisa_doc *b,
                          const struct doc_diff *d, const struct options *o) {
  size_t n = 0;
  for (size_t i = 0; i < d->nchanges; i++)
    n += shown(&d->changes[i], o);
  printf("A  %s\nB  %s\n%zu metrics in both, %zu shown", a->path, b->path,
         d->nchanges, n);
  if (o->threshold > 0)
    printf(" (relative change of at least %g%%)", o->threshold);
  printf("\n\n");
}

static json_object *number_or_null(double v) {
  return isinf(v) || isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *change_json(const struct metric_change *c,
                                const struct options *o) {
  json_object *e = json_object_new_object();
  json_object_object_add(e, "scope", json_object_new_string(c->scope));
  json_object_object_add(e, "key", json_object_new_string(c->key));
  json_object_object_add(e, "metric", json_object_new_string(c->metric));
  json_object_object_add(e, "a", json_object_new_double(c->a));
  json_object_object_add(e, "b", json_object_new_double(c->b));
  json_object_object_add(e, "absolute", json_object_new_double(c->absolute));
  json_object_object_add(e, "relative", number_or_null(c->relative));
  json_object_object_add(e, "exceeds", json_object_new_boolean(exceeds(c, o)));
  return e;
}

static void print_json(const struct pisa_doc *a, const struct pisa_doc *b,
                       const struct doc_diff *d, const struct options *o) {
  json_object *root = json_object_new_object(), *list, *only;
  json_object_object_add(root, "a", json_object_new_string(a->path));
  json_object_object_add(root, "b", json_object_new_string(b->path));
  json_object_object_add(root, "threshold",
                         json_object_new_double(o->threshold));
  json_object_object_add(
      root, "fail_above",
      o->fail_above >= 0 ? json_object_new_double(o->fail_above) : NULL);
  json_object_object_add(root, "compared",
                         json_object_new_int64((int64_t)d->nchanges));
  json_object_object_add(root, "changes", list = json_object_new_array());
  for (size_t i = 0; i < d->nchanges; i++)
    if (shown(&d->changes[i], o))
      json_object_array_add(list, change_json(&d->changes[i], o));
  json_object_object_add(root, "unmatched", only = json_object_new_array());
  for (size_t i = 0; i < d->nunmatched; i++) {
    const struct unmatched *u = &d->unmatched[i];
    json_object *e = json_object_new_object();
    json_object_object_add(e, "in",
                           json_object_new_string(u->in_b ? "b" : "a"));
    json_object_object_add(e, "scope", json_object_new_string(u->scope));
    json_object_object_add(e, "key", json_object_new_string(u->key));
    json_object_object_add(e, "metrics",
                           json_object_new_int64((int64_t)u->metrics));
    json_object_array_add(only, e);
  }
  puts(json_object_to_json_string_ext(
      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(root);
}

/* --fail-above: how many metrics changed more. */
static size_t count_exceeding(const struct doc_diff *d,
                              const struct options *o) {
  size_t n = 0;
  for (size_t i = 0; i < d->nchanges; i++)
    n += exceeds(&d->changes[i], o);
  return n;
}

int cmd_diff(int argc, char **argv) {
  struct options o = {.fail_above = -1};
  int status = cmdline_parse(&diff_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (argc - optind != 2)
    return usage_error(&diff_line, "expected two documents, A and B");
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, 2))
    return 2;
  if (set.count != 2) { /* (docset_load refused two modes already) */
    error("diff: expected two documents, got %zu (a directory gives all "
          "of its documents)",
          set.count);
    docset_free(&set);
    return 2;
  }
  struct doc_diff d;
  docdiff_compute(set.docs[0].root, set.docs[1].root, &d);
  if (o.format == FORMAT_JSON) {
    print_json(&set.docs[0], &set.docs[1], &d, &o);
  } else {
    print_heading(&set.docs[0], &set.docs[1], &d, &o);
    print_table(&d, &o);
  }
  size_t exceeding = count_exceeding(&d, &o);
  if (exceeding)
    error("diff: %zu metric%s changed by more than %g%%", exceeding,
          exceeding == 1 ? "" : "s", o.fail_above);
  docdiff_free(&d);
  docset_free(&set);
  return exceeding ? 1 : 0;
}
