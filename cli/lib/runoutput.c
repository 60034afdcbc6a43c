/* runoutput.c: the documents' names of a run, checked before it starts,
 * and rank 0's merge of a launched job's documents after it. */
#include "runoutput.h"
#include "atomicfile.h"
#include "document.h"
#include "jsonpath.h"
#include "launcher.h"
#include "outname.h"
#include "rankfiles.h"
#include "runresults.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PROGRAM.pisa.json, or PROGRAM.rankN.pisa.json for rank N of a job
 * (`mpirun ... pisa-char ./app`; pisa-char merge joins them). */
static char *default_output(const char *program,
                            const struct launcher_rank *rank) {
  char *copy = xstrdup(program);
  char *name = xasprintf("%s%s", basename(copy), PISA_DOC_SUFFIX);
  char *output = rank ? output_rank_name(name, rank->rank) : xstrdup(name);
  free(name);
  free(copy);
  return output;
}

/* Rank 0 merges when every rank names the same job document: no %r, %p
 * or %h, and a known number of ranks. */
static void plan_job(struct run_output *out, const struct output_name *name,
                     const struct launcher_rank *rank) {
  out->document = output_rank_name(name->path, rank->rank);
  if (rank->rank != 0 || rank->size < 2 || name->per_process)
    return;
  out->job = xstrdup(name->path);
  out->nranks = rank->size;
  out->ranks = xcalloc((size_t)rank->size, sizeof *out->ranks);
  for (long r = 0; r < rank->size; r++)
    out->ranks[r] = output_rank_name(name->path, r);
}

int run_output_plan(const struct command_line *cl, const char *pattern,
                    const char *program, struct run_output *out) {
  struct launcher_rank rank;
  int ranked = launcher_rank(&rank);
  *out = (struct run_output){0};
  if (ranked < 0)
    return 2;
  if (!pattern) {
    out->document = default_output(program, ranked ? &rank : NULL);
    return 0;
  }
  struct output_name name;
  char err[512];
  if (output_name_expand(pattern, ranked ? &rank : NULL, &name, err,
                         sizeof err))
    return usage_error(cl, "%s", err);
  if (!ranked || name.has_rank || rank.size == 1)
    out->document = xstrdup(name.path);
  else
    plan_job(out, &name, &rank);
  free(name.path);
  return 0;
}

/* The output may exist only with --force, is never the program (its
 * arguments may well name outputs of its own), and can be written. */
static void check_one(const char *output, int force, char *program) {
  struct stat st;
  char err[512];
  if (!*output)
    die("empty output file name");
  if (lstat(output, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      die("%s is a directory; use -o to choose an output file", output);
    if (!force)
      die("%s exists; use --force to overwrite or -o to choose another file",
          output);
  }
  if (pisa_check_output(output, &program, 1, "the program being characterised",
                        err, sizeof err) != 0 ||
      pisa_check_writable_dir(output, err, sizeof err) != 0)
    die("%s", err);
}

void run_output_check(const struct run_output *out, int force, char *program) {
  check_one(out->document, force, program);
  if (!out->job)
    return;
  check_one(out->job, force, program);
  for (long r = 0; r < out->nranks; r++) {
    check_one(out->ranks[r], force, program);
    if (force && unlink(out->ranks[r]) != 0 && errno != ENOENT)
      die("cannot remove the old %s: %s", out->ranks[r], strerror(errno));
  }
}

/* Whether this rank's document (when it was written) is an MPI rank's;
 * the documents of a program without MPI are not merged. */
static int is_mpi_document(const char *path) {
  char err[1024];
  json_object *doc = pisa_read_json_file(path, err, sizeof err);
  int mpi = !doc || json_at(doc, "ranks") != NULL;
  json_object_put(doc);
  return mpi;
}

static double merge_timeout(void) {
  const char *v = getenv("PISA_MERGE_TIMEOUT");
  char *end;
  double t = v ? strtod(v, &end) : RUN_MERGE_TIMEOUT;
  if (v && (end == v || *end || !(t >= 0))) {
    warning("PISA_MERGE_TIMEOUT '%s' is not a number of seconds; waiting %d", v,
            RUN_MERGE_TIMEOUT);
    t = RUN_MERGE_TIMEOUT;
  }
  return t;
}

int run_output_merge(const struct run_output *out, int status, int force,
                     int quiet) {
  if (!out->job)
    return status;
  if (!is_mpi_document(out->document)) {
    warning("%s is not an MPI program's document: the ranks' documents "
            "stay apart (%s and the others)",
            out->document, out->document);
    return status;
  }
  size_t n = (size_t)out->nranks;
  if (rank_files_wait(out->ranks, n, merge_timeout()) < n)
    warning("merging into %s without the ranks that wrote no document",
            out->job);
  char **present = xcalloc(n, sizeof *present);
  size_t found = 0;
  for (size_t r = 0; r < n; r++)
    if (access(out->ranks[r], F_OK) == 0)
      present[found++] = out->ranks[r];
  struct rank_files_merge m = {.output = out->job,
                               .size = (int)out->nranks,
                               .force = force,
                               .quiet = quiet};
  int merged = rank_files_merge(&m, present, found);
  free(present);
  return merged == 2 ? RUN_FAILED : status;
}

void run_output_free(struct run_output *out) {
  for (long r = 0; out->ranks && r < out->nranks; r++)
    free(out->ranks[r]);
  free(out->ranks);
  free(out->job);
  free(out->document);
}
