/* cmd_sweep.c: `pisa-char sweep SUITE|MANIFEST`: builds each benchmark of a
 * suite with pisa-cc and runs it under `pisa-char run`, N at a time, each in
 * its own process group (timeouts, Ctrl-C), and rewrites DIR/summary.json
 * and .csv after every benchmark so that a re-run resumes where it stopped. */
#include "commands.h"
#include "document.h"
#include "manifest.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_SECONDS 2.0 /* SIGTERM, then SIGKILL after this */
#define POLL_NANOSECONDS 50000000L
#define MAX_JOBS 256
#define ERROR_MAX 240 /* longest error message kept in a row */

extern char **environ;

struct sweep_options {
  const char *suite; /* name or manifest path */
  const char *size;
  unsigned jobs;
  const char *mode;
  const char *out;
  double timeout; /* seconds; 0: none */
  const char *metrics;
  unsigned shard_index, shard_count; /* 1-based K of N; N = 0: no shard */
  const char *root;
  int quiet;
};

enum stage { STAGE_BUILD, STAGE_RUN };

/* A running benchmark (pid 0: a free slot). */
struct job {
  size_t bench; /* index into suite.benchmarks */
  enum stage stage;
  pid_t pid;      /* also its process group */
  double started; /* of the current stage */
  double build_seconds;
  int timed_out;
  double kill_at; /* when SIGKILL follows SIGTERM; 0: not signalled */
};

struct sweep {
  struct sweep_options opt;
  struct suite suite;
  char *out;  /* absolute output directory */
  char *base; /* DIR/summary or DIR/summary.shard-K-of-N, no suffix */
  char *pisa_char, *compiler;
  regex_t checksum;
  int has_checksum;
  json_object *summary;
  json_object **rows; /* per suite benchmark; NULL: not finished */
  size_t *todo, ntodo, next;
  size_t nselected, nskipped;
  struct job *jobs;
  unsigned running;
  int stopping, tty, write_failed;
  double start, last_progress;
  size_t done, failed;
};

static volatile sig_atomic_t stop_signal, stop_requests;

static void on_stop_signal(int sig) {
  stop_signal = sig;
  stop_requests++;
}

static void on_child(int sig) { (void)sig; }

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- Options ------------------------------------------------------------- */

static void sweep_usage(FILE *f) {
  fputs(
      "usage: pisa-char sweep [options] SUITE|MANIFEST\n"
      "\n"
      "Builds every benchmark of a suite with pisa-cc, runs it under\n"
      "'pisa-char run' and writes the result documents, the programs'\n"
      "output and DIR/summary.json and DIR/summary.csv (one row per\n"
      "benchmark: status, checksum, headline metrics). SUITE is a bundled\n"
      "suite (polybench, rodinia); MANIFEST a suite manifest of your own.\n"
      "Re-running the same command resumes: finished benchmarks are skipped,\n"
      "failed ones retried.\n"
      "\n"
      "Options:\n"
      "      --size S        data-set size (default: the suite's default)\n"
      "  -j, --jobs N        run N benchmarks at a time (default 1)\n"
      "      --mode MODE     deep (the default) or counter (built with\n"
      "                      pisa-cc --pisa-mode=counter, run --mode counter)\n"
      "  -o, --out DIR       output directory (default sweep-SUITE-SIZE, and\n"
      "                      sweep-SUITE-SIZE-counter in counter mode)\n"
      "      --timeout SEC   stop a benchmark's run after SEC seconds\n"
      "      --metrics LIST  metric families, as 'pisa-char run --metrics'\n"
      "      --shard K/N     run the K-th of N slices (benchmark index mod "
      "N);\n"
      "                      under OpenMPI's mpirun each rank takes its own\n"
      "      --root PATH     with 'polybench': sweep the PolyBench/C checkout\n"
      "                      at PATH instead of the bundled kernels\n"
      "      --keep-going    go on after a failure (always the case)\n"
      "  -q, --quiet         no progress line and no final table\n"
      "  -h, --help          show this help\n"
      "\n"
      "Exit status: 0 when every benchmark succeeded, 1 when some failed,\n"
      "2 for bad usage, 128+N when stopped by signal N (results kept).\n",
      f);
}

enum {
  OPT_SIZE = 256,
  OPT_MODE,
  OPT_TIMEOUT,
  OPT_METRICS,
  OPT_SHARD,
  OPT_ROOT,
  OPT_KEEP_GOING
};

static const struct option SweepOptions[] = {
    {"size", required_argument, NULL, OPT_SIZE},
    {"jobs", required_argument, NULL, 'j'},
    {"mode", required_argument, NULL, OPT_MODE},
    {"out", required_argument, NULL, 'o'},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"root", required_argument, NULL, OPT_ROOT},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static unsigned parse_count(const char *arg, const char *what, unsigned max) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(arg, &end, 10);
  if (arg[0] < '0' || arg[0] > '9' || *end || errno || v < 1 || v > max)
    die("sweep: %s '%s': expected a whole number from 1 to %u", what, arg, max);
  return (unsigned)v;
}

static double parse_timeout(const char *arg) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (end == arg || *end || errno || !(v > 0) || v > 1e7)
    die("sweep: --timeout '%s': expected a positive number of seconds", arg);
  return v;
}

static void parse_shard(const char *arg, struct sweep_options *opt) {
  unsigned k, n;
  char tail;
  if (sscanf(arg, "%u/%u%c", &k, &n, &tail) != 2 || k < 1 || k > n ||
      arg[0] < '0' || arg[0] > '9')
    die("sweep: --shard '%s': expected K/N with 1 <= K <= N", arg);
  opt->shard_index = k;
  opt->shard_count = n;
}

static void parse_mode(const char *arg, struct sweep_options *opt) {
  if (strcmp(arg, "deep") != 0 && strcmp(arg, "counter") != 0)
    die("sweep: --mode '%s': expected deep or counter", arg);
  opt->mode = arg;
}

static int counter_mode(const struct sweep_options *opt) {
  return strcmp(opt->mode, "counter") == 0;
}

static void parse_option(int c, char **argv, struct sweep_options *opt) {
  switch (c) {
  case OPT_SIZE:
    opt->size = optarg;
    break;
  case 'j':
    opt->jobs = parse_count(optarg, "-j", MAX_JOBS);
    break;
  case OPT_MODE:
    parse_mode(optarg, opt);
    break;
  case 'o':
    opt->out = optarg;
    break;
  case OPT_TIMEOUT:
    opt->timeout = parse_timeout(optarg);
    break;
  case OPT_METRICS:
    opt->metrics = optarg;
    break;
  case OPT_SHARD:
    parse_shard(optarg, opt);
    break;
  case OPT_ROOT:
    opt->root = optarg;
    break;
  case OPT_KEEP_GOING:
    break;
  case 'q':
    opt->quiet = 1;
    break;
  case 'h':
    sweep_usage(stdout);
    check_stdout();
    exit(0);
  case ':':
    die("sweep: option '%s' needs an argument", argv[optind - 1]);
  default:
    die("sweep: unknown option '%s'", argv[optind - 1]);
  }
}

static void parse_sweep_options(int argc, char **argv,
                                struct sweep_options *opt) {
  int c;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":j:o:qh", SweepOptions, NULL)) != -1)
    parse_option(c, argv, opt);
  if (optind != argc - 1)
    die("sweep: %s; see 'pisa-char sweep --help'",
        optind >= argc ? "no suite given" : "more than one suite given");
  opt->suite = argv[optind];
  if (opt->metrics && counter_mode(opt))
    die("sweep: --metrics selects deep-mode metric families; it does not go "
        "with --mode counter");
}

/* Without --shard, a rank of OpenMPI's mpirun takes its own slice. */
static void shard_from_mpi(struct sweep_options *opt) {
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  if (opt->shard_count || !rank || !size)
    return;
  unsigned n = parse_count(size, "OMPI_COMM_WORLD_SIZE", INT_MAX);
  char *end;
  unsigned long r = strtoul(rank, &end, 10);
  if (*end || r >= n)
    die("sweep: OMPI_COMM_WORLD_RANK '%s' is not a rank below %u", rank, n);
  opt->shard_index = (unsigned)r + 1;
  opt->shard_count = n;
}

/* ---- Setting up ---------------------------------------------------------- */

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

static void make_dir(const char *path) {
  if (mkdir(path, 0777) != 0 && errno != EEXIST)
    die("sweep: cannot create %s: %s", path, strerror(errno));
}

/* mkdir -p for the output directory. */
static void make_dirs(const char *path) {
  char *copy = xstrdup(path);
  for (char *p = copy + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      make_dir(copy);
      *p = '/';
    }
  make_dir(copy);
  free(copy);
}

static void setup_output(struct sweep *sw) {
  const char *out = sw->opt.out;
  char *def = NULL;
  const char *mode = counter_mode(&sw->opt) ? "-counter" : "";
  if (!out)
    out = def = sw->suite.size ? xasprintf("sweep-%s-%s%s", sw->suite.name,
                                           sw->suite.size, mode)
                               : xasprintf("sweep-%s%s", sw->suite.name, mode);
  make_dirs(out);
  char resolved[PATH_MAX];
  if (!realpath(out, resolved))
    die("sweep: %s: %s", out, strerror(errno));
  free(def);
  sw->out = xstrdup(resolved);
  const char *sub[] = {"build", "results", "logs"};
  for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
    char *dir = xasprintf("%s/%s", sw->out, sub[i]);
    make_dir(dir);
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

static char *result_path(const struct sweep *sw, size_t bench) {
  return xasprintf("%s/results/%s.pisa.json", sw->out,
                   sw->suite.benchmarks[bench].name);
}

static int result_is_valid(const struct sweep *sw, size_t bench) {
  char err[512];
  char *path = result_path(sw, bench);
  json_object *doc = pisa_read_json_file(path, err, sizeof err);
  int ok = doc && pisa_document_validate(doc, err, sizeof err) == 0;
  json_object_put(doc);
  free(path);
  return ok;
}

static int is_selected(const struct sweep *sw, size_t bench) {
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
    if (!is_selected(sw, i))
      continue;
    sw->nselected++;
    json_object *row =
        prev ? sweep_summary_row(prev, sw->suite.benchmarks[i].name) : NULL;
    sw->rows[i] = json_object_get(row);
    const char *status =
        row ? json_object_get_string(json_object_object_get(row, "status"))
            : NULL;
    if (status && strcmp(status, SWEEP_OK) == 0 && result_is_valid(sw, i))
      sw->nskipped++;
    else
      sw->todo[sw->ntodo++] = i;
  }
  json_object_put(prev);
}

/* ---- Summary and progress ------------------------------------------------ */

static void write_summary(struct sweep *sw) {
  char err[PATH_MAX + 256];
  sweep_summary_set_rows(sw->summary, sw->rows, sw->suite.nbenchmarks);
  if (sweep_summary_write(sw->summary, sw->base, err, sizeof err) != 0) {
    error("sweep: %s", err);
    sw->write_failed = 1;
  }
}

static void format_duration(char *buf, size_t n, double seconds) {
  long s = (long)(seconds + 0.5);
  snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

/* "3/30 done, 1 failed, 0:00:05 elapsed, about 0:00:45 left" */
static void progress_text(const struct sweep *sw, char *buf, size_t n) {
  double elapsed = now_seconds() - sw->start;
  char spent[32], left[32] = "?";
  format_duration(spent, sizeof spent, elapsed);
  if (sw->done)
    format_duration(left, sizeof left,
                    elapsed / sw->done * (sw->ntodo - sw->done));
  snprintf(buf, n, "%zu/%zu done, %zu failed, %s elapsed, about %s left",
           sw->done, sw->ntodo, sw->failed, spent, left);
}

static void progress_line(struct sweep *sw) {
  if (sw->opt.quiet || !sw->tty)
    return;
  char text[256];
  progress_text(sw, text, sizeof text);
  fprintf(stderr, "\r\033[K%s: sweep: %s", pisa_progname, text);
  fflush(stderr);
  sw->last_progress = now_seconds();
}

/* One line per finished benchmark (failures also at a terminal). */
static void report_finished(struct sweep *sw, size_t bench, json_object *row) {
  const char *status =
      json_object_get_string(json_object_object_get(row, "status"));
  int ok = strcmp(status, SWEEP_OK) == 0;
  if (sw->opt.quiet || (sw->tty && ok)) {
    progress_line(sw);
    return;
  }
  char text[256];
  progress_text(sw, text, sizeof text);
  const char *why =
      json_object_get_string(json_object_object_get(row, "error"));
  fprintf(
      stderr, "%s%s: sweep: %s: %s%s%s (%.1f s); %s\n",
      sw->tty ? "\r\033[K" : "", pisa_progname,
      sw->suite.benchmarks[bench].name, status, why ? ": " : "", why ? why : "",
      json_object_get_double(json_object_object_get(row, "seconds")) +
          json_object_get_double(json_object_object_get(row, "build_seconds")),
      text);
  progress_line(sw);
}

/* ---- Processes ----------------------------------------------------------- */

/* Benchmarks run as their own programs, not as ranks of the mpirun that may
 * have started the sweep. */
static void drop_launcher_environment(void) {
  static const char *const Prefixes[] = {"OMPI_", "PMIX_", "PMI_"};
  for (size_t i = 0; environ[i];) {
    int dropped = 0;
    for (size_t p = 0; p < sizeof Prefixes / sizeof *Prefixes; p++)
      if (strncmp(environ[i], Prefixes[p], strlen(Prefixes[p])) == 0) {
        char *name = strndup(environ[i], strcspn(environ[i], "="));
        unsetenv(name);
        free(name);
        dropped = 1;
        break;
      }
    if (!dropped)
      i++;
  }
}

static void redirect(int fd, const char *path, int flags) {
  int f = open(path, flags, 0666);
  if (f < 0 || dup2(f, fd) < 0) {
    fprintf(stderr, "%s: sweep: %s: %s\n", pisa_progname, path,
            strerror(errno));
    _exit(127);
  }
  close(f);
}

/* Starts argv in `cwd` in a process group of its own, stdin from /dev/null,
 * stdout to `out` and stderr to `err` (NULL: to `out` as well). */
static pid_t spawn(char *const argv[], const char *cwd, const char *out,
                   const char *err) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid > 0) {
    setpgid(pid, pid); /* also in the child: whichever runs first */
    return pid;
  }
  setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  drop_launcher_environment();
  const int wr = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  redirect(STDIN_FILENO, "/dev/null", O_RDONLY | O_CLOEXEC);
  redirect(STDOUT_FILENO, out, wr);
  if (err)
    redirect(STDERR_FILENO, err, wr);
  else
    dup2(STDOUT_FILENO, STDERR_FILENO);
  if (chdir(cwd) != 0) {
    fprintf(stderr, "%s: sweep: %s: %s\n", pisa_progname, cwd, strerror(errno));
    _exit(127);
  }
  execv(argv[0], argv);
  fprintf(stderr, "%s: sweep: cannot run %s: %s\n", pisa_progname, argv[0],
          strerror(errno));
  _exit(127);
}

static char *log_path(const struct sweep *sw, size_t bench, const char *ext) {
  return xasprintf("%s/logs/%s.%s", sw->out, sw->suite.benchmarks[bench].name,
                   ext);
}

static char *build_dir(const struct sweep *sw, size_t bench) {
  return xasprintf("%s/build/%s", sw->out, sw->suite.benchmarks[bench].name);
}

static pid_t start_build(struct sweep *sw, size_t bench) {
  const struct suite_benchmark *b = &sw->suite.benchmarks[bench];
  char *dir = build_dir(sw, bench);
  char *exe = xasprintf("%s/%s", dir, b->name);
  char *log = log_path(sw, bench, "build.log");
  struct strvec argv = {0};
  make_dir(dir);
  strvec_push(&argv, sw->compiler);
  if (counter_mode(&sw->opt))
    strvec_push(&argv, "--pisa-mode=counter");
  strvec_append(&argv, &b->cflags);
  strvec_append(&argv, &b->sources);
  strvec_push(&argv, "-o");
  strvec_push(&argv, exe);
  strvec_append(&argv, &b->ldflags);
  pid_t pid = spawn(argv.v, dir, log, NULL);
  strvec_free(&argv);
  free(log);
  free(exe);
  free(dir);
  return pid;
}

static pid_t start_run(struct sweep *sw, size_t bench) {
  const struct suite_benchmark *b = &sw->suite.benchmarks[bench];
  char *dir = build_dir(sw, bench);
  char *result = result_path(sw, bench);
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
  strvec_push(&argv, "--");
  strvec_push(&argv, program);
  strvec_append(&argv, &b->args);
  unlink(result); /* a stale document must not pass for this run's */
  pid_t pid = spawn(argv.v, dir, out, err);
  strvec_free(&argv);
  free(program);
  free(out);
  free(err);
  free(result);
  free(dir);
  return pid;
}

static void signal_job(struct job *job, int sig) {
  kill(-job->pid, sig);
  if (sig == SIGTERM)
    job->kill_at = now_seconds() + KILL_GRACE_SECONDS;
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

static json_object *build_failed_row(struct sweep *sw, struct job *job,
                                     int status, double seconds) {
  char *log = log_path(sw, job->bench, "build.log");
  char *first = find_line(log, "error", 0);
  char *why =
      first ? xasprintf("compilation failed: %s", first)
      : WIFEXITED(status)
          ? xasprintf("compilation failed with status %d", WEXITSTATUS(status))
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

/* Status and error of a finished run from pisa-char's exit status. */
static const char *judge_run(struct sweep *sw, const struct job *job,
                             int wstatus, json_object *doc,
                             const char *checksum, char **why) {
  if (job->timed_out) {
    *why = xasprintf("timed out after %g s", sw->opt.timeout);
    return SWEEP_TIMEOUT;
  }
  if (!WIFEXITED(wstatus)) {
    *why = xasprintf("pisa-char was killed by signal %d", WTERMSIG(wstatus));
    return SWEEP_RUN_FAILED;
  }
  int code = WEXITSTATUS(wstatus);
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

/* The result document if it exists and is valid, else NULL. */
static json_object *read_result(const struct sweep *sw, size_t bench) {
  char err[512];
  char *path = result_path(sw, bench);
  json_object *doc = NULL;
  if (access(path, F_OK) == 0) {
    doc = pisa_read_json_file(path, err, sizeof err);
    if (doc && pisa_document_validate(doc, err, sizeof err) != 0) {
      json_object_put(doc);
      doc = NULL;
    }
  }
  free(path);
  return doc;
}

static json_object *run_row(struct sweep *sw, struct job *job, int wstatus,
                            double seconds) {
  const char *name = sw->suite.benchmarks[job->bench].name;
  json_object *doc = read_result(sw, job->bench);
  char *checksum = sw->has_checksum ? find_checksum(sw, job->bench) : NULL;
  char *why;
  const char *status = judge_run(sw, job, wstatus, doc, checksum, &why);
  char *result = doc ? xasprintf("results/%s.pisa.json", name) : NULL;
  int exit_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  json_object *row =
      sweep_row_new(name, status, exit_status, seconds, job->build_seconds,
                    checksum, why, result, doc);
  free(result);
  free(why);
  free(checksum);
  json_object_put(doc);
  return row;
}

static void record(struct sweep *sw, size_t bench, json_object *row) {
  json_object_put(sw->rows[bench]);
  sw->rows[bench] = row;
  sw->done++;
  if (strcmp(json_object_get_string(json_object_object_get(row, "status")),
             SWEEP_OK) != 0)
    sw->failed++;
  write_summary(sw);
  report_finished(sw, bench, row);
}

/* A stage of `job` ended with `wstatus`: go on to the run, or record. */
static void stage_ended(struct sweep *sw, struct job *job, int wstatus) {
  double seconds = now_seconds() - job->started;
  if (job->timed_out || job->kill_at)
    kill(-job->pid, SIGKILL); /* whatever else of the group is left */
  job->pid = 0;
  if (sw->stopping) {
    sw->running--;
    return; /* interrupted: not finished, a re-run does it again */
  }
  if (job->stage == STAGE_BUILD && WIFEXITED(wstatus) &&
      WEXITSTATUS(wstatus) == 0) {
    job->build_seconds = seconds;
    job->stage = STAGE_RUN;
    job->started = now_seconds();
    job->pid = start_run(sw, job->bench);
    if (job->pid > 0)
      return;
    wstatus = 127 << 8;
  }
  sw->running--;
  record(sw, job->bench,
         job->stage == STAGE_BUILD ? build_failed_row(sw, job, wstatus, seconds)
                                   : run_row(sw, job, wstatus, seconds));
}

/* ---- The scheduler ------------------------------------------------------- */

static void start_next(struct sweep *sw, struct job *job) {
  size_t bench = sw->todo[sw->next++];
  memset(job, 0, sizeof *job);
  job->bench = bench;
  job->stage = STAGE_BUILD;
  job->started = now_seconds();
  job->pid = start_build(sw, bench);
  if (job->pid < 0)
    die_status(1, "sweep: cannot start a process: %s", strerror(errno));
  sw->running++;
}

static struct job *job_of(struct sweep *sw, pid_t pid) {
  for (unsigned i = 0; i < sw->opt.jobs; i++)
    if (sw->jobs[i].pid == pid)
      return &sw->jobs[i];
  return NULL;
}

static int reap(struct sweep *sw) {
  int wstatus, reaped = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
    struct job *job = job_of(sw, pid);
    if (job) {
      stage_ended(sw, job, wstatus);
      reaped = 1;
    }
  }
  return reaped;
}

static void enforce_deadlines(struct sweep *sw) {
  double now = now_seconds();
  for (unsigned i = 0; i < sw->opt.jobs; i++) {
    struct job *job = &sw->jobs[i];
    if (!job->pid)
      continue;
    if (job->kill_at && now >= job->kill_at) {
      kill(-job->pid, SIGKILL);
      job->kill_at = now + 3600; /* once */
    } else if (job->stage == STAGE_RUN && sw->opt.timeout && !job->timed_out &&
               now - job->started >= sw->opt.timeout) {
      job->timed_out = 1;
      signal_job(job, SIGTERM);
    }
  }
}

static void stop_all(struct sweep *sw) {
  int hard = stop_requests > 1;
  if (!sw->stopping) {
    sw->stopping = 1;
    if (sw->tty)
      fputc('\n', stderr);
    error("sweep: stopping (signal %d); finished results are kept",
          (int)stop_signal);
  }
  for (unsigned i = 0; i < sw->opt.jobs; i++) {
    struct job *job = &sw->jobs[i];
    if (job->pid && (hard || !job->kill_at))
      signal_job(job, hard ? SIGKILL : SIGTERM);
  }
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_stop_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_child; /* wakes the sleep below when a child ends */
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);
}

static void schedule(struct sweep *sw) {
  sw->jobs = xcalloc(sw->opt.jobs, sizeof *sw->jobs);
  install_handlers();
  while (sw->running || (!sw->stopping && sw->next < sw->ntodo)) {
    if (stop_requests && (!sw->stopping || stop_requests > 1))
      stop_all(sw);
    for (unsigned i = 0; i < sw->opt.jobs && !sw->stopping; i++)
      if (!sw->jobs[i].pid && sw->next < sw->ntodo)
        start_next(sw, &sw->jobs[i]);
    int reaped = reap(sw);
    enforce_deadlines(sw);
    if (sw->tty && now_seconds() - sw->last_progress >= 1)
      progress_line(sw);
    if (!reaped) {
      struct timespec nap = {0, POLL_NANOSECONDS};
      nanosleep(&nap, NULL);
    }
  }
}

/* ---- The final table ----------------------------------------------------- */

static void print_table(const struct sweep *sw) {
  printf("%-20s %-15s %9s %15s %12s  %s\n", "benchmark", "status", "seconds",
         "instructions", "footprint", "checksum");
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++) {
    if (!is_selected(sw, i))
      continue;
    json_object *row = sw->rows[i];
    if (!row) {
      printf("%-20s %-15s\n", sw->suite.benchmarks[i].name, "not run");
      continue;
    }
    json_object *v;
    printf("%-20s %-15s %9.2f", sw->suite.benchmarks[i].name,
           json_object_get_string(json_object_object_get(row, "status")),
           json_object_get_double(json_object_object_get(row, "seconds")));
    const char *keys[] = {"instructions", "footprint_bytes"};
    for (size_t k = 0; k < 2; k++) {
      v = json_object_object_get(row, keys[k]);
      printf(k ? " %12s" : " %15s", v ? json_object_get_string(v) : "-");
    }
    v = json_object_object_get(row, "checksum");
    printf("  %s\n", v ? json_object_get_string(v) : "-");
  }
}

static int exit_status(const struct sweep *sw) {
  if (stop_requests)
    return 128 + stop_signal;
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++) {
    if (!is_selected(sw, i))
      continue;
    if (!sw->rows[i] || strcmp(json_object_get_string(json_object_object_get(
                                   sw->rows[i], "status")),
                               SWEEP_OK) != 0)
      return 1;
  }
  return sw->write_failed ? 1 : 0;
}

static void announce(const struct sweep *sw) {
  if (sw->opt.quiet)
    return;
  char shard[64] = "";
  if (sw->opt.shard_count)
    snprintf(shard, sizeof shard, " (shard %u of %u)", sw->opt.shard_index,
             sw->opt.shard_count);
  error("sweep: %s%s%s%s: %zu benchmarks, %zu skipped (finished before), %zu "
        "to run, %u at a time; output in %s",
        sw->suite.name, sw->suite.size ? " " : "",
        sw->suite.size ? sw->suite.size : "", shard, sw->nselected,
        sw->nskipped, sw->ntodo, sw->opt.jobs, sw->out);
}

int cmd_sweep(int argc, char **argv) {
  struct sweep sw = {0};
  sw.opt.jobs = 1;
  sw.opt.mode = "deep";
  parse_sweep_options(argc, argv, &sw.opt);
  shard_from_mpi(&sw.opt);
  if (sw.opt.shard_count == 1)
    sw.opt.shard_count = 0; /* one slice is the whole sweep */
  load_suite(&sw);
  compile_checksum(&sw);
  sw.pisa_char = tool_path("pisa-char");
  sw.compiler = tool_path(sw.suite.compiler);
  setup_output(&sw);
  new_summary(&sw);
  plan(&sw);
  write_summary(&sw);
  sw.tty = isatty(STDERR_FILENO);
  sw.start = now_seconds();
  announce(&sw);
  schedule(&sw);
  if (sw.tty && !sw.opt.quiet)
    fputc('\n', stderr);
  if (!sw.opt.quiet)
    print_table(&sw);
  int status = exit_status(&sw);
  for (size_t i = 0; i < sw.suite.nbenchmarks; i++)
    json_object_put(sw.rows[i]);
  json_object_put(sw.summary);
  if (sw.has_checksum)
    regfree(&sw.checksum);
  suite_free(&sw.suite);
  free(sw.rows);
  free(sw.todo);
  free(sw.jobs);
  free(sw.out);
  free(sw.base);
  free(sw.pisa_char);
  free(sw.compiler);
  return status;
}
