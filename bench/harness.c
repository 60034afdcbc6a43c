/* harness.c: pisa-bench, the slowdown benchmark.  Runs every kernel natively,
 * instrumented under pisa-char and natively under cachegrind, interleaved in
 * one run; prints median wall times, slowdowns and their geometric means. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Set by bench/CMakeLists.txt: the kernels built next to the harness and
 * the flags both builds of them used. */
#ifndef PISA_BENCH_KERNELS
#error "PISA_BENCH_KERNELS must list the kernels (comma-separated)"
#endif
#ifndef PISA_BENCH_CFLAGS
#define PISA_BENCH_CFLAGS "?"
#endif

#define MAX_REPS 101

enum tool { TOOL_NATIVE, TOOL_PISA, TOOL_CACHEGRIND, NUM_TOOLS };

static const char *const ToolNames[NUM_TOOLS] = {"native", "pisa",
                                                 "cachegrind"};

struct options {
  int reps;
  bool cachegrind;
  char *kernels; /* comma-separated */
  const char *out;
  const char *dir;            /* holds native/<k> and pisa/<k> */
  const char *pisa_char;      /* the pisa-char command */
  const char *metrics;        /* pisa-char --metrics LIST */
  char *args;                 /* per-kernel arguments: K=A:B,K2=C */
  double target;              /* the geomean slowdown to meet */
  bool counter;               /* --mode counter: DIR/counter/K, no --metrics */
  unsigned long sample_every; /* pisa-char --sample-every N, 0 = none */
};

/* Issue 2's metric set (instruction mix, footprint, external calls): the
 * default run, at the kernels' default sizes. */
#define DEFAULT_METRICS "footprint"
#define DEFAULT_TARGET 10.0
/* Presets at sizes that run about 0.05 s natively, so that 3 repetitions
 * of all kernels with cachegrind take minutes: --memory (issue 3's memory
 * families), --parallelism (issue 4's ILP/DLP and BBLP/PBBLP) and --all
 * (every family together). */
#define MEMORY_METRICS "footprint,entropy,reuse,locality,classes,branch"
#define MEMORY_TARGET 60.0
#define PARALLELISM_METRICS "ilp,bblp"
#define PARALLELISM_TARGET 40.0
#define ALL_METRICS "all"
#define ALL_TARGET 100.0
#define MEMORY_ARGS                                                            \
  "gemm=500,atax=2000:8,jacobi-2d=1000:30,floyd-warshall=500,"                 \
  "pointer-chase=1048576:524288,triad=2097152:10"
#define MAX_KERNEL_ARGS 8
/* --mode counter: issue 6's target, a few percent over native. */
#define COUNTER_TARGET 1.05

/* One execution: wall and CPU (user + system, children included) time. */
struct run {
  double wall;
  double cpu;
};

struct kernel_result {
  const char *name;
  struct run runs[NUM_TOOLS][MAX_REPS];
  int done[NUM_TOOLS]; /* successful runs */
  char *checksum;      /* of the first native run */
  bool failed;
  char *args[MAX_KERNEL_ARGS + 1]; /* the kernel's arguments, NULL-ended */
  long long instructions; /* from the pisa-char document, -1 if unknown */
  long long accesses;
};

struct bench {
  struct options opt;
  char *valgrind; /* NULL when not found or not wanted */
  char *tmpdir;
  struct kernel_result *results;
  size_t count;
};

/* ---- Running a command ------------------------------------------------- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timeval_seconds(struct timeval tv) {
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* An anonymous file for a child's output: no pipe to drain while it runs. */
static int temp_file(void) {
  int fd = memfd_create("pisa-bench", 0);
  if (fd < 0)
    die_status(1, "cannot create a temporary file: %s", strerror(errno));
  return fd;
}

static char *read_fd(int fd) {
  off_t size = lseek(fd, 0, SEEK_END);
  char *text = xmalloc((size_t)(size > 0 ? size : 0) + 1);
  ssize_t got = size > 0 ? pread(fd, text, (size_t)size, 0) : 0;
  text[got > 0 ? got : 0] = '\0';
  close(fd);
  return text;
}

static _Noreturn void exec_child(char *const argv[], int out, int err) {
  int in = open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    _exit(127);
  execvp(argv[0], argv);
  fprintf(stderr, "pisa-bench: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

/* Runs argv with stdin from /dev/null and stdout and stderr captured;
 * returns the wait status.  The time includes fork and exec, as a shell's
 * would. */
static int run_command(char *const argv[], struct run *run, char **out,
                       char **err) {
  int out_fd = temp_file(), err_fd = temp_file();
  fflush(NULL);
  double start = now();
  pid_t pid = fork();
  if (pid < 0)
    die_status(1, "fork failed: %s", strerror(errno));
  if (pid == 0)
    exec_child(argv, out_fd, err_fd);
  int status;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      die_status(1, "wait failed: %s", strerror(errno));
  run->wall = now() - start;
  run->cpu = timeval_seconds(usage.ru_utime) + timeval_seconds(usage.ru_stime);
  *out = read_fd(out_fd);
  *err = read_fd(err_fd);
  return status;
}

static char *describe_status(int status) {
  if (WIFSIGNALED(status))
    return xasprintf("died of signal %d", WTERMSIG(status));
  return xasprintf("exited with status %d", WEXITSTATUS(status));
}

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

/* ---- One kernel --------------------------------------------------------- */

static char *pisa_document(const struct bench *b, const char *kernel) {
  return xasprintf("%s/%s.pisa.json", b->tmpdir, kernel);
}

static void build_argv(const struct bench *b, enum tool tool,
                       const struct kernel_result *r, char *argv[],
                       char **owned) {
  const char *kernel = r->name;
  int n = 0;
  owned[0] = owned[1] = owned[2] = NULL;
  if (tool == TOOL_PISA) {
    owned[0] = pisa_document(b, kernel);
    argv[n++] = (char *)b->opt.pisa_char;
    if (b->opt.counter)
      owned[2] = xasprintf("--sample-every=%lu",
                           b->opt.sample_every ? b->opt.sample_every : 1);
    else
      owned[2] = xasprintf("--metrics=%s", b->opt.metrics);
    argv[n++] = "-q";
    argv[n++] = "--force";
    if (b->opt.counter)
      argv[n++] = "--mode=counter";
    argv[n++] = owned[2];
    argv[n++] = "-o";
    argv[n++] = owned[0];
  } else if (tool == TOOL_CACHEGRIND) {
    argv[n++] = b->valgrind;
    argv[n++] = "--tool=cachegrind";
    argv[n++] = "--cache-sim=no";
    argv[n++] = "--cachegrind-out-file=/dev/null";
  }
  owned[1] = xasprintf("%s/%s/%s", b->opt.dir,
                       tool != TOOL_PISA ? "native"
                       : b->opt.counter  ? "counter"
                                         : "pisa",
                       kernel);
  argv[n++] = owned[1];
  for (int i = 0; r->args[i]; i++)
    argv[n++] = r->args[i];
  argv[n] = NULL;
}

/* Whether a run exited 0 and printed the kernel's checksum (the first
 * successful run sets it); says why not on stderr. */
static bool check_run(struct kernel_result *r, enum tool tool, int status,
                      const char *out, const char *err) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char *how = describe_status(status);
    error("%s (%s) %s; its output:\n%s%s", r->name, ToolNames[tool], how, out,
          err);
    free(how);
    return false;
  }
  char *sum = find_checksum(out);
  bool ok = sum && (!r->checksum || !strcmp(sum, r->checksum));
  if (!sum)
    error("%s (%s) printed no checksum line", r->name, ToolNames[tool]);
  else if (!ok)
    error("%s (%s): checksum %s differs from native %s", r->name,
          ToolNames[tool], sum, r->checksum);
  else if (!r->checksum)
    r->checksum = xstrdup(sum);
  free(sum);
  return ok;
}

/* One run of kernel r under tool; a failed run marks the kernel failed. */
static void run_once(const struct bench *b, struct kernel_result *r,
                     enum tool tool) {
  char *argv[16 + MAX_KERNEL_ARGS], *owned[3], *out, *err;
  struct run run;
  build_argv(b, tool, r, argv, owned);
  int status = run_command(argv, &run, &out, &err);
  fprintf(stderr, "pisa-bench: %-15s %-10s %8.3f s\n", r->name, ToolNames[tool],
          run.wall);
  if (check_run(r, tool, status, out, err))
    r->runs[tool][r->done[tool]++] = run;
  else
    r->failed = true;
  free(out), free(err), free(owned[0]), free(owned[1]), free(owned[2]);
}

static long long json_count(struct json_object *obj, const char *key) {
  struct json_object *v;
  return json_object_object_get_ex(obj, key, &v) ? json_object_get_int64(v)
                                                 : -1;
}

/* Dynamic instructions and memory accesses (every kind of memory_accesses
 * added) from the last pisa-char document, to put slowdowns per event. */
static void read_pisa_counts(const struct bench *b, struct kernel_result *r) {
  char *path = pisa_document(b, r->name);
  struct json_object *doc = json_object_from_file(path), *totals, *acc;
  r->instructions = r->accesses = -1;
  if (doc && json_object_object_get_ex(doc, "totals", &totals)) {
    r->instructions = json_count(totals, "instructions");
    if (json_object_object_get_ex(totals, "memory_accesses", &acc)) {
      r->accesses = 0;
      json_object_object_foreach(acc, key, val) {
        (void)key;
        r->accesses += json_object_get_int64(val);
      }
    }
  }
  json_object_put(doc);
  unlink(path);
  free(path);
}

/* The tools of one repetition run back to back, so load changes on the
 * machine hit all of them alike. */
static void bench_kernel(const struct bench *b, struct kernel_result *r) {
  for (int rep = 0; rep < b->opt.reps && !r->failed; rep++)
    for (int t = 0; t < NUM_TOOLS && !r->failed; t++)
      if (t != TOOL_CACHEGRIND || b->valgrind)
        run_once(b, r, (enum tool)t);
  read_pisa_counts(b, r);
}

/* ---- Statistics ---------------------------------------------------------- */

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median wall (cpu = false) or CPU time of a tool's runs; 0 if none. */
static double median(const struct kernel_result *r, enum tool t, bool cpu) {
  double v[MAX_REPS];
  int n = r->done[t];
  if (n == 0)
    return 0;
  for (int i = 0; i < n; i++)
    v[i] = cpu ? r->runs[t][i].cpu : r->runs[t][i].wall;
  qsort(v, (size_t)n, sizeof(*v), compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool complete(const struct bench *b, const struct kernel_result *r,
                     enum tool t) {
  return !r->failed && r->done[t] == b->opt.reps && r->done[TOOL_NATIVE] > 0;
}

static double slowdown(const struct kernel_result *r, enum tool t, bool cpu) {
  return median(r, t, cpu) / median(r, TOOL_NATIVE, cpu);
}

/* Geometric mean of a tool's slowdowns over the kernels that completed; 0 if
 * there are none.  *count gets their number. */
static double geomean(const struct bench *b, enum tool t, bool cpu,
                      int *count) {
  double log_sum = 0;
  *count = 0;
  for (size_t i = 0; i < b->count; i++)
    if (complete(b, &b->results[i], t)) {
      log_sum += log(slowdown(&b->results[i], t, cpu));
      ++*count;
    }
  return *count ? exp(log_sum / *count) : 0;
}

/* ---- Machine information ---------------------------------------------------
 */

static char *cpu_model(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && !strncmp(line, "model name", 10)) {
      fclose(f);
      colon += strspn(colon + 1, " \t") + 1;
      return strndup(colon, strcspn(colon, "\n"));
    }
  }
  if (f)
    fclose(f);
  return xstrdup("unknown");
}

static long long mem_total_kib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  long long kib = -1;
  if (f && fscanf(f, "MemTotal: %lld kB", &kib) != 1)
    kib = -1;
  if (f)
    fclose(f);
  return kib;
}

static double load_average(void) {
  double load[1];
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

static struct json_object *machine_info(void) {
  struct json_object *m = json_object_new_object();
  struct utsname u;
  char *cpu = cpu_model();
  json_object_object_add(m, "cpu", json_object_new_string(cpu));
  json_object_object_add(m, "cpus",
                         json_object_new_int(sysconf(_SC_NPROCESSORS_ONLN)));
  json_object_object_add(m, "mem_kib", json_object_new_int64(mem_total_kib()));
  if (uname(&u) == 0)
    json_object_object_add(m, "kernel", json_object_new_string(u.release));
  json_object_object_add(m, "load_average_start",
                         json_object_new_double(load_average()));
  free(cpu);
  return m;
}

/* ---- Output -------------------------------------------------------------- */

static void print_header(const struct bench *b, struct json_object *m) {
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&t));
  printf("pisa-bench: %s\n", date);
  printf(
      "machine: %s, %d cpus, %.1f GiB, Linux %s, load average %.2f\n",
      json_object_get_string(json_object_object_get(m, "cpu")),
      json_object_get_int(json_object_object_get(m, "cpus")),
      (double)json_object_get_int64(json_object_object_get(m, "mem_kib")) /
          1048576,
      json_object_get_string(json_object_object_get(m, "kernel")),
      json_object_get_double(json_object_object_get(m, "load_average_start")));
  printf("kernels: %s -> native/ and (pisa-cc) pisa/ in %s\n",
         PISA_BENCH_CFLAGS, b->opt.dir);
  if (b->opt.counter)
    printf("pisa: %s -q --force --mode=counter --sample-every=%lu -o FILE "
           "(counter/); cachegrind: %s\n",
           b->opt.pisa_char, b->opt.sample_every ? b->opt.sample_every : 1,
           b->valgrind ? "--tool=cachegrind --cache-sim=no" : "not run");
  else
    printf("pisa: %s -q --force --metrics=%s -o FILE; cachegrind: %s\n",
           b->opt.pisa_char, b->opt.metrics,
           b->valgrind ? "--tool=cachegrind --cache-sim=no" : "not run");
  printf("arguments: %s\n", b->opt.args ? b->opt.args : "the defaults");
  printf("median of %d runs, wall time (CLOCK_MONOTONIC) per process\n\n",
         b->opt.reps);
}

static void print_cell(double v, const char *fmt, int width, bool valid) {
  if (valid)
    printf(fmt, width, v);
  else
    printf("%*s", width, "-");
}

/* Nanoseconds pisa-char adds per memory access (wall time). */
static double ns_per_access(const struct kernel_result *r) {
  double extra = median(r, TOOL_PISA, false) - median(r, TOOL_NATIVE, false);
  return 1e9 * extra / (double)r->accesses;
}

static void print_row(const struct bench *b, const struct kernel_result *r) {
  bool p = complete(b, r, TOOL_PISA), c = complete(b, r, TOOL_CACHEGRIND);
  printf("%-15s", r->name);
  print_cell(median(r, TOOL_NATIVE, false), "%*.3f", 10, r->done[0] > 0);
  print_cell(median(r, TOOL_PISA, false), "%*.3f", 10, p);
  /* counter mode's few percent need two decimals */
  print_cell(slowdown(r, TOOL_PISA, false),
             b->opt.counter ? "%*.2fx" : "%*.1fx", 9, p);
  print_cell(median(r, TOOL_CACHEGRIND, false), "%*.3f", 14, c);
  print_cell(slowdown(r, TOOL_CACHEGRIND, false), "%*.1fx", 13, c);
  print_cell((double)r->accesses / 1e6, "%*.0f", 12, p && r->accesses > 0);
  print_cell(ns_per_access(r), "%*.2f", 10, p && r->accesses > 0);
  printf("%s\n", r->failed ? "  FAILED" : "");
}

static void print_geomean_row(const struct bench *b, bool cpu) {
  int np, nc;
  double gp = geomean(b, TOOL_PISA, cpu, &np);
  double gc = geomean(b, TOOL_CACHEGRIND, cpu, &nc);
  printf("%-35s", cpu ? "geomean (cpu time)" : "geomean");
  print_cell(gp, b->opt.counter ? "%*.2fx" : "%*.1fx", 9, np > 0);
  printf("%14s", "");
  print_cell(gc, "%*.1fx", 13, nc > 0);
  printf("\n");
}

static void print_table(const struct bench *b) {
  printf("%-15s%10s%10s%10s%14s%14s%12s%10s\n", "kernel", "native s", "pisa s",
         "pisa x", "cachegrind s", "cachegrind x", "accesses M", "ns/access");
  for (size_t i = 0; i < b->count; i++)
    print_row(b, &b->results[i]);
  print_geomean_row(b, false);
  print_geomean_row(b, true);
  int np, nc;
  double gp = geomean(b, TOOL_PISA, false, &np);
  double gc = geomean(b, TOOL_CACHEGRIND, false, &nc);
  if (np > 0)
    printf("\npisa geomean slowdown %.*fx over %d kernels: target <= %gx %s\n",
           b->opt.counter ? 2 : 1, gp, np, b->opt.target,
           gp <= b->opt.target ? "met" : "NOT met");
  if (np > 0 && nc > 0)
    printf("cachegrind / pisa (geomean slowdowns): %.2f\n", gc / gp);
  printf("ns/access: (pisa s - native s) / memory accesses reported by "
         "pisa-char\n");
}

static struct json_object *tool_json(const struct kernel_result *r,
                                     enum tool t) {
  struct json_object *o = json_object_new_object(),
                     *runs = json_object_new_array();
  for (int i = 0; i < r->done[t]; i++) {
    struct json_object *run = json_object_new_object();
    json_object_object_add(run, "wall_seconds",
                           json_object_new_double(r->runs[t][i].wall));
    json_object_object_add(run, "cpu_seconds",
                           json_object_new_double(r->runs[t][i].cpu));
    json_object_array_add(runs, run);
  }
  json_object_object_add(o, "runs", runs);
  json_object_object_add(o, "median_wall_seconds",
                         json_object_new_double(median(r, t, false)));
  json_object_object_add(o, "median_cpu_seconds",
                         json_object_new_double(median(r, t, true)));
  return o;
}

static struct json_object *kernel_json(const struct bench *b,
                                       const struct kernel_result *r) {
  struct json_object *k = json_object_new_object();
  json_object_object_add(k, "name", json_object_new_string(r->name));
  json_object_object_add(k, "ok", json_object_new_boolean(!r->failed));
  struct json_object *args = json_object_new_array();
  for (int i = 0; r->args[i]; i++)
    json_object_array_add(args, json_object_new_string(r->args[i]));
  json_object_object_add(k, "arguments", args);
  json_object_object_add(
      k, "checksum", r->checksum ? json_object_new_string(r->checksum) : NULL);
  for (int t = 0; t < NUM_TOOLS; t++) {
    if (r->done[t] == 0)
      continue;
    json_object_object_add(k, ToolNames[t], tool_json(r, (enum tool)t));
    if (t != TOOL_NATIVE && complete(b, r, (enum tool)t)) {
      char *key = xasprintf("%s_slowdown", ToolNames[t]);
      json_object_object_add(
          k, key, json_object_new_double(slowdown(r, (enum tool)t, false)));
      free(key);
    }
  }
  if (r->instructions >= 0)
    json_object_object_add(k, "instructions",
                           json_object_new_int64(r->instructions));
  if (r->accesses >= 0)
    json_object_object_add(k, "memory_accesses",
                           json_object_new_int64(r->accesses));
  return k;
}

static void write_json(const struct bench *b, struct json_object *machine) {
  struct json_object *doc = json_object_new_object();
  struct json_object *kernels = json_object_new_array();
  struct json_object *geo = json_object_new_object();
  json_object_object_add(doc, "tool", json_object_new_string("pisa-bench"));
  json_object_object_add(doc, "machine", json_object_get(machine));
  json_object_object_add(doc, "cflags",
                         json_object_new_string(PISA_BENCH_CFLAGS));
  json_object_object_add(doc, "reps", json_object_new_int(b->opt.reps));
  json_object_object_add(doc, "metrics",
                         json_object_new_string(b->opt.metrics));
  json_object_object_add(doc, "target_geomean_slowdown",
                         json_object_new_double(b->opt.target));
  for (size_t i = 0; i < b->count; i++)
    json_object_array_add(kernels, kernel_json(b, &b->results[i]));
  json_object_object_add(doc, "kernels", kernels);
  for (int t = TOOL_PISA; t < NUM_TOOLS; t++) {
    int n;
    double g = geomean(b, (enum tool)t, false, &n);
    if (n > 0)
      json_object_object_add(geo, ToolNames[t], json_object_new_double(g));
  }
  json_object_object_add(doc, "geomean_slowdown", geo);
  if (json_object_to_file_ext(b->opt.out, doc, JSON_C_TO_STRING_PRETTY) < 0)
    die_status(1, "cannot write %s: %s", b->opt.out, json_util_get_last_err());
  json_object_put(doc);
}

/* ---- Set-up ----------------------------------------------------------------
 */

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: pisa-bench [--reps N] [--no-cachegrind] [--kernels A,B,...]\n"
      "                  [--out FILE.json] [--dir DIR] [--pisa-char PATH]\n"
      "                  [--metrics LIST] [--args K=A:B,...] [--memory |\n"
      "                  --parallelism | --all]\n"
      "\n"
      "Runs each benchmark kernel natively (DIR/native/K), instrumented\n"
      "under 'pisa-char -q --force -o FILE' (DIR/pisa/K) and natively under\n"
      "'valgrind --tool=cachegrind --cache-sim=no', N times each,\n"
      "interleaved, and prints median wall times and slowdowns.\n"
      "\n"
      "  --reps N          runs per kernel and tool (default 3)\n"
      "  --no-cachegrind   do not run cachegrind\n"
      "  --kernels LIST    kernels to run (default: %s)\n"
      "  --out FILE        also write the results as JSON to FILE\n"
      "  --dir DIR         where native/ and pisa/ are (default: the\n"
      "                    harness's directory)\n"
      "  --pisa-char PATH  pisa-char to use (default: ../bin/pisa-char\n"
      "                    next to the harness)\n"
      "  --metrics LIST    pisa-char --metrics (default " DEFAULT_METRICS
      ", issue 2's\n"
      "                    set: instruction mix, footprint, external calls;\n"
      "                    target %gx)\n"
      "  --args K=A:B,...  run kernel K with arguments A B (default: the\n"
      "                    kernel's own defaults)\n"
      "  --mode counter    run DIR/counter/K (pisa-cc --mode=counter) under\n"
      "                    pisa-char --mode counter (issue 6, target 1.05x)\n"
      "  --sample-every N  with --mode counter: pisa-char --sample-every N\n"
      "  --memory          the memory families (issue 3, target %gx) at\n"
      "                    smaller sizes: --metrics " MEMORY_METRICS "\n"
      "                    --args " MEMORY_ARGS "\n"
      "  --parallelism     ILP/DLP and BBLP/PBBLP alone (issue 4, target\n"
      "                    %gx): --metrics " PARALLELISM_METRICS
      ", same sizes\n"
      "  --all             every family together (target %gx), same sizes\n"
      "\n"
      "Exit status: 0, or 1 when a run failed or a checksum differed.\n",
      PISA_BENCH_KERNELS, DEFAULT_TARGET, MEMORY_TARGET, PARALLELISM_TARGET,
      ALL_TARGET);
}

static bool in_list(const char *name, const char *list) {
  size_t n = strlen(name);
  for (const char *p = list; *p;
       p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
    if (strcspn(p, ",") == n && !strncmp(p, name, n))
      return true;
  return false;
}

static void parse_options(int argc, char **argv, struct options *opt) {
  enum {
    OPT_NO_CACHEGRIND = 256,
    OPT_PISA_CHAR,
    OPT_METRICS,
    OPT_ARGS,
    OPT_MEMORY,
    OPT_PARALLELISM,
    OPT_ALL,
    OPT_MODE,
    OPT_SAMPLE_EVERY
  };
  static const struct option Options[] = {
      {"reps", required_argument, NULL, 'r'},
      {"no-cachegrind", no_argument, NULL, OPT_NO_CACHEGRIND},
      {"kernels", required_argument, NULL, 'k'},
      {"out", required_argument, NULL, 'o'},
      {"dir", required_argument, NULL, 'd'},
      {"pisa-char", required_argument, NULL, OPT_PISA_CHAR},
      {"metrics", required_argument, NULL, OPT_METRICS},
      {"args", required_argument, NULL, OPT_ARGS},
      {"memory", no_argument, NULL, OPT_MEMORY},
      {"parallelism", no_argument, NULL, OPT_PARALLELISM},
      {"all", no_argument, NULL, OPT_ALL},
      {"mode", required_argument, NULL, OPT_MODE},
      {"sample-every", required_argument, NULL, OPT_SAMPLE_EVERY},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  char *end;
  *opt = (struct options){
      3,     true, xstrdup(PISA_BENCH_KERNELS), NULL, NULL, NULL, NULL, NULL, 0,
      false, 0};
  while ((c = getopt_long(argc, argv, "r:k:o:d:h", Options, NULL)) != -1) {
    switch (c) {
    case 'r':
      opt->reps = (int)strtol(optarg, &end, 10);
      if (*end || opt->reps < 1 || opt->reps > MAX_REPS)
        die("--reps wants a number from 1 to %d", MAX_REPS);
      break;
    case OPT_NO_CACHEGRIND:
      opt->cachegrind = false;
      break;
    case 'k':
      free(opt->kernels);
      opt->kernels = xstrdup(optarg);
      break;
    case 'o':
      opt->out = optarg;
      break;
    case 'd':
      opt->dir = optarg;
      break;
    case OPT_PISA_CHAR:
      opt->pisa_char = optarg;
      break;
    case OPT_METRICS:
      opt->metrics = optarg;
      break;
    case OPT_ARGS:
      free(opt->args);
      opt->args = xstrdup(optarg);
      break;
    case OPT_MEMORY:
    case OPT_PARALLELISM:
    case OPT_ALL:
      opt->metrics = opt->metrics           ? opt->metrics
                     : c == OPT_MEMORY      ? MEMORY_METRICS
                     : c == OPT_PARALLELISM ? PARALLELISM_METRICS
                                            : ALL_METRICS;
      opt->args = opt->args ? opt->args : xstrdup(MEMORY_ARGS);
      opt->target = c == OPT_MEMORY        ? MEMORY_TARGET
                    : c == OPT_PARALLELISM ? PARALLELISM_TARGET
                                           : ALL_TARGET;
      break;
    case OPT_MODE:
      if (strcmp(optarg, "deep") && strcmp(optarg, "counter"))
        die("--mode wants deep or counter");
      opt->counter = !strcmp(optarg, "counter");
      break;
    case OPT_SAMPLE_EVERY:
      opt->sample_every = strtoul(optarg, &end, 10);
      if (*end || opt->sample_every < 1)
        die("--sample-every wants a positive number");
      break;
    case 'h':
      usage(stdout);
      exit(0);
    default:
      usage(stderr);
      exit(2);
    }
  }
  if (optind < argc) {
    usage(stderr);
    exit(2);
  }
  if (opt->sample_every && !opt->counter)
    die("--sample-every needs --mode counter");
  if (!opt->metrics)
    opt->metrics = DEFAULT_METRICS;
  if (opt->counter)
    opt->target = COUNTER_TARGET;
  if (opt->target == 0)
    opt->target =
        strcmp(opt->metrics, DEFAULT_METRICS) ? MEMORY_TARGET : DEFAULT_TARGET;
}

/* Gives each kernel named in --args (K=A:B,...) its arguments. */
static void assign_args(struct bench *b) {
  if (!b->opt.args)
    return;
  char *list = xstrdup(b->opt.args);
  for (char *save, *item = strtok_r(list, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item)
      die("--args wants K=A:B,... (got '%s')", item);
    *eq = '\0';
    struct kernel_result *r = NULL;
    for (size_t i = 0; i < b->count; i++)
      if (!strcmp(b->results[i].name, item))
        r = &b->results[i];
    if (!in_list(item, PISA_BENCH_KERNELS))
      die("--args: unknown kernel '%s' (known: %s)", item, PISA_BENCH_KERNELS);
    if (!r)
      continue; /* not selected by --kernels */
    int n = 0;
    for (char *save2, *a = strtok_r(eq + 1, ":", &save2); a;
         a = strtok_r(NULL, ":", &save2)) {
      if (n == MAX_KERNEL_ARGS)
        die("--args: at most %d arguments per kernel", MAX_KERNEL_ARGS);
      r->args[n++] = xstrdup(a);
    }
  }
  free(list);
}

/* The kernels of --kernels, each checked against the built ones. */
static void select_kernels(struct bench *b) {
  size_t most = 1;
  for (const char *p = b->opt.kernels; *p; p++)
    most += *p == ',';
  b->results = xcalloc(most, sizeof(*b->results));
  for (char *save, *k = strtok_r(b->opt.kernels, ",", &save); k;
       k = strtok_r(NULL, ",", &save)) {
    if (!in_list(k, PISA_BENCH_KERNELS))
      die("unknown kernel '%s' (known: %s)", k, PISA_BENCH_KERNELS);
    b->results[b->count++].name = k;
  }
  if (b->count == 0)
    die("no kernels selected");
}

/* An executable named name in PATH, or NULL. */
static char *find_in_path(const char *name) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t len = strcspn(p, ":");
    char *candidate = xasprintf("%.*s/%s", (int)len, p, name);
    if (len && access(candidate, X_OK) == 0)
      return candidate;
    free(candidate);
    p += len + (p[len] == ':');
  }
  return NULL;
}

/* path without "..", when it exists; takes ownership of path. */
static char *canonical(char *path) {
  char *resolved = realpath(path, NULL);
  if (!resolved)
    return path;
  free(path);
  return resolved;
}

static void check_executable(const char *path) {
  if (access(path, X_OK) != 0)
    die("%s: %s (build it with 'cmake --build BUILD --target bench')", path,
        strerror(errno));
}

static void set_up(struct bench *b) {
  char tmpl[] = "/tmp/pisa-bench.XXXXXX";
  if (!b->opt.dir)
    b->opt.dir = xstrdup(self_dir());
  if (!b->opt.pisa_char)
    b->opt.pisa_char = canonical(xasprintf("%s/../bin/pisa-char", self_dir()));
  check_executable(b->opt.pisa_char);
  for (size_t i = 0; i < b->count; i++)
    for (int t = TOOL_NATIVE; t <= TOOL_PISA; t++) {
      char *path =
          xasprintf("%s/%s/%s", b->opt.dir, t == TOOL_PISA ? "pisa" : "native",
                    b->results[i].name);
      check_executable(path);
      free(path);
    }
  if (b->opt.cachegrind && !(b->valgrind = find_in_path("valgrind")))
    warning("valgrind not found in PATH: cachegrind not run");
  if (!mkdtemp(tmpl))
    die_status(1, "cannot create a temporary directory: %s", strerror(errno));
  b->tmpdir = xstrdup(tmpl);
}

int main(int argc, char **argv) {
  struct bench b = {0};
  pisa_progname = "pisa-bench";
  parse_options(argc, argv, &b.opt);
  select_kernels(&b);
  assign_args(&b);
  set_up(&b);
  struct json_object *machine = machine_info();
  print_header(&b, machine);
  bool failed = false;
  for (size_t i = 0; i < b.count; i++) {
    bench_kernel(&b, &b.results[i]);
    failed |= b.results[i].failed;
  }
  rmdir(b.tmpdir);
  print_table(&b);
  if (b.opt.out)
    write_json(&b, machine);
  json_object_put(machine);
  check_stdout();
  return failed ? 1 : 0;
}
