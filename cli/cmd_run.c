/* cmd_run.c: `pisa-char [run] [options] [--] PROGRAM [ARGS...]`. Checks the
 * program and the output before anything runs, runs the program with the
 * runtime's environment as `time` would, then turns the raw results its
 * processes wrote into validated result documents. */
#include "child.h"
#include "cmdline.h"
#include "commands.h"
#include "document.h"
#include "launcher.h"
#include "program.h"
#include "runresults.h"
#include "runsettings.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct run_options {
  const char *output;
  int force;
  const char *keep_raw;
  int quiet;
  struct run_settings settings;
};

/* What happened to the started program. */
struct run_outcome {
  pid_t pid;
  int exit_status; /* exit code, or 128+N */
  int signal;      /* N when killed by signal N */
  double wall_seconds;
  int exec_error; /* errno of a failed exec, else 0 */
};

static const char usage_text[] =
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
    "      --roi-function GLOB\n"
    "                        deep mode: the calls of the functions whose\n"
    "                        name matches GLOB (inlined or not) are a\n"
    "                        region of interest named GLOB\n"
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
    "the analysis failed.\n";

/* ---- Options ------------------------------------------------------------- */

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
  OPT_OVERSUBSCRIBE,
  OPT_ROI_FUNCTION
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
    {"roi-function", required_argument, NULL, OPT_ROI_FUNCTION},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct command_line RunLine = {
    .name = "run",
    .usage = usage_text,
    .short_options = "+:o:qh",
    .options = RunOptions,
    .style = USAGE_LIKE_RUN,
};

static int take_option(int opt, char *arg, void *ctx) {
  struct run_options *o = ctx;
  struct run_settings *s = &o->settings;
  switch (opt) {
  case 'o':
    o->output = arg;
    break;
  case OPT_FORCE:
    o->force = 1;
    break;
  case OPT_MODE:
    run_parse_mode(arg, s);
    break;
  case OPT_SAMPLE_EVERY:
    run_parse_sample_every(arg, s);
    break;
  case OPT_HW_COUNTERS:
    run_parse_hw_counters(arg, s);
    break;
  case OPT_INTERVAL_MS:
    run_parse_interval_ms(arg, s);
    break;
  case OPT_CSV:
    s->csv = arg;
    break;
  case OPT_LINE_SIZES:
    run_parse_line_sizes(arg, s);
    break;
  case OPT_ENTROPY_BITS:
    run_parse_entropy_bits(arg, s);
    break;
  case OPT_METRICS:
    run_parse_metrics(arg, s);
    break;
  case OPT_ILP_WINDOWS:
    run_parse_windows(arg, s);
    break;
  case OPT_KEEP_RAW:
    o->keep_raw = arg;
    break;
  case OPT_MPI:
    run_parse_mpi_ranks(arg, s);
    break;
  case OPT_OVERSUBSCRIBE:
    s->oversubscribe = 1;
    break;
  case OPT_ROI_FUNCTION:
    run_parse_roi_function(arg, s);
    break;
  case 'q':
    o->quiet = 1;
    break;
  }
  return 0;
}

/* ---- Checks before running ----------------------------------------------- */

/* PROGRAM.pisa.json, or PROGRAM.rankN.pisa.json when pisa-char itself is
 * rank N of an MPI job (`mpirun ... pisa-char ./app`; pisa-char merge). */
static char *default_output(const char *program) {
  const char *rank = launcher_rank();
  char *copy = xstrdup(program);
  char *output =
      rank ? xasprintf("%s.rank%s%s", basename(copy), rank, PISA_DOC_SUFFIX)
           : xasprintf("%s%s", basename(copy), PISA_DOC_SUFFIX);
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

/* ---- Running ------------------------------------------------------------- */

/* The program, or mpirun starting it, with the runtime's environment. */
static void command_of(const char *file, char **argv, const char *raw_dir,
                       const struct run_settings *s, struct strvec *cmd,
                       struct strvec *env) {
  child_env_init(env);
  run_settings_env(s, raw_dir, env);
  if (s->mpi_ranks)
    launcher_mpirun(cmd, env, file, argv, s->mpi_ranks, s->oversubscribe);
}

static void run_program(const char *file, char **argv, const char *raw_dir,
                        const struct run_settings *s, struct run_outcome *out) {
  struct strvec cmd = {0}, env = {0};
  struct child_signals signals;
  int report;
  command_of(file, argv, raw_dir, s, &cmd, &env);
  struct child_spec spec = {.file = s->mpi_ranks ? cmd.v[0] : file,
                            .search = s->mpi_ranks != 0,
                            .argv = s->mpi_ranks ? cmd.v : argv,
                            .envp = env.v,
                            .signals = &signals};
  child_signals_hold(&signals);
  double start = child_clock();
  pid_t pid = child_start(&spec, &report);
  if (pid < 0) {
    child_signals_release(&signals);
    die("cannot start %s: %s", argv[0], strerror(errno));
  }
  child_signals_forward(pid, &signals);
  out->exec_error = child_exec_error(report);
  int status = child_wait(pid, &signals);
  out->wall_seconds = child_clock() - start;
  out->pid = pid;
  out->exit_status = child_exit_status(status, &out->signal);
  strvec_free(&cmd);
  strvec_free(&env);
}

int cmd_run(int argc, char **argv) {
  struct run_options opt = {0};
  run_settings_init(&opt.settings);
  int status = cmdline_parse(&RunLine, argc, argv, take_option, &opt);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&RunLine, "%s", "no program to run");
  int first = optind;
  const char *given = argv[first];
  char *file = program_find(given);
  program_check(given, file);
  run_check_mode(&opt.settings);
  program_check_mode(given, file, opt.settings.counter);
  char *output = opt.output ? xstrdup(opt.output) : default_output(given);
  check_output(output, opt.force);
  if (opt.keep_raw)
    check_keep_raw(opt.keep_raw);

  char *raw_dir = run_results_dir_create();
  struct run_outcome outcome;
  run_program(file, argv + first, raw_dir, &opt.settings, &outcome);
  if (outcome.exec_error) {
    run_results_dir_remove(raw_dir);
    die("cannot run %s: %s", opt.settings.mpi_ranks ? "mpirun" : given,
        strerror(outcome.exec_error));
  }
  struct run_results results = {
      .output = output,
      .raw_dir = raw_dir,
      .keep_raw = opt.keep_raw,
      .force = opt.force,
      .quiet = opt.quiet,
      .mpi_ranks = opt.settings.mpi_ranks,
      .program = {given, argv + first + 1, argc - first - 1,
                  outcome.exit_status, outcome.signal, outcome.wall_seconds},
      .pid = outcome.pid,
  };
  status = run_results_write(&results);
  if (opt.settings.csv &&
      run_results_copy_csv(raw_dir, outcome.pid, opt.settings.csv) != 0)
    status = RUN_FAILED;
  run_results_dir_remove(raw_dir);
  free(raw_dir);
  free(output);
  free(file);
  return status;
}
