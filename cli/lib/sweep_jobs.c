/* sweep_jobs.c: one benchmark of a sweep: its build with pisa-cc and its
 * run under `pisa-char run`, each in a process group of its own with its
 * output in DIR/logs, and the summary row that judges how it ended. */
#include "child.h"
#include "sweep.h"
#include "sweep_summary.h"
#include "util.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERROR_MAX 240 /* longest error message kept in a row */

static char *log_path(const struct sweep *sw, size_t bench, const char *ext) {
  return xasprintf("%s/logs/%s.%s", sw->out, sw->suite.benchmarks[bench].name,
                   ext);
}

static char *build_dir(const struct sweep *sw, size_t bench) {
  return xasprintf("%s/build/%s", sw->out, sw->suite.benchmarks[bench].name);
}

/* Starts argv in `dir` in a process group of its own, stdin from
 * /dev/null, stdout to `out` and stderr to `err` (NULL: to `out`). */
static pid_t spawn(const struct sweep *sw, char *const *argv, const char *dir,
                   const char *out, const char *err) {
  struct child_spec spec = {.file = argv[0],
                            .argv = argv,
                            .envp = sw->env.v,
                            .dir = dir,
                            .in = "/dev/null",
                            .out = out,
                            .err = err,
                            .own_group = 1,
                            .who = "sweep"};
  return child_start(&spec, NULL);
}

pid_t sweep_start_build(struct sweep *sw, size_t bench) {
  const struct suite_benchmark *b = &sw->suite.benchmarks[bench];
  char *dir = build_dir(sw, bench);
  char *exe = xasprintf("%s/%s", dir, b->name);
  char *log = log_path(sw, bench, "build.log");
  struct strvec argv = {0};
  sweep_make_dir(dir);
  strvec_push(&argv, sw->compiler);
  if (sweep_counter_mode(&sw->opt)) { /* --mode=counter or --mode=footprint */
    char *mode = xasprintf("--mode=%s", sw->opt.mode);
    strvec_push(&argv, mode);
    free(mode);
  }
  strvec_append(&argv, &b->cflags);
  strvec_append(&argv, &b->sources);
  strvec_push(&argv, "-o");
  strvec_push(&argv, exe);
  strvec_append(&argv, &b->ldflags);
  pid_t pid = spawn(sw, argv.v, dir, log, NULL);
  strvec_free(&argv);
  free(log);
  free(exe);
  free(dir);
  return pid;
}

pid_t sweep_start_run(struct sweep *sw, size_t bench) {
  const struct suite_benchmark *b = &sw->suite.benchmarks[bench];
  char *dir = build_dir(sw, bench);
  char *result = sweep_result_path(sw, bench);
  char *out = log_path(sw, bench, "out"), *err = log_path(sw, bench, "err");
  char *program = xasprintf("./%s", b->name);
  struct strvec argv = {0};
  const char *head[] = {sw->pisa_char, "run",  "-q",     "--force",
                        "-o",          result, "--mode", sw->opt.mode};
  for (size_t i = 0; i < sizeof head / sizeof *head; i++)
    strvec_push(&argv, head[i]);
  if (sw->opt.metrics) {
    strvec_push(&argv, "--metrics");
    strvec_push(&argv, sw->opt.metrics);
  }
  if (sw->opt.root && !strcmp(sw->opt.mode, "deep")) {
    /* An unmodified PolyBench/C has no markers: its kernels are the
     * region of interest, inlined into main or not. */
    strvec_push(&argv, "--roi-function");
    strvec_push(&argv, "kernel_*");
  }
  strvec_push(&argv, "--");
  strvec_push(&argv, program);
  strvec_append(&argv, &b->args);
  unlink(result); /* a stale document must not pass for this run's */
  pid_t pid = spawn(sw, argv.v, dir, out, err);
  strvec_free(&argv);
  free(program);
  free(out);
  free(err);
  free(result);
  free(dir);
  return pid;
}

/* ---- Judging a finished benchmark ---------------------------------------- */

static void trim_line(char *line) {
  size_t len = strlen(line);
  while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    line[--len] = '\0';
  if (len > ERROR_MAX)
    strcpy(line + ERROR_MAX - 3, "...");
}

/* The first line of `path` containing `needle` (last: the last one), or
 * NULL. */
static char *find_line(const char *path, const char *needle, int last) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char *line = NULL, *found = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    if (!strstr(line, needle))
      continue;
    free(found);
    found = xstrdup(line);
    if (!last)
      break;
  }
  free(line);
  fclose(f);
  if (found)
    trim_line(found);
  return found;
}

/* The checksum: the capture (or the match) of checksum_regex on the last
 * matching line of the program's output. */
static char *find_checksum(const struct sweep *sw, size_t bench) {
  char *path = log_path(sw, bench, "out");
  FILE *f = fopen(path, "r");
  free(path);
  if (!f)
    return NULL;
  char *line = NULL, *found = NULL;
  size_t cap = 0;
  regmatch_t m[2];
  while (getline(&line, &cap, f) > 0) {
    line[strcspn(line, "\n")] = '\0';
    if (regexec(&sw->checksum, line, 2, m, 0) != 0)
      continue;
    regmatch_t *use = m[1].rm_so >= 0 ? &m[1] : &m[0];
    free(found);
    found = strndup(line + use->rm_so, use->rm_eo - use->rm_so);
  }
  free(line);
  fclose(f);
  return found;
}

json_object *sweep_build_failed_row(struct sweep *sw,
                                    const struct sweep_job *job, int status,
                                    double seconds) {
  char *log = log_path(sw, job->bench, "build.log");
  char *first = find_line(log, "error", 0);
  int sig, code = child_exit_status(status, &sig);
  char *why = first  ? xasprintf("compilation failed: %s", first)
              : !sig ? xasprintf("compilation failed with status %d", code)
                     : xstrdup("the compiler was killed");
  json_object *row =
      sweep_row_new(sw->suite.benchmarks[job->bench].name, SWEEP_BUILD_FAILED,
                    -1, 0, seconds, NULL, why, NULL, NULL);
  free(why);
  free(first);
  free(log);
  return row;
}

/* pisa-char's own last message in the benchmark's stderr, else `fallback`. */
static char *run_message(const struct sweep *sw, size_t bench,
                         const char *fallback) {
  char *err = log_path(sw, bench, "err");
  char *prefix = xasprintf("%s: ", pisa_progname);
  char *line = find_line(err, prefix, 1);
  char *msg = line ? xstrdup(line + strlen(prefix)) : xstrdup(fallback);
  free(line);
  free(prefix);
  free(err);
  return msg;
}

/* Status and error of a finished run from pisa-char's exit status `code`
 * (or the signal `sig` that killed it). */
static const char *judge_run(struct sweep *sw, const struct sweep_job *job,
                             int code, int sig, json_object *doc,
                             const char *checksum, char **why) {
  if (job->timed_out) {
    *why = xasprintf("timed out after %g s", sw->opt.timeout);
    return SWEEP_TIMEOUT;
  }
  if (sig) {
    *why = xasprintf("pisa-char was killed by signal %d", sig);
    return SWEEP_RUN_FAILED;
  }
  if (code == 2) {
    *why = run_message(sw, job->bench, "pisa-char could not run it");
    return SWEEP_RUN_FAILED;
  }
  if (code == 125 || (code == 0 && !doc)) {
    *why = run_message(sw, job->bench, "no valid result document");
    return SWEEP_ANALYSIS_FAILED;
  }
  if (code != 0) {
    *why = xasprintf("exit status %d", code);
    return SWEEP_RUN_FAILED;
  }
  if (sw->has_checksum && !checksum) {
    *why = xstrdup("no line of its output matches the checksum_regex");
    return SWEEP_RUN_FAILED;
  }
  *why = NULL;
  return SWEEP_OK;
}

json_object *sweep_run_row(struct sweep *sw, const struct sweep_job *job,
                           int wstatus, double seconds) {
  const char *name = sw->suite.benchmarks[job->bench].name;
  json_object *doc = sweep_read_result(sw, job->bench);
  char *checksum = sw->has_checksum ? find_checksum(sw, job->bench) : NULL;
  char *why;
  int sig, code = child_exit_status(wstatus, &sig);
  const char *status = judge_run(sw, job, code, sig, doc, checksum, &why);
  char *result = doc ? xasprintf("results/%s.pisa.json", name) : NULL;
  json_object *row =
      sweep_row_new(name, status, sig ? -1 : code, seconds, job->build_seconds,
                    checksum, why, result, doc);
  free(result);
  free(why);
  free(checksum);
  json_object_put(doc);
  return row;
}
