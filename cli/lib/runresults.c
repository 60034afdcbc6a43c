/* runresults.c: the private directory where the runtime of an analysed
 * run writes its raw results, and turning those into validated documents:
 * the started process's, one per forked process, or the merged ranks of an
 * MPI job. */
#include "runresults.h"
#include "jsonpath.h"
#include "numbers.h"
#include "rankmerge.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The private directory --------------------------------------------- */

char *run_results_dir_create(void) {
  const char *base = getenv("TMPDIR");
  char *dir = xasprintf("%s/pisa-char.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir))
    die("cannot create a temporary directory %s: %s", dir, strerror(errno));
  return dir;
}

void run_results_dir_remove(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char *path = xasprintf("%s/%s", dir, e->d_name);
    unlink(path);
    free(path);
  }
  if (d)
    closedir(d);
  if (rmdir(dir) != 0)
    warning("cannot remove %s: %s", dir, strerror(errno));
}

/* ---- Raw results ------------------------------------------------------- */

/* pid of a file named raw.<pid>.json, else 0. */
static pid_t raw_file_pid(const char *name) {
  unsigned long pid;
  char *end;
  if (strncmp(name, "raw.", 4) != 0 || !parse_decimal(name + 4, &end, &pid) ||
      strcmp(end, ".json") != 0 || pid == 0 || pid > INT32_MAX)
    return 0;
  return (pid_t)pid;
}

static int compare_pids(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

/* The pids of the raw results in `dir`, sorted; *count of them. */
static pid_t *list_raw_results(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  pid_t *pids = NULL;
  size_t n = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    pid_t pid = raw_file_pid(e->d_name);
    if (!pid)
      continue;
    pids = xrealloc(pids, (n + 1) * sizeof *pids);
    pids[n++] = pid;
  }
  if (d)
    closedir(d);
  qsort(pids, n, sizeof *pids, compare_pids);
  *count = n;
  return pids;
}

static int copy_file(const char *from, const char *to) {
  char buf[65536];
  int in = open(from, O_RDONLY | O_CLOEXEC);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  ssize_t n = 0;
  while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      n = -1;
  int failed = in < 0 || out < 0 || n < 0;
  if (in >= 0)
    close(in);
  if (out >= 0 && close(out) != 0)
    failed = 1;
  return failed ? -1 : 0;
}

static void keep_raw_results(const struct run_results *r, const pid_t *pids,
                             size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *from = xasprintf("%s/raw.%d.json", r->raw_dir, (int)pids[i]);
    char *to = xasprintf("%s/raw.%d.json", r->keep_raw, (int)pids[i]);
    if (copy_file(from, to) != 0)
      warning("cannot copy the raw result to %s: %s", to, strerror(errno));
    free(from);
    free(to);
  }
}

/* "1,234 instructions, footprint 8.0 MiB, 3 functions, <about>" */
static void print_summary(const char *output, json_object *doc,
                          const char *about) {
  char num[64];
  double v;
  json_object *functions = json_at(doc, "functions");
  json_object *complete = json_at(doc, "complete");
  fprintf(stderr, "%s: wrote %s:", pisa_progname, output);
  if (json_number_at(doc, "totals/instructions", &v))
    fprintf(stderr, " %s instructions,", format_count(num, sizeof num, v));
  if (json_number_at(doc, "totals/footprint/bytes", &v))
    fprintf(stderr, " footprint %s,", format_bytes(num, sizeof num, v));
  if (functions)
    fprintf(stderr, " %zu function%s,", json_object_array_length(functions),
            json_object_array_length(functions) == 1 ? "" : "s");
  if (complete && !json_object_get_boolean(complete))
    fputs(" incomplete,", stderr);
  fprintf(stderr, " %s\n", about);
}

static const char *signal_name(int sig) {
  static char name[32];
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev)
    snprintf(name, sizeof name, "SIG%s", abbrev);
  else
    snprintf(name, sizeof name, "signal %d", sig);
  return name;
}

static const char *describe_exit(const struct pisa_program_run *run) {
  static char text[64];
  if (run->signal)
    snprintf(text, sizeof text, "killed by %s", signal_name(run->signal));
  else
    snprintf(text, sizeof text, "exit status %d", run->exit_status);
  return text;
}

/* Validates and writes one document; 0 on success, else RUN_FAILED. */
static int write_document(const struct run_results *r, json_object *doc,
                          const char *output, const char *about) {
  char verr[1024], werr[1024];
  int invalid = pisa_document_validate(doc, verr, sizeof verr) != 0;
  if (pisa_write_json_atomic(output, doc, r->force, werr, sizeof werr) !=
      PISA_WRITE_OK) {
    error("%s", werr);
    return RUN_FAILED;
  }
  if (invalid) {
    error("%s: does not match schema %s: %s", output, PISA_SCHEMA_ID, verr);
    return RUN_FAILED;
  }
  if (!r->quiet)
    print_summary(output, doc, about);
  return 0;
}

static void report_bad_raw(const struct run_results *r, pid_t pid,
                           const char *why) {
  if (r->keep_raw)
    error(
        "malformed analysis result of process %d: %s (kept in %s/raw.%d.json)",
        (int)pid, why, r->keep_raw, (int)pid);
  else
    error(
        "malformed analysis result of process %d: %s (--keep-raw DIR keeps it)",
        (int)pid, why);
}

/* The raw result of process `pid`, checked; NULL after an error message. */
static json_object *read_raw_result(const struct run_results *r, pid_t pid) {
  char err[1024];
  char *path = xasprintf("%s/raw.%d.json", r->raw_dir, (int)pid);
  /* Errors start with the private path, which means nothing to users. */
  size_t prefix = strlen(path) + 2;
  json_object *raw = pisa_read_json_file(path, err, sizeof err);
  if (!raw)
    report_bad_raw(r, pid, strlen(err) > prefix ? err + prefix : err);
  else if (pisa_raw_check(raw, err, sizeof err) != 0) {
    report_bad_raw(r, pid, err);
    json_object_put(raw);
    raw = NULL;
  }
  free(path);
  return raw;
}

static int other_process_document(const struct run_results *r, pid_t pid);

/* The merged document of the ranks in `raws` (NULL entries skipped). */
static int ranks_document(const struct run_results *r, json_object **raws,
                          size_t n) {
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, r->mpi_ranks);
  for (size_t i = 0; i < n; i++)
    if (raws[i] && pisa_rank_merge_add(&m, raws[i]) != 0) {
      error("%s", m.err);
      json_object_put(m.doc);
      return RUN_FAILED;
    }
  json_object *doc = pisa_rank_merge_finish(&m, &r->program);
  if (!doc) {
    error("%s", m.err);
    return RUN_FAILED;
  }
  char about[64];
  int size = json_object_get_int(json_at(doc, "mpi/size"));
  snprintf(about, sizeof about, "%d rank%s, %s", size, size == 1 ? "" : "s",
           describe_exit(&r->program));
  int status = write_document(r, doc, r->output, about);
  json_object_put(doc);
  return status;
}

/* --mpi: every rank's raw result goes into the one document; other
 * processes' (forked by a rank) become documents of their own. */
static int write_mpi_results(const struct run_results *r, const pid_t *pids,
                             size_t n) {
  json_object **raws = xmalloc((n ? n : 1) * sizeof *raws);
  int status = r->program.exit_status;
  for (size_t i = 0; i < n; i++) {
    raws[i] = read_raw_result(r, pids[i]);
    if (!raws[i])
      status = RUN_FAILED;
    else if (!pisa_raw_is_rank(raws[i])) {
      if (other_process_document(r, pids[i]) != 0)
        status = RUN_FAILED;
      json_object_put(raws[i]);
      raws[i] = NULL;
    }
  }
  if (ranks_document(r, raws, n) != 0)
    status = RUN_FAILED;
  for (size_t i = 0; i < n; i++)
    json_object_put(raws[i]);
  free(raws);
  return status;
}

static int main_document(const struct run_results *r) {
  json_object *raw = read_raw_result(r, r->pid);
  if (!raw)
    return RUN_FAILED;
  if (pisa_raw_is_rank(raw)) { /* an MPI program run as a singleton */
    int status = ranks_document(r, &raw, 1);
    json_object_put(raw);
    return status;
  }
  json_object *doc = pisa_document_from_raw(raw, &r->program, 0);
  int status = write_document(r, doc, r->output, describe_exit(&r->program));
  json_object_put(doc);
  json_object_put(raw);
  return status;
}

/* <output without .pisa.json or .json>.<pid>.pisa.json */
static char *other_process_output(const char *output, pid_t pid) {
  return xasprintf("%.*s.%d%s", (int)pisa_document_stem(output), output,
                   (int)pid, PISA_DOC_SUFFIX);
}

static int other_process_document(const struct run_results *r, pid_t pid) {
  char *output = other_process_output(r->output, pid);
  struct stat st;
  int status = 0;
  if (!r->force && lstat(output, &st) == 0) {
    warning("not writing the result of process %d: %s exists; use --force to "
            "overwrite",
            (int)pid, output);
    free(output);
    return 0;
  }
  json_object *raw = read_raw_result(r, pid);
  if (!raw)
    status = RUN_FAILED;
  else {
    char process[64];
    snprintf(process, sizeof process, "forked process %d", (int)pid);
    json_object *doc =
        pisa_document_from_raw(raw, &r->program, PISA_DOC_OTHER_PROCESS);
    status = write_document(r, doc, output, process);
    json_object_put(doc);
    json_object_put(raw);
  }
  free(output);
  return status;
}

int run_results_write(const struct run_results *r) {
  size_t n;
  pid_t *pids = list_raw_results(r->raw_dir, &n);
  int status = r->program.exit_status;
  if (r->keep_raw)
    keep_raw_results(r, pids, n);
  if (r->mpi_ranks) {
    status = write_mpi_results(r, pids, n);
    free(pids);
    return status;
  }
  if (!bsearch(&r->pid, pids, n, sizeof *pids, compare_pids)) {
    error("%s wrote no analysis result (%s)", r->program.path,
          describe_exit(&r->program));
    status = RUN_FAILED;
  } else if (main_document(r) != 0)
    status = RUN_FAILED;
  for (size_t i = 0; i < n; i++)
    if (pids[i] != r->pid && other_process_document(r, pids[i]) != 0)
      status = RUN_FAILED;
  free(pids);
  return status;
}

int run_results_copy_csv(const char *raw_dir, pid_t pid, const char *to) {
  char *from = xasprintf("%s/sets.%d.csv", raw_dir, (int)pid);
  int status = copy_file(from, to);
  if (status != 0)
    error("cannot write the block-set counts to %s: %s", to, strerror(errno));
  free(from);
  return status;
}
