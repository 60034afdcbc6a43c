/* rankfiles.c: reading the ranks' files, merging them with rankmerge.c,
 * and writing the job's document; waiting for the files of other ranks. */
#include "rankfiles.h"
#include "jsonpath.h"
#include "phases.h"
#include "rankmerge.h"
#include "util.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Warns about each failed rank; returns how many there are. */
static size_t report_failures(json_object *doc) {
  json_object *failed = json_at(doc, "mpi/failed_ranks");
  size_t n = failed ? json_object_array_length(failed) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *f = json_object_array_get_idx(failed, i);
    warning("rank %d: %s", json_object_get_int(json_at(f, "rank")),
            json_object_get_string(json_at(f, "reason")));
  }
  return n;
}

static int write_merged(json_object *doc, const struct rank_files_merge *m) {
  char err[1024];
  if (pisa_document_validate(doc, err, sizeof err) != 0) {
    error("%s: the merged document does not match schema %s: %s", m->output,
          PISA_SCHEMA_ID, err);
    return -1;
  }
  if (pisa_write_json_atomic(m->output, doc, m->force, err, sizeof err) !=
      PISA_WRITE_OK) {
    error("%s", err);
    return -1;
  }
  if (!m->quiet)
    fprintf(stderr, "%s: wrote %s: %zu of %d ranks\n", pisa_progname, m->output,
            json_object_array_length(json_at(doc, "ranks")),
            json_object_get_int(json_at(doc, "mpi/size")));
  return 0;
}

/* Adds the file's document or raw result to the merge; 0, or -1 after an
 * error message. */
static int add_file(struct pisa_rank_merge *merge, const char *file) {
  char err[1024];
  json_object *input = pisa_read_json_file(file, err, sizeof err);
  if (!input) {
    error("%s", err);
    return -1;
  }
  int status = pisa_rank_merge_add(merge, input);
  if (status != 0)
    error("%s: %s", file, merge->err);
  json_object_put(input);
  return status;
}

int rank_files_merge(const struct rank_files_merge *m, char *const *files,
                     size_t n) {
  struct pisa_rank_merge merge;
  pisa_rank_merge_init(&merge, m->size);
  for (size_t i = 0; i < n; i++)
    if (add_file(&merge, files[i]) != 0) {
      pisa_rank_merge_discard(&merge);
      return 2;
    }
  struct pisa_program_run run = {m->program, NULL, 0, 0, 0, 0};
  json_object *doc = pisa_rank_merge_finish(&merge, m->program ? &run : NULL);
  if (!doc) {
    error("%s", merge.err);
    return 2;
  }
  phases_add(doc); /* as pisa-char does for a job it ran (runresults.c) */
  size_t failed = report_failures(doc);
  int status = write_merged(doc, m) != 0 ? 2 : failed ? 1 : 0;
  json_object_put(doc);
  return status;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t count_existing(char *const *files, size_t n) {
  size_t found = 0;
  for (size_t i = 0; i < n; i++)
    found += access(files[i], F_OK) == 0;
  return found;
}

size_t rank_files_wait(char *const *files, size_t n, double timeout) {
  double end = now() + timeout;
  useconds_t pause = 10000; /* 10 ms, doubling up to 0.5 s */
  size_t found;
  while ((found = count_existing(files, n)) < n && now() < end) {
    usleep(pause);
    pause = pause < 500000 ? pause * 2 : 500000;
  }
  return found;
}
