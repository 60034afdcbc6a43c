/* cmd_run.c: `pisa-char [run] [options] [--] PROGRAM [ARGS...]`. Checks the
 * program and the output before anything runs, runs the program with the
 * runtime's environment as `time` would, then turns the raw results its
 * processes wrote into validated result documents. */
#include "commands.h"
#include "document.h"
#include "elfcheck.h"
#include "pisa/abi.h"
#include "rankmerge.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_FAILED 125 /* the program ran but the analysis failed */
#define MAX_LINE_SIZE (1u << 20)
#define MAX_ENTROPY_BITS 40u
#define DOC_SUFFIX ".pisa.json"

static const char DefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

struct run_options {
  const char *output;
  int force;
  unsigned line_min, line_max;
  unsigned entropy_bits;
  unsigned families; /* PISA_FAMILY() bits */
  char windows[128]; /* PISA_ILP_WINDOWS: "0,64" */
  const char *keep_raw;
  int quiet;
  /* counter mode (docs/counter-mode.md) */
  int counter, metrics_given;
  unsigned long sample_every, interval_ms;
  const char *hw_counters, *csv;
  int mpi_ranks;     /* --mpi N: run under mpirun -np N */
  int oversubscribe; /* --oversubscribe: more ranks than cores */
};

/* What happened to the started program. */
struct run_outcome {
  pid_t pid;
  int exit_status; /* exit code, or 128+N */
  int signal;      /* N when killed by signal N */
  double wall_seconds;
  int exec_error; /* errno of a failed exec, else 0 */
};

static void run_usage(FILE *f) {
  fputs(
      "usage: pisa-char [run] [options] [--] PROGRAM [ARGS...]\n"
      "\n"
      "Runs PROGRAM, built with pisa-cc, with ARGS and writes its\n"
      "characterization to PROGRAM.pisa.json in the current directory.\n"
      "Options go before PROGRAM; everything after it is the program's.\n"
      "PROGRAM without a '/' is searched in PATH. The program's input,\n"
      "output and exit status are its own.\n"
      "\n"
      "Options:\n"
      "  -o, --output FILE     write the result to FILE\n"
      "      --force           overwrite existing result files\n"
      "      --mode MODE       analysis mode: deep (the full metric set,\n"
      "                        the default) or counter (instruction mix,\n"
      "                        bytes and regions of a pisa-cc --mode=counter\n"
      "                        build at a few percent overhead)\n"
      "      --sample-every N  counter mode: measure one region execution\n"
      "                        in N (the first always) and scale\n"
      "      --hw-counters LIST\n"
      "                        counter mode: read these perf events around\n"
      "                        regions: instructions, cycles, cache-misses,\n"
      "                        cache-references, branches, branch-misses,\n"
      "                        l1d-read-misses, llc-read-misses, task-clock,\n"
      "                        page-faults, context-switches, cpu-migrations\n"
      "      --interval-ms T   counter mode: a per-thread snapshot every T ms\n"
      "      --csv FILE        counter mode: write per-block-set counts to "
      "FILE\n"
      "      --line-sizes MIN:MAX\n"
      "                        cache line sizes to analyse, powers of two\n"
      "                        from 1 to 1048576 (default 8:512)\n"
      "      --entropy-bits K  memory entropy with 0 to K low address bits\n"
      "                        cut (default 12, at most 40)\n"
      "      --metrics LIST    metric families to compute, comma-separated:\n"
      "                        footprint, entropy, reuse (reuse distance and\n"
      "                        miss ratios), locality (spatial locality,\n"
      "                        implies reuse; -reuse removes it too),\n"
      "                        classes (access classes), branch (branch\n"
      "                        behaviour), ilp (ILP per window, DLP1/2),\n"
      "                        bblp (BBLP, smart BBLP, PBBLP), all,\n"
      "                        none; -NAME removes one (default all); the\n"
      "                        instruction mix is always computed\n"
      "      --ilp-windows LIST\n"
      "                        instruction windows of the ILP schedules,\n"
      "                        comma-separated, 0 = unlimited (default\n"
      "                        0,64; at most 8, each up to 1048576)\n"
      "      --keep-raw DIR    also copy the runtime's raw results to DIR\n"
      "  -q, --quiet           print no summary\n"
      "  -h, --help            show this help\n"
      "\n"
      "      --mpi N           run PROGRAM as an MPI job of N ranks\n"
      "                        (mpirun -np N, or $PISA_MPIRUN; with\n"
      "                        --allow-run-as-root when run as root) and\n"
      "                        merge the ranks into one result\n"
      "      --oversubscribe   let mpirun start more ranks than cores\n"
      "\n"
      "Processes that the program forks write PROGRAM.PID.pisa.json next\n"
      "to the result.\n"
      "\n"
      "Exit status: the program's own, 128+N when it died of signal N;\n"
      "2 for bad usage or a program pisa-char cannot analyse; 125 when\n"
      "the analysis failed.\n",
      f);
}

static _Noreturn void run_usage_error(const char *fmt, const char *arg) {
  usage_error(run_usage, fmt, arg);
}

/* ---- Options ------------------------------------------------------------- */

static int is_power_of_two(unsigned long v) { return v && !(v & (v - 1)); }

/* A decimal number starting at `s`, no sign or space; 0 on a malformed one. */
static int parse_decimal(const char *s, char **end, unsigned long *out) {
  if (!isdigit((unsigned char)*s))
    return 0;
  errno = 0;
  *out = strtoul(s, end, 10);
  return errno == 0;
}

static void parse_line_sizes(const char *arg, struct run_options *opt) {
  unsigned long min, max;
  char *end;
  if (!parse_decimal(arg, &end, &min) || *end != ':' ||
      !parse_decimal(end + 1, &end, &max) || *end || !is_power_of_two(min) ||
      !is_power_of_two(max) || max > MAX_LINE_SIZE || min > max)
    die("--line-sizes %s: expected MIN:MAX, powers of two from 1 to %u with "
        "MIN <= MAX",
        arg, MAX_LINE_SIZE);
  opt->line_min = (unsigned)min;
  opt->line_max = (unsigned)max;
}

static void parse_entropy_bits(const char *arg, struct run_options *opt) {
  unsigned long k;
  char *end;
  if (!parse_decimal(arg, &end, &k) || *end || k > MAX_ENTROPY_BITS)
    die("--entropy-bits %s: expected a number from 0 to %u", arg,
        MAX_ENTROPY_BITS);
  opt->entropy_bits = (unsigned)k;
}

static const char *const FamilyNames[] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
    PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
};

static unsigned family_bit(const char *name, size_t len) {
  if (len == 3 && !strncmp(name, "all", 3))
    return PISA_FAMILIES_ALL;
  if (len == 4 && !strncmp(name, "none", 4))
    return 0;
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (strlen(FamilyNames[f]) == len && !strncmp(name, FamilyNames[f], len))
      return 1u << f;
  die("--metrics: unknown family '%.*s' (expected footprint, entropy, reuse, "
      "locality, classes, branch, all or none)",
      (int)len, name);
}

/* "a,b" selects a and b; "-a" removes a from all; "all,-a" likewise. */
static void parse_metrics(const char *arg, struct run_options *opt) {
  unsigned families = arg[0] == '-' ? PISA_FAMILIES_ALL : 0;
  for (const char *p = arg; *p;) {
    int remove = *p == '-';
    const char *name = p + remove;
    size_t len = strcspn(name, ",");
    if (!len)
      die("--metrics %s: empty family name", arg);
    unsigned bits = family_bit(name, len);
    if (remove && (bits & PISA_FAMILY(REUSE)))
      bits |= PISA_FAMILY(LOCALITY); /* locality is computed from reuse */
    if (!strncmp(name, "none", len) && len == 4)
      families = 0;
    families = remove ? families & ~bits : families | bits;
    p = name + len + (name[len] == ',');
  }
  if (families & PISA_FAMILY(LOCALITY))
    families |= PISA_FAMILY(REUSE);
  opt->families = families;
}

/* The enabled families as PISA_METRICS expects them: "name,name". */
static void families_env(unsigned families, char *buf, size_t n) {
  buf[0] = '\0';
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (families & (1u << f))
      snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "",
               FamilyNames[f]);
}

static void parse_mode(const char *mode, struct run_options *opt) {
  if (strcmp(mode, "deep") && strcmp(mode, "counter"))
    die("unknown mode '%s' (expected deep or counter)", mode);
  opt->counter = !strcmp(mode, "counter");
}

/* A positive decimal no larger than max, for option `name`. */
static unsigned long parse_positive(const char *name, const char *arg,
                                    unsigned long max) {
  unsigned long v;
  char *end;
  if (!parse_decimal(arg, &end, &v) || *end || v == 0 || v > max)
    die("%s %s: expected a number from 1 to %lu", name, arg, max);
  return v;
}

/* --hw-counters: perf event names the runtime knows. */
static void check_hw_counters(const char *arg) {
  static const char Known[] =
      ",instructions,cycles,cache-misses,cache-references,branches,"
      "branch-misses,l1d-read-misses,llc-read-misses,task-clock,page-faults,"
      "context-switches,cpu-migrations,";
  int n = 0;
  for (const char *p = arg;; n++) {
    size_t len = strcspn(p, ",");
    char *word = xasprintf(",%.*s,", (int)len, p);
    if (!len || !strstr(Known, word) || n == 8)
      die("--hw-counters %s: expected up to 8 comma-separated events of "
          "instructions, cycles, cache-misses, cache-references, branches, "
          "branch-misses, l1d-read-misses, llc-read-misses, task-clock, "
          "page-faults, context-switches, cpu-migrations",
          arg);
    free(word);
    if (!p[len])
      break;
    p += len + 1;
  }
}

/* Counter options belong to counter mode, --metrics to deep mode. */
static void check_mode_options(const struct run_options *opt) {
  if (!opt->counter &&
      (opt->sample_every || opt->hw_counters || opt->interval_ms || opt->csv))
    die("--sample-every, --hw-counters, --interval-ms and --csv need "
        "--mode counter");
  if (opt->counter && opt->metrics_given)
    die("--metrics selects deep-mode families; a counter run computes the "
        "instruction mix, bytes and regions");
}

enum {
  OPT_FORCE = 256,
  OPT_MODE,
  OPT_LINE_SIZES,
  OPT_ENTROPY_BITS,
  OPT_METRICS,
  OPT_ILP_WINDOWS,
  OPT_KEEP_RAW,
  OPT_SAMPLE_EVERY,
  OPT_HW_COUNTERS,
  OPT_INTERVAL_MS,
  OPT_CSV,
  OPT_MPI,
  OPT_OVERSUBSCRIBE
};

static const struct option RunOptions[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"mode", required_argument, NULL, OPT_MODE},
    {"line-sizes", required_argument, NULL, OPT_LINE_SIZES},
    {"entropy-bits", required_argument, NULL, OPT_ENTROPY_BITS},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"ilp-windows", required_argument, NULL, OPT_ILP_WINDOWS},
    {"keep-raw", required_argument, NULL, OPT_KEEP_RAW},
    {"sample-every", required_argument, NULL, OPT_SAMPLE_EVERY},
    {"hw-counters", required_argument, NULL, OPT_HW_COUNTERS},
    {"interval-ms", required_argument, NULL, OPT_INTERVAL_MS},
    {"csv", required_argument, NULL, OPT_CSV},
    {"mpi", required_argument, NULL, OPT_MPI},
    {"oversubscribe", no_argument, NULL, OPT_OVERSUBSCRIBE},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* --ilp-windows W,W,...: up to 8 distinct windows, 0 for unlimited. */
static void parse_windows(const char *arg, struct run_options *opt) {
  unsigned long seen[8];
  size_t n = 0, len = 0;
  for (const char *p = arg;;) {
    char *end;
    errno = 0;
    unsigned long w = strtoul(p, &end, 10);
    if (end == p || *p == '-' || (*end && *end != ',') || errno ||
        w > 1048576 || n == 8)
      die("--ilp-windows %s: expected up to 8 comma-separated windows "
          "from 0 (unlimited) to 1048576",
          arg);
    for (size_t i = 0; i < n; i++)
      if (seen[i] == w)
        die("--ilp-windows %s: window %lu is listed twice", arg, w);
    seen[n++] = w;
    len += (size_t)snprintf(opt->windows + len, sizeof opt->windows - len,
                            "%s%lu", len ? "," : "", w);
    if (!*end)
      break;
    p = end + 1;
  }
}

static void parse_mpi_ranks(const char *arg, struct run_options *opt) {
  unsigned long n;
  char *end;
  if (!parse_decimal(arg, &end, &n) || *end || n < 1 || n > 4096)
    die("--mpi %s: expected a number of ranks from 1 to 4096", arg);
  opt->mpi_ranks = (int)n;
}

/* Parses the options before the program; returns the program's index. */
static int parse_run_options(int argc, char **argv, struct run_options *opt) {
  int c;
  optind = 0; /* full reset: another command may have parsed before */
  opterr = 0;
  while ((c = getopt_long(argc, argv, "+:o:qh", RunOptions, NULL)) != -1) {
    switch (c) {
    case 'o':
      opt->output = optarg;
      break;
    case OPT_FORCE:
      opt->force = 1;
      break;
    case OPT_MODE:
      parse_mode(optarg, opt);
      break;
    case OPT_SAMPLE_EVERY:
      opt->sample_every = parse_positive("--sample-every", optarg, 1u << 30);
      break;
    case OPT_HW_COUNTERS:
      check_hw_counters(optarg);
      opt->hw_counters = optarg;
      break;
    case OPT_INTERVAL_MS:
      opt->interval_ms = parse_positive("--interval-ms", optarg, 3600000);
      break;
    case OPT_CSV:
      opt->csv = optarg;
      break;
    case OPT_LINE_SIZES:
      parse_line_sizes(optarg, opt);
      break;
    case OPT_ENTROPY_BITS:
      parse_entropy_bits(optarg, opt);
      break;
    case OPT_METRICS:
      parse_metrics(optarg, opt);
      opt->metrics_given = 1;
      break;
    case OPT_ILP_WINDOWS:
      parse_windows(optarg, opt);
      break;
    case OPT_KEEP_RAW:
      opt->keep_raw = optarg;
      break;
    case OPT_MPI:
      parse_mpi_ranks(optarg, opt);
      break;
    case OPT_OVERSUBSCRIBE:
      opt->oversubscribe = 1;
      break;
    case 'q':
      opt->quiet = 1;
      break;
    case 'h':
      run_usage(stdout);
      check_stdout();
      exit(0);
    case ':':
      run_usage_error("option '%s' needs an argument", argv[optind - 1]);
    default:
      run_usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    run_usage_error("%s", "no program to run");
  return optind;
}

/* ---- Checks before running ----------------------------------------------- */

static int is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The file execvp would run for `name`: itself when it has a '/', else the
 * first executable regular file of that name in PATH. */
static char *find_program(const char *name) {
  if (!*name)
    die("empty program name");
  if (strchr(name, '/'))
    return xstrdup(name);
  const char *path = getenv("PATH");
  char *dirs = xstrdup(path ? path : DefaultPath), *rest = dirs, *dir;
  char *found = NULL;
  /* strsep, unlike strtok, keeps empty entries: the current directory */
  while ((dir = strsep(&rest, ":"))) {
    char *candidate = xasprintf("%s/%s", *dir ? dir : ".", name);
    if (is_executable_file(candidate)) {
      found = candidate;
      break;
    }
    free(candidate);
  }
  free(dirs);
  if (!found)
    die("%s: program not found in PATH", name);
  return found;
}

static void check_program(const char *given, const char *file) {
  struct stat st;
  char err[256];
  if (stat(file, &st) != 0)
    die("%s: %s", given, errno == ENOENT ? "no such file" : strerror(errno));
  if (S_ISDIR(st.st_mode))
    die("%s: is a directory, not a program", given);
  if (!S_ISREG(st.st_mode))
    die("%s: not a regular file", given);
  if (access(file, X_OK) != 0)
    die("%s: not executable (%s)", given, strerror(errno));
  switch (pisa_elf_check(file, err, sizeof err)) {
  case PISA_ELF_INSTRUMENTED:
    return;
  case PISA_ELF_SCRIPT:
    die("%s: is a script, not an ELF program; run pisa-char on the "
        "program built with pisa-cc itself",
        given);
  case PISA_ELF_NOT_ELF:
    die("%s: not an ELF executable", given);
  case PISA_ELF_UNREADABLE:
    die("%s: %s", given, err);
  case PISA_ELF_UNINSTRUMENTED:
    die("%s: not built with pisa-cc (no pisa-char instrumentation "
        "found); rebuild it with pisa-cc",
        given);
  }
}

/* Whether the file carries a counter-mode module's marker string. */
static int built_for_counter_mode(const char *file) {
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  struct stat st;
  int found = 0;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
    if (fd >= 0)
      close(fd);
    return 0;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return 0;
  found = memmem(map, (size_t)st.st_size, PISA_COUNTER_MARKER,
                 sizeof PISA_COUNTER_MARKER) != NULL;
  munmap(map, (size_t)st.st_size);
  return found;
}

/* A deep build cannot run in counter mode, nor the other way round. */
static void check_build_mode(const char *given, const char *file, int counter) {
  int built_counter = built_for_counter_mode(file);
  if (counter && !built_counter)
    die("%s was built for deep mode; run it without --mode counter, or "
        "rebuild it with pisa-cc --mode=counter",
        given);
  if (!counter && built_counter)
    die("%s was built for counter mode (pisa-cc --mode=counter); run it "
        "with --mode counter, or rebuild it without --mode=counter",
        given);
}

/* PROGRAM.pisa.json, or PROGRAM.rankN.pisa.json when pisa-char itself is
 * rank N of an MPI job (`mpirun ... pisa-char ./app`; pisa-char merge). */
static char *default_output(const char *program) {
  static const char *const RankVars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                         "PMI_RANK"};
  const char *rank = NULL;
  for (size_t i = 0; i < 3 && !rank; i++)
    rank = getenv(RankVars[i]);
  char *copy = xstrdup(program);
  char *output =
      rank ? xasprintf("%s.rank%s%s", basename(copy), rank, DOC_SUFFIX)
           : xasprintf("%s%s", basename(copy), DOC_SUFFIX);
  free(copy);
  return output;
}

static void check_output(const char *output, int force) {
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
  if (pisa_check_writable_dir(output, err, sizeof err) != 0)
    die("%s", err);
}

static void check_keep_raw(const char *dir) {
  char err[512];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    die("--keep-raw %s: %s", dir, strerror(errno));
  char *probe = xasprintf("%s/raw", dir);
  if (pisa_check_writable_dir(probe, err, sizeof err) != 0)
    die("--keep-raw: %s", err);
  free(probe);
}

static char *make_private_dir(void) {
  const char *base = getenv("TMPDIR");
  char *dir = xasprintf("%s/pisa-char.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir))
    die("cannot create a temporary directory %s: %s", dir, strerror(errno));
  return dir;
}

/* ---- Running ------------------------------------------------------------- */

static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig) {
  int saved = errno;
  if (forward_pid > 0)
    kill((pid_t)forward_pid, sig);
  errno = saved;
}

/* Signal dispositions of pisa-char while the program runs. */
struct run_signals {
  sigset_t old_mask;
  struct sigaction old_int, old_quit, old_term, old_hup;
};

/* Ignores the terminal's SIGINT/SIGQUIT (they reach the program directly)
 * and holds SIGTERM/SIGHUP until the child exists to forward them to. */
static void signals_before_fork(struct run_signals *s) {
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigset_t hold;
  sigemptyset(&ignore.sa_mask);
  sigemptyset(&hold);
  sigaddset(&hold, SIGTERM);
  sigaddset(&hold, SIGHUP);
  sigprocmask(SIG_BLOCK, &hold, &s->old_mask);
  sigaction(SIGINT, &ignore, &s->old_int);
  sigaction(SIGQUIT, &ignore, &s->old_quit);
}

static void signals_in_child(const struct run_signals *s) {
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGQUIT, &s->old_quit, NULL);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

static void signals_forward_to(pid_t pid, struct run_signals *s) {
  struct sigaction forward = {.sa_handler = forward_signal,
                              .sa_flags = SA_RESTART};
  sigemptyset(&forward.sa_mask);
  forward_pid = pid;
  sigaction(SIGTERM, &forward, &s->old_term);
  sigaction(SIGHUP, &forward, &s->old_hup);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL); /* held signals arrive now */
}

static void signals_restore(const struct run_signals *s) {
  forward_pid = 0;
  sigaction(SIGTERM, &s->old_term, NULL);
  sigaction(SIGHUP, &s->old_hup, NULL);
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGQUIT, &s->old_quit, NULL);
}

/* mpirun -np N [--allow-run-as-root] [--oversubscribe] -x PISA_... FILE
 * ARGS: every rank gets the runtime's environment. */
static void exec_mpirun(const char *file, char **argv,
                        const struct run_options *opt) {
  extern char **environ;
  const char *mpirun = getenv("PISA_MPIRUN");
  size_t nenv = 0, nargs = 0, n = 0;
  while (environ[nenv])
    nenv++;
  while (argv[nargs])
    nargs++;
  char **args = xmalloc((8 + 2 * nenv + nargs) * sizeof *args);
  args[n++] = (char *)(mpirun && *mpirun ? mpirun : "mpirun");
  args[n++] = "-np";
  args[n++] = xasprintf("%d", opt->mpi_ranks);
  if (geteuid() == 0)
    args[n++] = "--allow-run-as-root";
  if (opt->oversubscribe)
    args[n++] = "--oversubscribe";
  for (size_t i = 0; i < nenv; i++)
    if (!strncmp(environ[i], "PISA_", 5)) {
      args[n++] = "-x";
      args[n++] = xasprintf("%.*s", (int)strcspn(environ[i], "="), environ[i]);
    }
  args[n++] = (char *)file;
  for (size_t i = 1; i < nargs; i++)
    args[n++] = argv[i];
  args[n] = NULL;
  /* OpenMPI kills the other ranks of a failed job with SIGTERM and 1 s
   * later SIGKILL; give their runtimes time to write their results. */
  setenv("OMPI_MCA_odls_base_sigkill_timeout", "10", 0);
  execvp(args[0], args);
}

/* The counter-mode environment of the runtime (counter_registry.c). */
static void setenv_counter_options(const struct run_options *opt) {
  char number[32];
  setenv("PISA_MODE", opt->counter ? "counter" : "deep", 1);
  if (!opt->counter)
    return;
  snprintf(number, sizeof number, "%lu",
           opt->sample_every ? opt->sample_every : 1);
  setenv("PISA_SAMPLE_EVERY", number, 1);
  if (opt->interval_ms) {
    snprintf(number, sizeof number, "%lu", opt->interval_ms);
    setenv("PISA_INTERVAL_MS", number, 1);
  }
  if (opt->hw_counters)
    setenv("PISA_HW_COUNTERS", opt->hw_counters, 1);
  if (opt->csv)
    setenv("PISA_CSV", "1", 1);
}

/* In the child: environment, signals, exec; an exec failure is reported to
 * the parent as an errno through `report` (close-on-exec). */
static _Noreturn void exec_program(const char *file, char **argv,
                                   const char *raw_dir,
                                   const struct run_options *opt,
                                   const struct run_signals *signals,
                                   int report) {
  char sizes[32], bits[16], families[128];
  snprintf(sizes, sizeof sizes, "%u:%u", opt->line_min, opt->line_max);
  snprintf(bits, sizeof bits, "%u", opt->entropy_bits);
  families_env(opt->families, families, sizeof families);
  signals_in_child(signals);
  setenv("PISA_OUTPUT_DIR", raw_dir, 1);
  setenv("PISA_LINE_SIZES", sizes, 1);
  setenv("PISA_ENTROPY_BITS", bits, 1);
  setenv("PISA_METRICS", families, 1);
  setenv_counter_options(opt);
  setenv("PISA_ILP_WINDOWS", opt->windows[0] ? opt->windows : "0,64", 1);
  if (opt->mpi_ranks)
    exec_mpirun(file, argv, opt);
  else
    execv(file, argv);
  int err = errno;
  ssize_t written = write(report, &err, sizeof err);
  (void)written; /* nothing more to do about a failure here */
  _exit(127);
}

/* errno of a failed exec, or 0 when the exec succeeded (the pipe closed). */
static int read_exec_error(int fd) {
  int err = 0;
  ssize_t n;
  while ((n = read(fd, &err, sizeof err)) < 0 && errno == EINTR)
    ;
  close(fd);
  return n == (ssize_t)sizeof err ? err : 0;
}

static double seconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) +
         (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Waits for the child; it stays a zombie until forwarding stopped, so a
 * late signal can never hit a recycled pid. */
static int wait_child(pid_t pid, struct run_signals *signals) {
  siginfo_t info;
  int status = 0;
  while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0 &&
         errno == EINTR)
    ;
  signals_restore(signals);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

static void run_program(const char *file, char **argv, const char *raw_dir,
                        const struct run_options *opt,
                        struct run_outcome *out) {
  struct run_signals signals;
  int report[2];
  struct timespec start;
  if (pipe2(report, O_CLOEXEC) != 0)
    die("cannot create a pipe: %s", strerror(errno));
  signals_before_fork(&signals);
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t pid = fork();
  if (pid == 0)
    exec_program(file, argv, raw_dir, opt, &signals, report[1]);
  close(report[1]);
  if (pid < 0) {
    signals_restore(&signals);
    sigprocmask(SIG_SETMASK, &signals.old_mask, NULL);
    die("cannot start %s: %s", argv[0], strerror(errno));
  }
  signals_forward_to(pid, &signals);
  out->exec_error = read_exec_error(report[0]);
  int status = wait_child(pid, &signals);
  out->wall_seconds = seconds_since(&start);
  out->pid = pid;
  out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  out->exit_status = out->signal ? 128 + out->signal : WEXITSTATUS(status);
}

/* ---- Results ------------------------------------------------------------ */

/* Everything needed to turn raw results into documents. */
struct run_context {
  const struct run_options *opt;
  const char *output;
  const char *raw_dir;
  struct pisa_program_run program;
  pid_t pid;
};

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

static void keep_raw_results(const struct run_context *ctx, const pid_t *pids,
                             size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *from = xasprintf("%s/raw.%d.json", ctx->raw_dir, (int)pids[i]);
    char *to = xasprintf("%s/raw.%d.json", ctx->opt->keep_raw, (int)pids[i]);
    if (copy_file(from, to) != 0)
      warning("cannot copy the raw result to %s: %s", to, strerror(errno));
    free(from);
    free(to);
  }
}

/* 1234567 -> "1,234,567" */
static void format_count(uint64_t v, char *buf, size_t n) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%" PRIu64, v);
  size_t o = 0;
  for (int i = 0; i < len && o + 2 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
}

static void format_bytes(uint64_t v, char *buf, size_t n) {
  static const char *const Units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (v < 1024) {
    snprintf(buf, n, "%" PRIu64 " B", v);
    return;
  }
  double x = (double)v / 1024;
  size_t u = 0;
  while (x >= 1024 && u + 1 < sizeof Units / sizeof *Units) {
    x /= 1024;
    u++;
  }
  snprintf(buf, n, "%.1f %s", x, Units[u]);
}

/* The integer at doc.a.b, if there is one. */
static int get_count(json_object *doc, const char *a, const char *b,
                     uint64_t *out) {
  json_object *o;
  if (!json_object_object_get_ex(doc, a, &o) ||
      (b && !json_object_object_get_ex(o, b, &o)) ||
      !json_object_is_type(o, json_type_int))
    return 0;
  *out = json_object_get_uint64(o);
  return 1;
}

/* "1,234 instructions, footprint 8.0 MiB, 3 functions, <about>" */
static void print_summary(const char *output, json_object *doc,
                          const char *about) {
  char num[64];
  uint64_t v;
  json_object *totals = NULL, *functions, *complete;
  json_object_object_get_ex(doc, "totals", &totals);
  fprintf(stderr, "%s: wrote %s:", pisa_progname, output);
  if (get_count(totals, "instructions", NULL, &v)) {
    format_count(v, num, sizeof num);
    fprintf(stderr, " %s instructions,", num);
  }
  if (get_count(totals, "footprint", "bytes", &v)) {
    format_bytes(v, num, sizeof num);
    fprintf(stderr, " footprint %s,", num);
  }
  if (json_object_object_get_ex(doc, "functions", &functions))
    fprintf(stderr, " %zu function%s,", json_object_array_length(functions),
            json_object_array_length(functions) == 1 ? "" : "s");
  if (json_object_object_get_ex(doc, "complete", &complete) &&
      !json_object_get_boolean(complete))
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
static int write_document(const struct run_context *ctx, json_object *doc,
                          const char *output, const char *about) {
  char verr[1024], werr[1024];
  int invalid = pisa_document_validate(doc, verr, sizeof verr) != 0;
  if (pisa_write_json_atomic(output, doc, ctx->opt->force, werr, sizeof werr) !=
      PISA_WRITE_OK) {
    error("%s", werr);
    return RUN_FAILED;
  }
  if (invalid) {
    error("%s: does not match schema %s: %s", output, PISA_SCHEMA_ID, verr);
    return RUN_FAILED;
  }
  if (!ctx->opt->quiet)
    print_summary(output, doc, about);
  return 0;
}

static void report_bad_raw(const struct run_context *ctx, pid_t pid,
                           const char *why) {
  if (ctx->opt->keep_raw)
    error(
        "malformed analysis result of process %d: %s (kept in %s/raw.%d.json)",
        (int)pid, why, ctx->opt->keep_raw, (int)pid);
  else
    error(
        "malformed analysis result of process %d: %s (--keep-raw DIR keeps it)",
        (int)pid, why);
}

/* The raw result of process `pid`, checked; NULL after an error message. */
static json_object *read_raw_result(const struct run_context *ctx, pid_t pid) {
  char err[1024];
  char *path = xasprintf("%s/raw.%d.json", ctx->raw_dir, (int)pid);
  /* Errors start with the private path, which means nothing to users. */
  size_t prefix = strlen(path) + 2;
  json_object *raw = pisa_read_json_file(path, err, sizeof err);
  if (!raw)
    report_bad_raw(ctx, pid, strlen(err) > prefix ? err + prefix : err);
  else if (pisa_raw_check(raw, err, sizeof err) != 0) {
    report_bad_raw(ctx, pid, err);
    json_object_put(raw);
    raw = NULL;
  }
  free(path);
  return raw;
}

static int other_process_document(const struct run_context *ctx, pid_t pid);

/* The merged document of the ranks in `raws` (NULL entries skipped). */
static int ranks_document(const struct run_context *ctx, json_object **raws,
                          size_t n) {
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, ctx->opt->mpi_ranks);
  for (size_t i = 0; i < n; i++)
    if (raws[i] && pisa_rank_merge_add(&m, raws[i]) != 0) {
      error("%s", m.err);
      json_object_put(m.doc);
      return RUN_FAILED;
    }
  json_object *doc = pisa_rank_merge_finish(&m, &ctx->program);
  if (!doc) {
    error("%s", m.err);
    return RUN_FAILED;
  }
  char about[64];
  json_object *mpi, *size;
  json_object_object_get_ex(doc, "mpi", &mpi);
  json_object_object_get_ex(mpi, "size", &size);
  snprintf(about, sizeof about, "%d rank%s, %s", json_object_get_int(size),
           json_object_get_int(size) == 1 ? "" : "s",
           describe_exit(&ctx->program));
  int status = write_document(ctx, doc, ctx->output, about);
  json_object_put(doc);
  return status;
}

/* --mpi: every rank's raw result goes into the one document; other
 * processes' (forked by a rank) become documents of their own. */
static int write_mpi_results(const struct run_context *ctx, const pid_t *pids,
                             size_t n) {
  json_object **raws = xmalloc((n ? n : 1) * sizeof *raws);
  int status = ctx->program.exit_status;
  for (size_t i = 0; i < n; i++) {
    raws[i] = read_raw_result(ctx, pids[i]);
    if (!raws[i])
      status = RUN_FAILED;
    else if (!pisa_raw_is_rank(raws[i])) {
      if (other_process_document(ctx, pids[i]) != 0)
        status = RUN_FAILED;
      json_object_put(raws[i]);
      raws[i] = NULL;
    }
  }
  if (ranks_document(ctx, raws, n) != 0)
    status = RUN_FAILED;
  for (size_t i = 0; i < n; i++)
    json_object_put(raws[i]);
  free(raws);
  return status;
}

static int main_document(const struct run_context *ctx) {
  json_object *raw = read_raw_result(ctx, ctx->pid);
  if (!raw)
    return RUN_FAILED;
  if (pisa_raw_is_rank(raw)) { /* an MPI program run as a singleton */
    int status = ranks_document(ctx, &raw, 1);
    json_object_put(raw);
    return status;
  }
  json_object *doc = pisa_document_from_raw(raw, &ctx->program, 0);
  int status =
      write_document(ctx, doc, ctx->output, describe_exit(&ctx->program));
  json_object_put(doc);
  json_object_put(raw);
  return status;
}

/* <output without .pisa.json or .json>.<pid>.pisa.json */
static char *other_process_output(const char *output, pid_t pid) {
  size_t len = strlen(output), cut = len;
  if (len > strlen(DOC_SUFFIX) &&
      strcmp(output + len - strlen(DOC_SUFFIX), DOC_SUFFIX) == 0)
    cut = len - strlen(DOC_SUFFIX);
  else if (len > 5 && strcmp(output + len - 5, ".json") == 0)
    cut = len - 5;
  return xasprintf("%.*s.%d%s", (int)cut, output, (int)pid, DOC_SUFFIX);
}

static int other_process_document(const struct run_context *ctx, pid_t pid) {
  char *output = other_process_output(ctx->output, pid);
  struct stat st;
  int status = 0;
  if (!ctx->opt->force && lstat(output, &st) == 0) {
    warning("not writing the result of process %d: %s exists; use --force to "
            "overwrite",
            (int)pid, output);
    free(output);
    return 0;
  }
  json_object *raw = read_raw_result(ctx, pid);
  if (!raw)
    status = RUN_FAILED;
  else {
    char process[64];
    snprintf(process, sizeof process, "forked process %d", (int)pid);
    json_object *doc =
        pisa_document_from_raw(raw, &ctx->program, PISA_DOC_OTHER_PROCESS);
    status = write_document(ctx, doc, output, process);
    json_object_put(doc);
    json_object_put(raw);
  }
  free(output);
  return status;
}

/* Writes the documents of every raw result, the started process's first;
 * returns the program's status, or RUN_FAILED when any analysis result is
 * missing or bad. */
static int write_results(const struct run_context *ctx) {
  size_t n;
  pid_t *pids = list_raw_results(ctx->raw_dir, &n);
  int status = ctx->program.exit_status;
  if (ctx->opt->keep_raw)
    keep_raw_results(ctx, pids, n);
  if (ctx->opt->mpi_ranks) {
    status = write_mpi_results(ctx, pids, n);
    free(pids);
    return status;
  }
  if (!bsearch(&ctx->pid, pids, n, sizeof *pids, compare_pids)) {
    error("%s wrote no analysis result (%s)", ctx->program.path,
          describe_exit(&ctx->program));
    status = RUN_FAILED;
  } else if (main_document(ctx) != 0)
    status = RUN_FAILED;
  for (size_t i = 0; i < n; i++)
    if (pids[i] != ctx->pid && other_process_document(ctx, pids[i]) != 0)
      status = RUN_FAILED;
  free(pids);
  return status;
}

/* --csv FILE: the started process's per-set counts. */
static int copy_counter_csv(const char *raw_dir, pid_t pid, const char *to) {
  char *from = xasprintf("%s/sets.%d.csv", raw_dir, (int)pid);
  int status = copy_file(from, to);
  if (status != 0)
    error("cannot write the block-set counts to %s: %s", to, strerror(errno));
  free(from);
  return status;
}

static void remove_private_dir(const char *dir) {
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

int cmd_run(int argc, char **argv) {
  struct run_options opt = {.line_min = 8,
                            .line_max = 512,
                            .entropy_bits = 12,
                            .families = PISA_FAMILIES_ALL};
  int first = parse_run_options(argc, argv, &opt);
  const char *given = argv[first];
  char *file = find_program(given);
  check_program(given, file);
  check_mode_options(&opt);
  check_build_mode(given, file, opt.counter);
  char *output = opt.output ? xstrdup(opt.output) : default_output(given);
  check_output(output, opt.force);
  if (opt.keep_raw)
    check_keep_raw(opt.keep_raw);

  char *raw_dir = make_private_dir();
  struct run_outcome outcome;
  run_program(file, argv + first, raw_dir, &opt, &outcome);
  if (outcome.exec_error) {
    remove_private_dir(raw_dir);
    die("cannot run %s: %s", opt.mpi_ranks ? "mpirun" : given,
        strerror(outcome.exec_error));
  }
  struct run_context ctx = {
      .opt = &opt,
      .output = output,
      .raw_dir = raw_dir,
      .program = {given, argv + first + 1, argc - first - 1,
                  outcome.exit_status, outcome.signal, outcome.wall_seconds},
      .pid = outcome.pid,
  };
  int status = write_results(&ctx);
  if (opt.csv && copy_counter_csv(raw_dir, outcome.pid, opt.csv) != 0)
    status = RUN_FAILED;
  remove_private_dir(raw_dir);
  free(raw_dir);
  free(output);
  free(file);
  return status;
}
