/* sweep_setup.c: setting a sweep up: the suite (bundled, a manifest, or a
 * PolyBench/C checkout), the tools next to pisa-char, the output
 * directories, the summary and what an earlier summary lets us skip. */
#include "child.h"
#include "document.h"
#include "launcher.h"
#include "sweep.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sweep_counter_mode(const struct sweep_options *opt) {
  return strcmp(opt->mode, "deep") != 0; /* counter, or footprint */
}

/* The manifest that SUITE names: a path when it looks like one, else a
 * bundled suite, else an existing file or directory of that name. */
static char *manifest_of(const char *arg) {
  struct stat st;
  size_t len = strlen(arg);
  int is_path =
      strchr(arg, '/') || (len > 5 && strcmp(arg + len - 5, ".json") == 0);
  char *bundled = is_path ? NULL : suite_find_bundled(arg);
  if (bundled)
    return bundled;
  return is_path || stat(arg, &st) == 0 ? xstrdup(arg) : NULL;
}

static void load_suite(struct sweep *sw) {
  char err[PATH_MAX + 256];
  const struct sweep_options *opt = &sw->opt;
  if (opt->root) {
    if (strcmp(opt->suite, "polybench") != 0)
      die("sweep: --root works with the polybench suite only");
    if (suite_from_polybench_root(opt->root, opt->size, &sw->suite, err,
                                  sizeof err))
      die("sweep: %s", err);
    return;
  }
  char *path = manifest_of(opt->suite);
  if (!path)
    die("sweep: no bundled suite named '%s' (give the path of a manifest "
        "for a suite of your own)",
        opt->suite);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    char *inside = xasprintf("%s/suite.json", path);
    free(path);
    path = inside;
  }
  if (suite_load(path, opt->size, &sw->suite, err, sizeof err))
    die("sweep: %s", err);
  free(path);
}

static void compile_checksum(struct sweep *sw) {
  if (!sw->suite.checksum_regex)
    return;
  int rc = regcomp(&sw->checksum, sw->suite.checksum_regex,
                   REG_EXTENDED | REG_NEWLINE);
  if (rc) {
    char why[256];
    regerror(rc, &sw->checksum, why, sizeof why);
    die("sweep: %s: checksum_regex: %s", sw->suite.manifest, why);
  }
  sw->has_checksum = 1;
}

static char *tool_path(const char *name) {
  char *path = xasprintf("%s/%s", self_dir(), name);
  if (access(path, X_OK) != 0)
    die("sweep: %s: %s (pisa-char's tools must be in one directory)", path,
        strerror(errno));
  return path;
}

void sweep_make_dir(const char *path) {
  if (mkdir(path, 0777) != 0 && errno != EEXIST)
    die("sweep: cannot create %s: %s", path, strerror(errno));
}

/* mkdir -p for the output directory. */
static void make_dirs(const char *path) {
  char *copy = xstrdup(path);
  for (char *p = copy + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      sweep_make_dir(copy);
      *p = '/';
    }
  sweep_make_dir(copy);
  free(copy);
}

static void setup_output(struct sweep *sw) {
  const char *out = sw->opt.out;
  char *def = NULL;
  const char *mode = sweep_counter_mode(&sw->opt) ? sw->opt.mode : NULL;
  if (!out)
    out = def = sw->suite.size ? xasprintf("sweep-%s-%s%s%s", sw->suite.name,
                                           sw->suite.size, mode ? "-" : "",
                                           mode ? mode : "")
                               : xasprintf("sweep-%s%s%s", sw->suite.name,
                                           mode ? "-" : "", mode ? mode : "");
  make_dirs(out);
  char resolved[PATH_MAX];
  if (!realpath(out, resolved))
    die("sweep: %s: %s", out, strerror(errno));
  free(def);
  sw->out = xstrdup(resolved);
  const char *sub[] = {"build", "results", "logs"};
  for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
    char *dir = xasprintf("%s/%s", sw->out, sub[i]);
    sweep_make_dir(dir);
    free(dir);
  }
  unsigned k = sw->opt.shard_index, n = sw->opt.shard_count;
  sw->base = n ? xasprintf("%s/summary.shard-%u-of-%u", sw->out, k, n)
               : xasprintf("%s/summary", sw->out);
}

/* What must match for an earlier summary's results to count. */
static json_object *sweep_identity(const struct sweep *sw) {
  json_object *id = json_object_new_object();
  json_object *options = json_object_new_object();
  const struct suite *s = &sw->suite;
  json_object_object_add(id, "suite", json_object_new_string(s->name));
  json_object_object_add(id, "manifest", json_object_new_string(s->manifest));
  json_object_object_add(id, "size",
                         s->size ? json_object_new_string(s->size) : NULL);
  json_object_object_add(options, "mode", json_object_new_string(sw->opt.mode));
  json_object_object_add(
      options, "metrics",
      sw->opt.metrics ? json_object_new_string(sw->opt.metrics) : NULL);
  json_object_object_add(id, "options", options);
  return id;
}

static void new_summary(struct sweep *sw) {
  json_object *id = sweep_identity(sw);
  json_object *names = json_object_new_array();
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++)
    json_object_array_add(names,
                          json_object_new_string(sw->suite.benchmarks[i].name));
  json_object *shard = NULL;
  if (sw->opt.shard_count) {
    shard = json_object_new_object();
    json_object_object_add(shard, "index",
                           json_object_new_int((int)sw->opt.shard_index));
    json_object_object_add(shard, "count",
                           json_object_new_int((int)sw->opt.shard_count));
  }
  sw->summary = sweep_summary_new(id, shard, names);
  json_object_put(id);
  json_object_put(names);
  json_object_put(shard);
}

char *sweep_result_path(const struct sweep *sw, size_t bench) {
  return xasprintf("%s/results/%s.pisa.json", sw->out,
                   sw->suite.benchmarks[bench].name);
}

json_object *sweep_read_result(const struct sweep *sw, size_t bench) {
  char err[512];
  char *path = sweep_result_path(sw, bench);
  json_object *doc = pisa_read_json_file(path, err, sizeof err);
  if (doc && pisa_document_validate(doc, err, sizeof err) != 0) {
    json_object_put(doc);
    doc = NULL;
  }
  free(path);
  return doc;
}

int sweep_is_selected(const struct sweep *sw, size_t bench) {
  return !sw->opt.shard_count ||
         bench % sw->opt.shard_count == sw->opt.shard_index - 1;
}

/* Takes the rows of an earlier summary of the same sweep; a benchmark that
 * ended ok with a valid result document is not run again. */
static json_object *previous_summary(struct sweep *sw) {
  char err[PATH_MAX + 256];
  char *path = xasprintf("%s.json", sw->base);
  json_object *prev = NULL;
  const char *what;
  if (access(path, F_OK) == 0) {
    prev = sweep_summary_read(path, err, sizeof err);
    if (!prev)
      warning("sweep: %s; running every benchmark again", err);
    else if (!sweep_summary_same_identity(prev, sw->summary, &what)) {
      warning("sweep: %s is from a sweep with a different \"%s\"; running "
              "every benchmark again",
              path, what);
      json_object_put(prev);
      prev = NULL;
    }
  }
  free(path);
  return prev;
}

static void plan(struct sweep *sw) {
  json_object *prev = previous_summary(sw);
  sw->rows = xcalloc(sw->suite.nbenchmarks, sizeof *sw->rows);
  sw->todo = xcalloc(sw->suite.nbenchmarks, sizeof *sw->todo);
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++) {
    if (!sweep_is_selected(sw, i))
      continue;
    sw->nselected++;
    json_object *row =
        prev ? sweep_summary_row(prev, sw->suite.benchmarks[i].name) : NULL;
    sw->rows[i] = json_object_get(row);
    json_object *doc =
        row && sweep_row_ok(row) ? sweep_read_result(sw, i) : NULL;
    if (doc)
      sw->nskipped++;
    else
      sw->todo[sw->ntodo++] = i;
    json_object_put(doc);
  }
  json_object_put(prev);
}

void sweep_write_summary(struct sweep *sw) {
  char err[PATH_MAX + 256];
  sweep_summary_set_rows(sw->summary, sw->rows, sw->suite.nbenchmarks);
  if (sweep_summary_write(sw->summary, sw->base, err, sizeof err) != 0) {
    error("sweep: %s", err);
    sw->write_failed = 1;
  }
}

void sweep_setup(struct sweep *sw) {
  load_suite(sw);
  compile_checksum(sw);
  sw->pisa_char = tool_path("pisa-char");
  sw->compiler = tool_path(sw->suite.compiler);
  /* Benchmarks run as programs of their own, not as ranks of the mpirun
   * that may have started the sweep. */
  child_env_init(&sw->env);
  launcher_env_drop(&sw->env);
  setup_output(sw);
  new_summary(sw);
  plan(sw);
  sweep_write_summary(sw);
}

void sweep_free(struct sweep *sw) {
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++)
    json_object_put(sw->rows[i]);
  json_object_put(sw->summary);
  if (sw->has_checksum)
    regfree(&sw->checksum);
  suite_free(&sw->suite);
  strvec_free(&sw->env);
  free(sw->rows);
  free(sw->todo);
  free(sw->jobs);
  free(sw->out);
  free(sw->base);
  free(sw->pisa_char);
  free(sw->compiler);
}
