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
#include "progress.h"
#include "runoutput.h"
#include "runresults.h"
#include "runsettings.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
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
    "  -o, --output FILE     write the result to FILE, where %p, %h, %r, %j\n"
    "                        and %% stand for the process id, the host\n"
    "                        name, the MPI rank, the batch job's id and '%'\n"
    "      --force           overwrite existing result files\n"
    "      --mode MODE       analysis mode, one of {mode}:\n"
    "                        deep (the full metric set, the default),\n"
    "                        counter (instruction mix, bytes and regions of a\n"
    "                        pisa-cc --mode=counter build at a few percent\n"
    "                        overhead) or footprint (counter mode and the\n"
    "                        exact footprint of a pisa-cc --mode=footprint\n"
    "                        build)\n"
    "      --sample-every N  counter mode: measure one region execution\n"
    "                        in N (the first always) and scale\n"
    "      --hw-counters LIST\n"
    "                        counter mode: read these perf events around\n"
    "                        regions, comma-separated: {hw-counters}\n"
    "      --interval-ms T   counter mode: a per-thread snapshot every T ms\n"
    "      --csv FILE        counter mode: write per-block-set counts to "
    "FILE\n"
    "      --line-sizes MIN:MAX\n"
    "                        cache line sizes to analyse, powers of two\n"
    "                        from 1 to 1048576 (default 8:512)\n"
    "      --entropy-bits K  memory entropy with 0 to K low address bits\n"
    "                        cut (default 12, at most 40)\n"
    "      --metrics LIST    metric families to compute, comma-separated,\n"
    "                        of {metrics}\n"
    "                        (default all); -NAME removes one. reuse:\n"
    "                        reuse distance and miss ratios; locality:\n"
    "                        spatial locality (implies reuse, and -reuse\n"
    "                        removes it too); classes: access classes;\n"
    "                        ilp: ILP per window and DLP1/2; bblp: BBLP,\n"
    "                        smart BBLP and PBBLP. The instruction mix is\n"
    "                        always computed\n"
    "      --ilp-windows LIST\n"
    "                        instruction windows of the ILP schedules,\n"
    "                        comma-separated, 0 = unlimited (default\n"
    "                        0,64; at most 8, each up to 1048576)\n"
    "      --sample RATE     sampled deep mode (e.g. 1% or 0.001): reuse,\n"
    "                        miss ratios, footprint and entropy from the\n"
    "                        blocks a hash selects at RATE, branch and\n"
    "                        ILP/BBLP from bursts covering RATE of the\n"
    "                        run; estimates, marked in the result\n"
    "      --sample-seed N   with --sample: another draw (0, the default,\n"
    "                        is the usual one); runs with different seeds\n"
    "                        sample other blocks, windows and bursts, and\n"
    "                        their spread shows the sampling error\n"
    "      --memory-limit SIZE\n"
    "                        memory all analysis state may hold, in bytes\n"
    "                        or with K, M, G or T (default half the\n"
    "                        physical memory)\n"
    "      --analysis-threads N\n"
    "                        threads that analyse the program's records\n"
    "                        while it runs, 0 to 64 (default: the CPUs\n"
    "                        pisa-char may use less one; at most 4 work)\n"
    "      --roi-function GLOB\n"
    "                        deep mode: the calls of the functions whose\n"
    "                        name matches GLOB (inlined or not) are a\n"
    "                        region of interest named GLOB\n"
    "      --intervals N     deep mode: cut each thread's run into\n"
    "                        intervals of N instructions (auto, the\n"
    "                        default: a length that keeps 500 to 1000;\n"
    "                        off: none) and detect its phases\n"
    "      --no-regions      deep mode: ignore the program's regions of\n"
    "                        interest (PISA_ROI markers); each open region\n"
    "                        keeps footprints, entropy, reuse histograms and\n"
    "                        branch contexts of its own, so this saves up to\n"
    "                        a third of the cost\n"
    "      --objects         deep mode: attribute accesses to data objects\n"
    "                        (heap allocation sites, global variables,\n"
    "                        thread stacks) in the result's objects\n"
    "      --object-depth N  with --objects: tell heap objects apart by N\n"
    "                        source locations of their allocation call\n"
    "                        (the call, the calls it was inlined into,\n"
    "                        then its callers' calls), 1 to 8 (default 2)\n"
    "      --loop-metrics    deep mode: also footprint, memory entropy and\n"
    "                        ILP/DLP/BBLP per loop (about 20% more work)\n"
    "      --keep-raw DIR    also copy the runtime's raw results to DIR\n"
    "  -q, --quiet           print no summary and no status line\n"
    "  -h, --help            show this help\n"
    "\n"
    "      --mpi N           run PROGRAM as an MPI job of N ranks\n"
    "                        (mpirun -np N, or $PISA_MPIRUN; with\n"
    "                        --allow-run-as-root when run as root) and\n"
    "                        merge the ranks into one result\n"
    "      --oversubscribe   let mpirun start more ranks than cores\n"
    "\n"
    "While the program runs, a status line on stderr says how long it has\n"
    "run, how many events (record words: block entries and memory\n"
    "addresses) have been analysed and the phase: running, draining (the\n"
    "threads' last records) or writing; only when stderr is a terminal.\n"
    "\n"
    "Processes that the program forks write PROGRAM.PID.pisa.json next\n"
    "to the result. Started by mpirun or srun, each rank writes\n"
    "PROGRAM.rankN.pisa.json, or with -o FILE (without %r) FILE.rankN.json,\n"
    "and rank 0 merges those into FILE once all ranks wrote theirs.\n"
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
  OPT_SAMPLE,
  OPT_SAMPLE_SEED,
  OPT_MEMORY_LIMIT,
  OPT_ANALYSIS_THREADS,
  OPT_ROI_FUNCTION,
  OPT_NO_REGIONS,
  OPT_OBJECTS,
  OPT_OBJECT_DEPTH,
  OPT_INTERVALS,
  OPT_LOOP_METRICS
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
    {"sample", required_argument, NULL, OPT_SAMPLE},
    {"sample-seed", required_argument, NULL, OPT_SAMPLE_SEED},
    {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
    {"analysis-threads", required_argument, NULL, OPT_ANALYSIS_THREADS},
    {"oversubscribe", no_argument, NULL, OPT_OVERSUBSCRIBE},
    {"roi-function", required_argument, NULL, OPT_ROI_FUNCTION},
    {"intervals", required_argument, NULL, OPT_INTERVALS},
    {"no-regions", no_argument, NULL, OPT_NO_REGIONS},
    {"objects", no_argument, NULL, OPT_OBJECTS},
    {"object-depth", required_argument, NULL, OPT_OBJECT_DEPTH},
    {"loop-metrics", no_argument, NULL, OPT_LOOP_METRICS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct cmdline_values RunValues[] = {
    {"mode", &run_mode_names},
    {"metrics", &run_metric_names},
    {"hw-counters", &run_hw_counter_names},
    {NULL, NULL},
};

const struct command_line run_line = {
    .name = "run",
    .usage = usage_text,
    .short_options = "+:o:qh",
    .options = RunOptions,
    .values = RunValues,
};

static int take_option(int opt, char *arg, void *ctx) {
  struct run_options *o = ctx;
  struct run_settings *s = &o->settings;
  const struct command_line *cl = &run_line;
  switch (opt) {
  case 'o':
    o->output = arg;
    break;
  case OPT_FORCE:
    o->force = 1;
    break;
  case OPT_MODE:
    return run_parse_mode(cl, arg, s);
  case OPT_SAMPLE_EVERY:
    return run_parse_sample_every(cl, arg, s);
  case OPT_HW_COUNTERS:
    return run_parse_hw_counters(cl, arg, s);
  case OPT_INTERVAL_MS:
    return run_parse_interval_ms(cl, arg, s);
  case OPT_CSV:
    s->csv = arg;
    break;
  case OPT_LINE_SIZES:
    return run_parse_line_sizes(cl, arg, s);
  case OPT_ENTROPY_BITS:
    return run_parse_entropy_bits(cl, arg, s);
  case OPT_METRICS:
    return run_parse_metrics(cl, arg, s);
  case OPT_ILP_WINDOWS:
    return run_parse_windows(cl, arg, s);
  case OPT_KEEP_RAW:
    o->keep_raw = arg;
    break;
  case OPT_MPI:
    return run_parse_mpi_ranks(cl, arg, s);
  case OPT_OVERSUBSCRIBE:
    s->oversubscribe = 1;
    break;
  case OPT_SAMPLE:
    return run_parse_sample(cl, arg, s);
  case OPT_SAMPLE_SEED:
    return run_parse_sample_seed(cl, arg, s);
  case OPT_MEMORY_LIMIT:
    return run_parse_memory_limit(cl, arg, s);
  case OPT_ANALYSIS_THREADS:
    return run_parse_analysis_threads(cl, arg, s);
  case OPT_ROI_FUNCTION:
    return run_parse_roi_function(cl, arg, s);
  case OPT_INTERVALS:
    return run_parse_intervals(cl, arg, s);
  case OPT_NO_REGIONS:
    s->no_regions = 1;
    break;
  case OPT_OBJECTS:
    return run_parse_object_depth(cl, NULL, s);
  case OPT_OBJECT_DEPTH:
    return run_parse_object_depth(cl, arg, s);
  case OPT_LOOP_METRICS:
    s->loop_metrics = 1;
    break;
  case 'q':
    o->quiet = 1;
    break;
  }
  return 0;
}

/* ---- Checks before running ----------------------------------------------- */

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

/* Runs the program; `signals` then holds the termination signals until
 * child_signals_deliver (child_wait). */
static void run_program(const char *file, char **argv, const char *raw_dir,
                        const struct run_settings *s, struct progress *progress,
                        int quiet, struct run_outcome *out,
                        struct child_signals *signals) {
  struct strvec cmd = {0}, env = {0};
  int report;
  command_of(file, argv, raw_dir, s, &cmd, &env);
  progress_start(progress, raw_dir, quiet, &env);
  struct child_spec spec = {.file = s->mpi_ranks ? cmd.v[0] : file,
                            .search = s->mpi_ranks != 0,
                            .argv = s->mpi_ranks ? cmd.v : argv,
                            .envp = env.v,
                            .signals = signals};
  child_signals_hold(signals);
  double start = child_clock();
  pid_t pid = child_start(&spec, &report);
  if (pid < 0) {
    child_signals_release(signals);
    die("cannot start %s: %s", argv[0], strerror(errno));
  }
  child_signals_forward(pid, signals);
  out->exec_error = child_exec_error(report);
  int status = child_wait(pid, signals, progress->block ? progress_tick : NULL,
                          progress);
  out->wall_seconds = child_clock() - start;
  out->pid = pid;
  out->exit_status = child_exit_status(status, &out->signal);
  strvec_free(&cmd);
  strvec_free(&env);
}

/* Unless snapshots are off (PISA_SNAPSHOT_INTERVAL=off), the run is
 * described in its raw directory before it starts, as killed by SIGKILL:
 * if pisa-char is killed with the program, `pisa-char recover DIR` makes
 * the document of the last snapshot.  pisa-char replaces or removes it
 * when it finishes. */
static void describe_snapshot_run(const char *raw_dir,
                                  const struct run_output *output,
                                  const struct run_options *opt, int argc,
                                  char **argv) {
  const char *snapshots = getenv("PISA_SNAPSHOT_INTERVAL");
  if (snapshots && !strcmp(snapshots, "off"))
    return;
  struct run_results run = {
      .output = output->document,
      .raw_dir = raw_dir,
      .mpi_ranks = opt->settings.mpi_ranks,
      .program = {argv[0], argv + 1, argc - 1, 128 + SIGKILL, SIGKILL, 0},
  };
  if (run_results_describe(&run) != 0)
    warning("cannot describe the run in %s: %s", raw_dir, strerror(errno));
}

int cmd_run(int argc, char **argv) {
  struct run_options opt = {0};
  run_settings_init(&opt.settings);
  int status = cmdline_parse(&run_line, argc, argv, take_option, &opt);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind >= argc)
    return usage_error(&run_line, "%s", "no program to run");
  status = run_check_mode(&run_line, &opt.settings);
  if (status)
    return status;
  run_check_environment();
  int first = optind;
  const char *given = argv[first];
  struct run_output output;
  status = run_output_plan(&run_line, opt.output, given, &output);
  if (status)
    return status;
  char *file = program_find(given);
  program_check(given, file);
  program_check_mode(given, file, opt.settings.counter, opt.settings.footprint);
  run_output_check(&output, opt.force, file);
  if (opt.keep_raw)
    check_keep_raw(opt.keep_raw);

  char *raw_dir = run_results_dir_create();
  describe_snapshot_run(raw_dir, &output, &opt, argc - first, argv + first);
  struct run_outcome outcome;
  struct child_signals signals;
  struct progress progress;
  run_program(file, argv + first, raw_dir, &opt.settings, &progress, opt.quiet,
              &outcome, &signals);
  progress_end(&progress); /* before the summary and any error */
  if (outcome.exec_error) {
    run_results_dir_remove(raw_dir);
    die("cannot run %s: %s", opt.settings.mpi_ranks ? "mpirun" : given,
        strerror(outcome.exec_error));
  }
  struct run_results results = {
      .output = output.document,
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
  status = run_output_merge(&output, status, opt.force, opt.quiet);
  if (opt.settings.csv &&
      run_results_copy_csv(raw_dir, outcome.pid, opt.settings.csv) != 0)
    status = RUN_FAILED;
  if (!results.unwritten || run_results_keep(&results) != 0)
    run_results_dir_remove(raw_dir);
  /* The results are written: a signal that came after the program ended
   * acts now (and ends pisa-char as it demands). */
  child_signals_deliver(&signals);
  free(raw_dir);
  run_output_free(&output);
  free(file);
  return status;
}
