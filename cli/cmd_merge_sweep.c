/* cmd_merge_sweep.c: `pisa-char merge-sweep DIR...`: joins the summaries of
 * the slices of a sweep (`pisa-char sweep --shard K/N`, or the ranks of an
 * mpirun) into one summary.json and summary.csv, refusing overlapping or
 * missing benchmarks. */
#include "cmdline.h"
#include "commands.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One summary read, with the directory its relative paths start from. */
struct input {
  char *path;
  char *dir; /* absolute */
  json_object *summary;
};

struct merge {
  struct input *inputs;
  size_t ninputs;
  json_object *names; /* benchmarks_in_suite of the first */
  json_object **rows; /* per suite benchmark */
  size_t *owner;      /* input index of each row */
  char *out;          /* absolute output directory */
};

static const char usage_text[] =
    "usage: pisa-char merge-sweep [-o DIR] DIR|SUMMARY...\n"
    "\n"
    "Joins the summaries of the slices of one sweep ('pisa-char sweep\n"
    "--shard K/N', or the ranks of an mpirun) into DIR/summary.json and\n"
    "DIR/summary.csv. Each DIR contributes its summary.shard-K-of-N.json\n"
    "files, or else its summary.json. Every benchmark of the suite must\n"
    "be in exactly one of them.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR\n"
    "                 where to write the summary (default: the first\n"
    "                 directory given); also --out\n"
    "  -h, --help     show this help\n"
    "\n"
    "Exit status: 0 when every benchmark succeeded, 1 when some failed\n"
    "or the slices do not make up the suite, 2 for bad usage or input.\n";

static const struct option MergeOptions[] = {
    {"output", required_argument, NULL, 'o'},
    {"out", required_argument, NULL, 'o'}, /* the old spelling */
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line merge_sweep_line = {
    .name = "merge-sweep",
    .usage = usage_text,
    .short_options = ":o:h",
    .options = MergeOptions,
};

static int take_option(int opt, char *arg, void *ctx) {
  (void)opt; /* -o is the only one */
  *(const char **)ctx = arg;
  return 0;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *absolute_dir(const char *path) {
  char resolved[PATH_MAX];
  if (!realpath(path, resolved))
    die("merge-sweep: %s: %s", path, strerror(errno));
  return xstrdup(resolved);
}

static void add_input(struct merge *m, const char *path) {
  char err[PATH_MAX + 256];
  json_object *s = sweep_summary_read(path, err, sizeof err);
  if (!s)
    die("merge-sweep: %s", err);
  m->inputs = xrealloc(m->inputs, (m->ninputs + 1) * sizeof *m->inputs);
  char *copy = xstrdup(path);
  m->inputs[m->ninputs++] =
      (struct input){xstrdup(path), absolute_dir(dirname(copy)), s};
  free(copy);
}

/* The summaries of one argument: the file itself, or a directory's shard
 * summaries, or else its summary.json. */
static void add_argument(struct merge *m, const char *arg) {
  if (!is_dir(arg)) {
    add_input(m, arg);
    return;
  }
  char *pattern = xasprintf("%s/summary.shard-*-of-*.json", arg);
  glob_t g;
  if (glob(pattern, 0, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; i++)
      add_input(m, g.gl_pathv[i]);
    globfree(&g);
  } else {
    char *whole = xasprintf("%s/summary.json", arg);
    if (!is_dir(whole) && access(whole, F_OK) == 0)
      add_input(m, whole);
    else
      die("merge-sweep: %s: no sweep summary (summary.shard-K-of-N.json or "
          "summary.json)",
          arg);
    free(whole);
  }
  free(pattern);
}

static void check_same_sweep(const struct merge *m) {
  const struct input *first = &m->inputs[0];
  for (size_t i = 1; i < m->ninputs; i++) {
    const char *what = "benchmarks_in_suite";
    json_object *a = first->summary, *b = m->inputs[i].summary;
    if (!sweep_summary_same_identity(a, b, &what) ||
        !json_object_equal(json_object_object_get(a, what),
                           json_object_object_get(b, what)))
      die("merge-sweep: %s and %s are not slices of one sweep (their \"%s\" "
          "differ)",
          first->path, m->inputs[i].path, what);
  }
}

static long name_index(const struct merge *m, const char *name) {
  for (size_t i = 0; i < json_object_array_length(m->names); i++)
    if (strcmp(json_object_get_string(json_object_array_get_idx(m->names, i)),
               name) == 0)
      return (long)i;
  return -1;
}

/* The row with its "result" path made valid from the output directory. */
static json_object *moved_row(const struct merge *m, const struct input *in,
                              json_object *row) {
  json_object *result = json_object_object_get(row, "result");
  const char *rel = result ? json_object_get_string(result) : NULL;
  if (!rel || rel[0] == '/' || strcmp(in->dir, m->out) == 0)
    return json_object_get(row);
  json_object *copy = NULL;
  json_object_deep_copy(row, &copy, NULL);
  char *abs = xasprintf("%s/%s", in->dir, rel);
  json_object_object_add(copy, "result", json_object_new_string(abs));
  free(abs);
  return copy;
}

/* Collects every row once; returns the number of problems reported. */
static int collect_rows(struct merge *m) {
  int problems = 0;
  for (size_t i = 0; i < m->ninputs; i++) {
    json_object *list =
        json_object_object_get(m->inputs[i].summary, "benchmarks");
    for (size_t r = 0; r < json_object_array_length(list); r++) {
      json_object *row = json_object_array_get_idx(list, r);
      const char *name =
          json_object_get_string(json_object_object_get(row, "name"));
      long at = name_index(m, name);
      if (at < 0)
        die("merge-sweep: %s: benchmark %s is not in the suite",
            m->inputs[i].path, name);
      if (m->rows[at]) {
        error("merge-sweep: benchmark %s is in both %s and %s", name,
              m->inputs[m->owner[at]].path, m->inputs[i].path);
        problems++;
        continue;
      }
      m->rows[at] = moved_row(m, &m->inputs[i], row);
      m->owner[at] = i;
    }
  }
  return problems;
}

static int report_missing(const struct merge *m) {
  size_t n = json_object_array_length(m->names), missing = 0;
  for (size_t i = 0; i < n; i++)
    missing += !m->rows[i];
  if (!missing)
    return 0;
  fprintf(stderr,
          "%s: merge-sweep: %zu benchmark%s in no summary:", pisa_progname,
          missing, missing == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++)
    if (!m->rows[i])
      fprintf(stderr, " %s",
              json_object_get_string(json_object_array_get_idx(m->names, i)));
  fputc('\n', stderr);
  return 1;
}

static int write_merged(struct merge *m) {
  char err[PATH_MAX + 256];
  json_object *first = m->inputs[0].summary;
  size_t n = json_object_array_length(m->names);
  json_object *summary = sweep_summary_new(first, NULL, m->names);
  sweep_summary_set_rows(summary, m->rows, n);
  char *base = xasprintf("%s/summary", m->out);
  int rc = sweep_summary_write(summary, base, err, sizeof err);
  if (rc)
    die_status(1, "merge-sweep: %s", err);
  json_object *counts = json_object_object_get(summary, "counts");
  int failed = json_object_get_int(json_object_object_get(counts, "failed"));
  error("merge-sweep: %zu summaries, %zu benchmarks, %d failed; wrote "
        "%s.json and %s.csv",
        m->ninputs, n, failed, base, base);
  free(base);
  json_object_put(summary);
  return failed ? 1 : 0;
}

int cmd_merge_sweep(int argc, char **argv) {
  const char *out = NULL;
  int status = cmdline_parse(&merge_sweep_line, argc, argv, take_option, &out);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&merge_sweep_line, "no directories given");
  if (out)
    mkdir(out, 0777); /* realpath below reports what went wrong */
  struct merge m = {0};
  for (int i = optind; i < argc; i++)
    add_argument(&m, argv[i]);
  check_same_sweep(&m);
  m.out = absolute_dir(out                    ? out
                       : is_dir(argv[optind]) ? argv[optind]
                                              : m.inputs[0].dir);
  m.names = json_object_object_get(m.inputs[0].summary, "benchmarks_in_suite");
  size_t n = json_object_array_length(m.names);
  m.rows = xcalloc(n, sizeof *m.rows);
  m.owner = xcalloc(n, sizeof *m.owner);
  int problems = collect_rows(&m);
  problems += report_missing(&m);
  status = problems ? 1 : write_merged(&m);
  for (size_t i = 0; i < n; i++)
    json_object_put(m.rows[i]);
  for (size_t i = 0; i < m.ninputs; i++) {
    free(m.inputs[i].path);
    free(m.inputs[i].dir);
    json_object_put(m.inputs[i].summary);
  }
  free(m.inputs);
  free(m.rows);
  free(m.owner);
  free(m.out);
  return status;
}
