/* cmd_sweep.c: `pisa-char sweep SUITE|MANIFEST`: builds each benchmark of a
 * suite with pisa-cc and runs it under `pisa-char run`, N at a time, each in
 * its own process group (timeouts, Ctrl-C), and rewrites DIR/summary.json
 * and .csv after every benchmark so that a re-run resumes where it stopped
 * (the engine is sweep.h's). */
#include "cmdline.h"
#include "commands.h"
#include "launcher.h"
#include "numbers.h"
#include "runsettings.h"
#include "sweep.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
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
    "      --mode MODE     {mode}:\n"
    "                      deep (the default), counter (built with pisa-cc\n"
    "                      --mode=counter, run --mode counter) or\n"
    "                      footprint (built with pisa-cc --mode=footprint,\n"
    "                      run --mode footprint)\n"
    "  -o, --output DIR    output directory (default sweep-SUITE-SIZE, and\n"
    "                      sweep-SUITE-SIZE-MODE in counter and footprint\n"
    "                      mode); also --out\n"
    "      --timeout SEC   stop a benchmark's run after SEC seconds\n"
    "      --metrics LIST  metric families, as 'pisa-char run --metrics'\n"
    "      --shard K/N     run the K-th of N slices (benchmark index mod "
    "N);\n"
    "                      under mpirun or srun each rank takes its own\n"
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
    {"output", required_argument, NULL, 'o'},
    {"out", required_argument, NULL, 'o'}, /* the old spelling */
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"root", required_argument, NULL, OPT_ROOT},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct cmdline_values SweepValues[] = {
    {"mode", &run_mode_names},
    {"metrics", &run_metric_names},
    {NULL, NULL},
};

const struct command_line sweep_line = {
    .name = "sweep",
    .usage = usage_text,
    .short_options = ":j:o:qh",
    .options = SweepOptions,
    .values = SweepValues,
};

static int parse_count(const char *arg, const char *what, unsigned max,
                       unsigned *out) {
  unsigned long v;
  if (parse_unsigned(arg, 1, max, &v))
    return usage_error(&sweep_line,
                       "%s '%s': expected a whole number from 1 to %u", what,
                       arg, max);
  *out = (unsigned)v;
  return 0;
}

static int parse_timeout(const char *arg, double *out) {
  char *end;
  errno = 0;
  double v = strtod(arg, &end);
  if (end == arg || *end || errno || !(v > 0) || v > 1e7)
    return usage_error(&sweep_line,
                       "--timeout '%s': expected a positive number of seconds",
                       arg);
  *out = v;
  return 0;
}

static int parse_shard(const char *arg, struct sweep_options *opt) {
  unsigned long k, n;
  const char *slash = strchr(arg, '/');
  char *first = xasprintf("%.*s", slash ? (int)(slash - arg) : 0, arg);
  int bad = !slash || parse_unsigned(slash + 1, 1, MAX_SHARDS, &n) ||
            parse_unsigned(first, 1, n, &k);
  free(first);
  if (bad)
    return usage_error(&sweep_line,
                       "--shard '%s': expected K/N with 1 <= K <= N <= %d", arg,
                       MAX_SHARDS);
  opt->shard_index = (unsigned)k;
  opt->shard_count = (unsigned)n;
  return 0;
}

/* --mode and --metrics as `pisa-char run` reads them. */
static int parse_run_setting(int c, char *arg, struct sweep_options *opt) {
  struct run_settings settings;
  run_settings_init(&settings);
  if (c == OPT_MODE) {
    opt->mode = arg;
    return run_parse_mode(&sweep_line, arg, &settings);
  }
  opt->metrics = arg;
  return run_parse_metrics(&sweep_line, arg, &settings);
}

static int take_option(int c, char *arg, void *ctx) {
  struct sweep_options *opt = ctx;
  switch (c) {
  case OPT_SIZE:
    opt->size = arg;
    break;
  case 'j':
    return parse_count(arg, "-j", MAX_JOBS, &opt->jobs);
  case OPT_MODE:
  case OPT_METRICS:
    return parse_run_setting(c, arg, opt);
  case 'o':
    opt->out = arg;
    break;
  case OPT_TIMEOUT:
    return parse_timeout(arg, &opt->timeout);
  case OPT_SHARD:
    return parse_shard(arg, opt);
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
  int status = cmdline_parse(&sweep_line, argc, argv, take_option, opt);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind != argc - 1)
    return usage_error(&sweep_line, "%s",
                       optind >= argc ? "no suite given"
                                      : "more than one suite given");
  opt->suite = argv[optind];
  if (opt->metrics && sweep_counter_mode(opt))
    return usage_error(&sweep_line,
                       "--metrics selects deep-mode metric families; it does "
                       "not go with --mode %s",
                       opt->mode);
  /* What each run would refuse is refused before anything is built. */
  struct run_settings run;
  run_settings_init(&run);
  if (opt->metrics && run_parse_metrics(&sweep_line, opt->metrics, &run))
    return 2;
  run_check_environment();
  return CMDLINE_PARSED;
}

/* Without --shard, a rank of an MPI launcher's job (mpirun, srun) takes
 * its own slice. */
static int shard_from_launcher(struct sweep_options *opt) {
  struct launcher_rank r;
  int ranked = launcher_rank(&r);
  if (ranked < 0)
    return 2;
  if (opt->shard_count || !ranked || r.size <= 0)
    return 0;
  if (r.rank >= r.size) {
    error("sweep: %s '%ld' is not a rank below %ld", r.variable, r.rank,
          r.size);
    return 2;
  }
  opt->shard_index = (unsigned)r.rank + 1;
  opt->shard_count = (unsigned)r.size;
  return 0;
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
  status = shard_from_launcher(&sw.opt);
  if (status)
    return status;
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
