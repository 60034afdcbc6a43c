/* runresults.c: the private directory where the runtime of an analysed
 * run writes its raw results, and turning those into validated documents:
 * the started process's, one per forked process, or the merged ranks of an
 * MPI job. */
#include "runresults.h"
#include "jsonpath.h"
#include "numbers.h"
#include "objectmerge.h"
#include "phases.h"
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

/* The runtime's raw result of process PID, and the snapshot that it
 * writes while it runs (by default; PISA_SNAPSHOT_INTERVAL): the process's
 * result when it left no other (killed by SIGKILL). */
static const char *const RawStems[] = {"raw", "snapshot"};

/* pid of a file named raw.<pid>.json or snapshot.<pid>.json, else 0. */
static pid_t raw_file_pid(const char *name) {
  for (size_t i = 0; i < sizeof RawStems / sizeof *RawStems; i++) {
    unsigned long pid;
    char *end;
    size_t n = strlen(RawStems[i]);
    if (strncmp(name, RawStems[i], n) == 0 && name[n] == '.' &&
        parse_decimal(name + n + 1, &end, &pid) && strcmp(end, ".json") == 0 &&
        pid != 0 && pid <= INT32_MAX)
      return (pid_t)pid;
  }
  return 0;
}

/* The raw result of process `pid` in `dir`: raw.PID.json, or else its last
 * snapshot (*snapshot set); allocated. */
static char *raw_path(const char *dir, pid_t pid, int *snapshot) {
  char *path = xasprintf("%s/raw.%d.json", dir, (int)pid);
  *snapshot = access(path, F_OK) != 0;
  if (*snapshot) {
    free(path);
    path = xasprintf("%s/snapshot.%d.json", dir, (int)pid);
  }
  return path;
}

static int compare_pids(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

/* The pids of the raw results in `dir`, sorted, each once; *count of
 * them. */
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
  size_t unique = 0;
  for (size_t i = 0; i < n; i++)
    if (!unique || pids[unique - 1] != pids[i])
      pids[unique++] = pids[i];
  *count = unique;
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

static void keep_raw_results(struct run_results *r, const pid_t *pids,
                             size_t n) {
  for (size_t i = 0; i < n; i++) {
    int snapshot;
    char *from = raw_path(r->raw_dir, pids[i], &snapshot);
    char *to = xasprintf("%s/%s", r->keep_raw, strrchr(from, '/') + 1);
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
static int write_document(struct run_results *r, json_object *doc,
                          const char *output, const char *about) {
  char verr[1024], werr[1024];
  phases_add(doc);
  int invalid = pisa_document_validate(doc, verr, sizeof verr) != 0;
  enum pisa_write_status written =
      pisa_write_json_atomic(output, doc, r->force, werr, sizeof werr);
  if (written != PISA_WRITE_OK) {
    error("%s", werr);
    /* Not written for want of room (or another I/O error): the raw results
     * are kept.  A file that appeared meanwhile keeps the document. */
    r->unwritten |= written == PISA_WRITE_ERROR;
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

static void report_bad_raw(struct run_results *r, pid_t pid, const char *why) {
  if (r->keep_raw)
    error(
        "malformed analysis result of process %d: %s (kept in %s/raw.%d.json)",
        (int)pid, why, r->keep_raw, (int)pid);
  else
    error(
        "malformed analysis result of process %d: %s (--keep-raw DIR keeps it)",
        (int)pid, why);
}

/* The raw result at `path` (process `pid`'s), checked; NULL after an
 * error message. */
static json_object *read_raw_file(struct run_results *r, pid_t pid,
                                  const char *path) {
  char err[1024];
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
  return raw;
}

/* ---- Earlier images of a process (exec) --------------------------------
 * An exec'd instrumented image keeps the result its process wrote before
 * the exec as exec.PID.N.json (N = 0, 1, ... in order); the process's
 * result covers every image: the entries of an earlier image merge into
 * the final one's (metricsmerge.h, objectmerge.h), matched by thread
 * number, function, region name, loop, source line and data object. */

static void merge_earlier_image(json_object *raw, json_object *earlier) {
  static const char *const Thread[] = {"thread", NULL};
  static const char *const Function[] = {"linkage_name", "module", NULL};
  static const char *const Region[] = {"name", NULL};
  pisa_metrics_merge(json_at(raw, "totals"), json_at(earlier, "totals"));
  pisa_entries_merge(json_at(raw, "threads"), json_at(earlier, "threads"),
                     Thread);
  pisa_entries_merge(json_at(raw, "functions"), json_at(earlier, "functions"),
                     Function);
  pisa_entries_merge(json_at(raw, "regions"), json_at(earlier, "regions"),
                     Region);
  pisa_source_merge(raw, earlier);
  pisa_objects_merge(raw, earlier, PISA_PARTS_SEQUENTIAL);
  if (!json_object_get_boolean(json_at(earlier, "complete")))
    json_object_object_add(raw, "complete", json_object_new_boolean(0));
}

/* The raw result of process `pid`, with its earlier images; NULL after an
 * error message. */
static json_object *read_raw_result(struct run_results *r, pid_t pid) {
  int snapshot;
  char *path = raw_path(r->raw_dir, pid, &snapshot);
  json_object *raw = read_raw_file(r, pid, path);
  free(path);
  if (raw && snapshot)
    warning("process %d left no analysis result (%s); its document holds "
            "the last snapshot (PISA_SNAPSHOT_INTERVAL) and is marked "
            "incomplete",
            (int)pid, pid == r->pid ? describe_exit(&r->program) : "killed");
  for (int n = 0; raw; n++) {
    path = xasprintf("%s/exec.%d.%d.json", r->raw_dir, (int)pid, n);
    json_object *earlier =
        access(path, F_OK) == 0 ? read_raw_file(r, pid, path) : NULL;
    free(path);
    if (!earlier)
      break;
    merge_earlier_image(raw, earlier);
    json_object_put(earlier);
  }
  return raw;
}

static int other_process_document(struct run_results *r, pid_t pid);

static int has_rank(json_object *ranks, int64_t rank) {
  for (size_t i = 0; i < json_object_array_length(ranks); i++)
    if (json_object_get_int64(
            json_at(json_object_array_get_idx(ranks, i), "rank")) == rank)
      return 1;
  return 0;
}

/* The document of one rank that pisa-char ran alone (mpirun ... pisa-char
 * ./app): the job's other ranks write documents of their own, so they are
 * not failures of this one; only its own ranks' failures count. */
static void keep_own_failures(json_object *doc) {
  json_object *failed = json_at(doc, "mpi/failed_ranks");
  json_object *ranks = json_at(doc, "ranks"), *own = json_object_new_array();
  for (size_t i = 0; failed && i < json_object_array_length(failed); i++) {
    json_object *f = json_object_array_get_idx(failed, i);
    if (has_rank(ranks, json_object_get_int64(json_at(f, "rank"))))
      json_object_array_add(own, json_object_get(f));
  }
  json_object_object_add(
      doc, "complete", json_object_new_boolean(!json_object_array_length(own)));
  json_object_object_add(json_at(doc, "mpi"), "failed_ranks", own);
}

/* The merged document of the ranks in `raws` (NULL entries skipped). */
static int ranks_document(struct run_results *r, json_object **raws, size_t n) {
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, r->mpi_ranks);
  for (size_t i = 0; i < n; i++)
    if (raws[i] && pisa_rank_merge_add(&m, raws[i]) != 0) {
      error("%s", m.err);
      pisa_rank_merge_discard(&m);
      return RUN_FAILED;
    }
  json_object *doc = pisa_rank_merge_finish(&m, &r->program);
  if (!doc) {
    error("%s", m.err);
    return RUN_FAILED;
  }
  if (!r->mpi_ranks)
    keep_own_failures(doc);
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
static int write_mpi_results(struct run_results *r, const pid_t *pids,
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

static int main_document(struct run_results *r) {
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

static int other_process_document(struct run_results *r, pid_t pid) {
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

int run_results_write(struct run_results *r) {
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

/* ---- Keeping the raw results for `pisa-char recover` ------------------- */

#define RUN_DESCRIPTION "run.json"

static char *absolute_path(const char *path) {
  char cwd[4096];
  if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
    return xstrdup(path);
  return xasprintf("%s/%s", cwd, path);
}

int run_results_describe(const struct run_results *r) {
  json_object *run = json_object_new_object();
  char *output = absolute_path(r->output);
  json_object_object_add(run, "output", json_object_new_string(output));
  json_object_object_add(run, "pid", json_object_new_int64(r->pid));
  json_object_object_add(run, "mpi_ranks", json_object_new_int(r->mpi_ranks));
  json_object_object_add(run, "program", pisa_program_object(&r->program));
  char *path = xasprintf("%s/%s", r->raw_dir, RUN_DESCRIPTION);
  int rc = json_object_to_file(path, run);
  json_object_put(run);
  free(output);
  free(path);
  return rc;
}

int run_results_keep(const struct run_results *r) {
  if (run_results_describe(r) != 0) {
    error("cannot keep the raw results in %s: %s", r->raw_dir, strerror(errno));
    return -1;
  }
  error("the raw results are kept in %s; 'pisa-char recover %s' writes the "
        "documents once there is room",
        r->raw_dir, r->raw_dir);
  return 0;
}

static char *string_at(json_object *o, const char *path) {
  const char *s = json_object_get_string(json_at(o, path));
  return xstrdup(s ? s : "");
}

/* The program's run as recorded in run.json; its strings are allocated. */
static void program_from_json(json_object *p, struct pisa_program_run *run) {
  json_object *args = json_at(p, "args");
  int n = json_object_is_type(args, json_type_array)
              ? (int)json_object_array_length(args)
              : 0;
  char **v = xmalloc((size_t)(n + 1) * sizeof *v);
  for (int i = 0; i < n; i++)
    v[i] = xstrdup(json_object_get_string(json_object_array_get_idx(args, i)));
  v[n] = NULL;
  *run = (struct pisa_program_run){
      .path = string_at(p, "path"),
      .args = v,
      .nargs = n,
      .exit_status = json_object_get_int(json_at(p, "exit_status")),
      .signal = json_object_get_int(json_at(p, "signal")),
      .wall_seconds = json_object_get_double(json_at(p, "wall_seconds"))};
}

int run_results_load(const char *dir, struct run_results *r) {
  char err[1024];
  char *path = xasprintf("%s/%s", dir, RUN_DESCRIPTION);
  json_object *run = pisa_read_json_file(path, err, sizeof err);
  free(path);
  if (!run || !json_object_is_type(json_at(run, "output"), json_type_string) ||
      !json_object_is_type(json_at(run, "program"), json_type_object)) {
    error("%s: not the raw results of a pisa-char run (%s)", dir,
          run ? "no run description" : err);
    json_object_put(run);
    return -1;
  }
  *r = (struct run_results){
      .output = string_at(run, "output"),
      .raw_dir = dir,
      .force = 1,
      .mpi_ranks = json_object_get_int(json_at(run, "mpi_ranks")),
      .pid = (pid_t)json_object_get_int64(json_at(run, "pid"))};
  program_from_json(json_at(run, "program"), &r->program);
  json_object_put(run);
  if (!r->pid) { /* described before it ran: the first process started */
    size_t n;
    pid_t *pids = list_raw_results(dir, &n);
    r->pid = n ? pids[0] : 0;
    free(pids);
  }
  return 0;
}
