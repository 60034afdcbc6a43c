/* measure.c: pisa-bench's runs and their statistics.  Every tool of one
 * repetition runs back to back, so a change of load on the machine hits them
 * alike; CPU time and peak RSS come from wait4, which counts pisa-char and
 * the program it waits for together. */
#include "bench.h"
#include "child.h"
#include "jsonpath.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Running a command ------------------------------------------------- */

static double seconds(struct timeval tv) {
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static unsigned long long fnv1a(unsigned long long h, const char *bytes,
                                size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)bytes[i]) * 0x100000001b3ULL;
  return h;
}

/* The beginning of what a child wrote to a file, up to OUTPUT_KEPT bytes
 * (empty when it cannot be read): enough for the kernels' checksum lines
 * and for a failed run's messages, and pisa-bench stays small however much
 * a program prints (see read_pisa_counts).  With hash, also the FNV-1a (64
 * bits) of the whole file, read in the same pass. */
#define OUTPUT_KEPT 65536
static char *read_output(const char *path, unsigned long long *hash) {
  FILE *f = fopen(path, "rb");
  char *text = xmalloc(OUTPUT_KEPT + 1), rest[OUTPUT_KEPT];
  size_t got = f ? fread(text, 1, OUTPUT_KEPT, f) : 0;
  text[got] = '\0';
  if (hash) {
    *hash = fnv1a(0xcbf29ce484222325ULL, text, got);
    for (size_t n; f && (n = fread(rest, 1, sizeof rest, f)) > 0;)
      *hash = fnv1a(*hash, rest, n);
  }
  if (f)
    fclose(f);
  return text;
}

/* Runs argv (searched in PATH) with stdin from /dev/null and stdout and
 * stderr in files of tmpdir; returns the wait status.  The rusage of wait4
 * covers the child and every descendant it waited for: pisa-char waits for
 * the program, so its CPU time is counted and its peak RSS is the larger of
 * the two (Linux keeps the largest ru_maxrss of waited descendants). */
static int run_command(const char *tmpdir, char *const argv[], struct run *run,
                       char **out, char **err) {
  char *out_path = xasprintf("%s/stdout", tmpdir),
       *err_path = xasprintf("%s/stderr", tmpdir);
  struct child_spec spec = {.file = argv[0],
                            .search = 1,
                            .argv = argv,
                            .in = "/dev/null",
                            .out = out_path,
                            .err = err_path,
                            .who = "run"};
  double start = child_clock();
  pid_t pid = child_start(&spec, NULL);
  if (pid < 0)
    die_status(1, "fork failed: %s", strerror(errno));
  int status;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      die_status(1, "wait failed: %s", strerror(errno));
  run->wall = child_clock() - start;
  run->cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  run->rss_kib = usage.ru_maxrss;
  *out = read_output(out_path, &run->output_hash);
  *err = read_output(err_path, NULL);
  unlink(out_path), unlink(err_path);
  free(out_path), free(err_path);
  return status;
}

/* The first line a command prints (a version), or "unknown". */
char *first_output_line(const char *tmpdir, char *const argv[]) {
  struct run run;
  char *out, *err;
  int status = run_command(tmpdir, argv, &run, &out, &err);
  const char *text = *out ? out : err;
  char *line = WIFEXITED(status) && WEXITSTATUS(status) == 0 && *text
                   ? strndup(text, strcspn(text, "\n"))
                   : xstrdup("unknown");
  free(out), free(err);
  return line;
}

/* ---- One kernel ---------------------------------------------------------- */

/* The value of the kernel's "checksum VALUE" line, or NULL. */
static char *find_checksum(const char *out) {
  for (const char *line = out; line && *line;) {
    if (!strncmp(line, "checksum ", 9))
      return strndup(line + 9, strcspn(line + 9, "\n"));
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return NULL;
}

static char *pisa_document(const struct bench *b, const char *kernel) {
  return xasprintf("%s/%s.pisa.json", b->tmpdir, kernel);
}

/* The command of one run: [pisa-char -q --force ARGS -o DOC | valgrind ARGS]
 * DIR/BUILD/K KERNEL_ARGS.  owned[0..1] get what the caller frees. */
static void build_argv(const struct bench *b, const struct tool *tool,
                       const struct kernel_result *k, char *argv[],
                       char *owned[2]) {
  int n = 0;
  owned[0] = NULL;
  if (tool->kind == TOOL_PISA) {
    argv[n++] = (char *)b->pisa_char;
    argv[n++] = "-q";
    argv[n++] = "--force";
  } else if (tool->kind == TOOL_CACHEGRIND) {
    argv[n++] = b->valgrind;
  }
  for (int i = 0; tool->args[i]; i++)
    argv[n++] = tool->args[i];
  if (tool->kind == TOOL_PISA) {
    argv[n++] = "-o";
    argv[n++] = owned[0] = pisa_document(b, k->name);
  }
  argv[n++] = owned[1] = xasprintf("%s/%s/%s", b->dir, tool->build, k->name);
  for (int i = 0; k->args[i]; i++)
    argv[n++] = k->args[i];
  argv[n] = NULL;
}

/* The run's checksum: its "checksum VALUE" line, or with --output-checksum
 * the hash of its whole output; NULL when it printed no checksum line. */
static char *run_checksum(const struct bench *b, const struct run *run,
                          const char *out) {
  return b->output_checksum ? xasprintf("output %016llx", run->output_hash)
                            : find_checksum(out);
}

/* Whether a run exited 0 and printed the kernel's checksum (the first
 * native run sets it); says why not on stderr. */
static bool check_run(const struct bench *b, struct kernel_result *k,
                      const char *tool, const struct run *run, int status,
                      const char *out, const char *err) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error("%s (%s) %s %d; its output:\n%s%s", k->name, tool,
          WIFSIGNALED(status) ? "died of signal" : "exited with status",
          WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), out,
          err);
    return false;
  }
  char *sum = run_checksum(b, run, out);
  bool ok = sum && (!k->checksum || !strcmp(sum, k->checksum));
  if (!sum)
    error("%s (%s) printed no checksum line", k->name, tool);
  else if (!ok)
    error("%s (%s): checksum %s differs from native %s", k->name, tool, sum,
          k->checksum);
  else if (!k->checksum)
    k->checksum = xstrdup(sum);
  free(sum);
  return ok;
}

/* Dynamic instructions and memory accesses (every kind added) of a
 * pisa-char document: counts[0] and counts[1], -1 where it has none. */
static void document_counts(const char *path, long long counts[2]) {
  struct json_object *doc = json_object_from_file(path);
  struct json_object *accesses = json_at(doc, "totals/memory_accesses");
  double instructions;
  counts[0] = counts[1] = -1;
  if (json_number_at(doc, "totals/instructions", &instructions))
    counts[0] = (long long)instructions;
  if (accesses) {
    counts[1] = 0;
    json_object_object_foreach(accesses, key, val) {
      (void)key;
      counts[1] += json_object_get_int64(val);
    }
  }
  json_object_put(doc);
}

/* The counts of the first pisa-char document of the kernel, read in a
 * child process: a document can be tens of MB, and the heap it would leave
 * in pisa-bench would count in the peak RSS of every later run (a forked
 * child's ru_maxrss starts at its parent's resident set). */
static void read_pisa_counts(const char *path, struct kernel_result *k) {
  long long counts[2];
  int fd[2];
  if (pipe(fd) != 0)
    return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    document_counts(path, counts);
    _exit(write(fd[1], counts, sizeof counts) == sizeof counts ? 0 : 1);
  }
  close(fd[1]);
  if (pid > 0 && read(fd[0], counts, sizeof counts) == sizeof counts) {
    k->instructions = counts[0];
    k->accesses = counts[1];
  }
  close(fd[0]);
  if (pid > 0)
    waitpid(pid, NULL, 0);
}

/* One run of kernel k under tool t; a failed run fails the tool. */
static void run_once(const struct bench *b, struct kernel_result *k, int t) {
  const struct tool *tool = &b->tools[t];
  char *argv[8 + MAX_TOOL_ARGS + MAX_KERNEL_ARGS], *owned[2], *out, *err;
  struct run run;
  build_argv(b, tool, k, argv, owned);
  int status = run_command(b->tmpdir, argv, &run, &out, &err);
  fprintf(stderr,
          "pisa-bench: %-15s %-15s cpu %8.3f s  wall %8.3f s  %8.1f MiB\n",
          k->name, tool->name, run.cpu, run.wall, (double)run.rss_kib / 1024);
  if (check_run(b, k, tool->name, &run, status, out, err))
    k->runs[t][k->done[t]++] = run;
  else
    k->failed[t] = true;
  if (owned[0] && k->instructions < 0 && !k->failed[t])
    read_pisa_counts(owned[0], k);
  if (owned[0])
    unlink(owned[0]);
  free(out), free(err), free(owned[0]), free(owned[1]);
}

void bench_kernel(const struct bench *b, struct kernel_result *k) {
  k->instructions = k->accesses = -1;
  for (int rep = 0; rep < b->reps && !k->failed[0]; rep++)
    for (int t = 0; t < b->tool_count && !k->failed[0]; t++)
      if (!k->failed[t])
        run_once(b, k, t);
}

/* ---- Statistics ---------------------------------------------------------- */

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double measured(const struct run *run, enum measure m) {
  return m == MEASURE_CPU    ? run->cpu
         : m == MEASURE_WALL ? run->wall
                             : (double)run->rss_kib;
}

/* Median of one measure over a tool's successful runs; 0 if none. */
double median(const struct kernel_result *k, int tool, enum measure m) {
  double v[MAX_REPS];
  int n = k->done[tool];
  if (n == 0)
    return 0;
  for (int i = 0; i < n; i++)
    v[i] = measured(&k->runs[tool][i], m);
  qsort(v, (size_t)n, sizeof(*v), compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether the tool and native ran every repetition of the kernel. */
bool complete(const struct bench *b, const struct kernel_result *k, int tool) {
  return !k->failed[tool] && !k->failed[0] && k->done[tool] == b->reps &&
         k->done[0] == b->reps;
}

/* The tool's median over native's median of the same run. */
double ratio(const struct kernel_result *k, int tool, enum measure m) {
  return median(k, tool, m) / median(k, 0, m);
}

/* Geometric mean of the tool's ratios over the kernels it completed; 0 if
 * none.  *count gets their number. */
double geomean(const struct bench *b, int tool, enum measure m, int *count) {
  double log_sum = 0;
  *count = 0;
  for (size_t i = 0; i < b->kernel_count; i++)
    if (complete(b, &b->kernels[i], tool)) {
      log_sum += log(ratio(&b->kernels[i], tool, m));
      ++*count;
    }
  return *count ? exp(log_sum / *count) : 0;
}
