/* cmd_sweep.c: `pisa-char sweep SUITE|MANIFEST`: builds each benchmark of a
 * suite with pisa-cc and runs it under `pisa-char run`, N at a time, each in
 * its own process group (timeouts, Ctrl-C), and rewrites DIR/summary.json
 * and .csv after every benchmark so that a re-run resumes where it stopped
 * (the engine is sweep.h's). */
#include "cmdline.h"
#include "commands.h"
#include "numbers.h"
#include "runsettings.h"
#include "sweep.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOBS 256
#define MAX_SHARDS 65536

/* ---- Options ------------------------------------------------------------- */

static const char usage_text[] =
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
    "2 for bad usage, 128+N when stopped by signal N (results kept).\n";

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

static const struct command_line SweepLine = {
    .name = "sweep",
    .usage = usage_text,
    .short_options = ":j:o:qh",
    .options = SweepOptions,
    .style = USAGE_LIKE_SWEEP,
};

static unsigned parse_count(const char *arg, const char *what, unsigned max) {
  unsigned long v;
  if (parse_unsigned(arg, 1, max, &v))
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
  unsigned long k, n;
  const char *slash = strchr(arg, '/');
  char *first = xasprintf("%.*s", slash ? (int)(slash - arg) : 0, arg);
  if (!slash || parse_unsigned(slash + 1, 1, MAX_SHARDS, &n) ||
      parse_unsigned(first, 1, n, &k))
    die("sweep: --shard '%s': expected K/N with 1 <= K <= N", arg);
  free(first);
  opt->shard_index = (unsigned)k;
  opt->shard_count = (unsigned)n;
}

static void parse_mode(const char *arg, struct sweep_options *opt) {
  if (strcmp(arg, "deep") != 0 && strcmp(arg, "counter") != 0)
    die("sweep: --mode '%s': expected deep or counter", arg);
  opt->mode = arg;
}

static int take_option(int c, char *arg, void *ctx) {
  struct sweep_options *opt = ctx;
  switch (c) {
  case OPT_SIZE:
    opt->size = arg;
    break;
  case 'j':
    opt->jobs = parse_count(arg, "-j", MAX_JOBS);
    break;
  case OPT_MODE:
    parse_mode(arg, opt);
    break;
  case 'o':
    opt->out = arg;
    break;
  case OPT_TIMEOUT:
    opt->timeout = parse_timeout(arg);
    break;
  case OPT_METRICS:
    opt->metrics = arg;
    break;
  case OPT_SHARD:
    parse_shard(arg, opt);
    break;
  case OPT_ROOT:
    opt->root = arg;
    break;
  case 'q':
    opt->quiet = 1;
    break;
  }
  return 0; /* --keep-going: always the case */
}

static int parse_sweep_options(int argc, char **argv,
                               struct sweep_options *opt) {
  int status = cmdline_parse(&SweepLine, argc, argv, take_option, opt);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind != argc - 1)
    return usage_error(&SweepLine, "%s",
                       optind >= argc ? "no suite given"
                                      : "more than one suite given");
  opt->suite = argv[optind];
  if (opt->metrics && sweep_counter_mode(opt))
    die("sweep: --metrics selects deep-mode metric families; it does not go "
        "with --mode counter");
  /* What each run would refuse is refused before anything is built. */
  struct run_settings run;
  run_settings_init(&run);
  if (opt->metrics)
    run_parse_metrics(opt->metrics, &run);
  run_check_environment();
  return CMDLINE_PARSED;
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

/* ---- The final table ----------------------------------------------------- */

static void print_table(const struct sweep *sw) {
  printf("%-20s %-15s %9s %15s %12s  %s\n", "benchmark", "status", "seconds",
         "instructions", "footprint", "checksum");
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++) {
    if (!sweep_is_selected(sw, i))
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
  if (sweep_stop_signal())
    return 128 + sweep_stop_signal();
  for (size_t i = 0; i < sw->suite.nbenchmarks; i++) {
    if (!sweep_is_selected(sw, i))
      continue;
    if (!sw->rows[i] || !sweep_row_ok(sw->rows[i]))
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
  int status = parse_sweep_options(argc, argv, &sw.opt);
  if (status != CMDLINE_PARSED)
    return status;
  shard_from_mpi(&sw.opt);
  if (sw.opt.shard_count == 1)
    sw.opt.shard_count = 0; /* one slice is the whole sweep */
  sweep_setup(&sw);
  announce(&sw);
  sweep_schedule(&sw);
  if (sw.tty && !sw.opt.quiet)
    fputc('\n', stderr);
  if (!sw.opt.quiet)
    print_table(&sw);
  status = exit_status(&sw);
  sweep_free(&sw);
  return status;
}
