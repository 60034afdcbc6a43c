/* cmd_merge.c: `pisa-char merge FILE... -o OUT`: merges the results of the
 * ranks of an MPI job that the user ran with their own mpirun (per-rank
 * documents, or the runtime's raw results) into one document with `ranks`,
 * the job's `mpi` object and merged `totals`. */
#include "cmdline.h"
#include "commands.h"
#include "numbers.h"
#include "rankfiles.h"
#include "rankmerge.h"
#include "util.h"

#include <stdio.h>

struct merge_options {
  const char *output;
  const char *program;
  int force;
  int size;
  int quiet;
};

static const char usage_text[] =
    "usage: pisa-char merge [options] -o OUT FILE...\n"
    "\n"
    "Merges the results of the ranks of one MPI job into OUT: result\n"
    "documents written by 'mpirun ... pisa-char ./app' (one per rank,\n"
    "APP.rankN.pisa.json) or merged before, or the raw results of\n"
    "'PISA_OUTPUT_DIR=DIR mpirun ... ./app' (DIR/raw.PID.json). OUT has\n"
    "one entry per rank in \"ranks\", every thread with its rank, the\n"
    "merged totals and the job's communication matrix in \"mpi\".\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT   the merged document (required)\n"
    "      --force        overwrite OUT\n"
    "      --size N       the job had N ranks: missing ones are failures\n"
    "      --program PATH the program, for raw results (documents name\n"
    "                     it themselves)\n"
    "  -q, --quiet        print no summary\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: 0 when every rank succeeded, 1 when the merged\n"
    "document is incomplete (the failing ranks are in mpi.failed_ranks),\n"
    "2 for bad usage or input.\n";

enum { OPT_FORCE = 256, OPT_SIZE, OPT_PROGRAM };

static const struct option MergeOptions[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"size", required_argument, NULL, OPT_SIZE},
    {"program", required_argument, NULL, OPT_PROGRAM},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line merge_line = {
    .name = "merge",
    .usage = usage_text,
    .short_options = ":o:qh",
    .options = MergeOptions,
};

static int take_option(int opt, char *arg, void *ctx) {
  struct merge_options *o = ctx;
  long size;
  switch (opt) {
  case 'o':
    o->output = arg;
    break;
  case OPT_FORCE:
    o->force = 1;
    break;
  case OPT_SIZE:
    if (parse_long(arg, 1, PISA_MAX_RANKS, &size))
      return usage_error(&merge_line,
                         "--size %s: expected a number of ranks from 1 to %d",
                         arg, PISA_MAX_RANKS);
    o->size = (int)size;
    break;
  case OPT_PROGRAM:
    o->program = arg;
    break;
  case 'q':
    o->quiet = 1;
    break;
  }
  return 0;
}

int cmd_merge(int argc, char **argv) {
  struct merge_options opt = {0};
  int status = cmdline_parse(&merge_line, argc, argv, take_option, &opt);
  if (status != CMDLINE_PARSED)
    return status;
  if (!opt.output)
    return usage_error(&merge_line, "no output file (-o OUT)");
  if (optind >= argc)
    return usage_error(&merge_line, "no files to merge");
  struct rank_files_merge m = {.output = opt.output,
                               .program = opt.program,
                               .size = opt.size,
                               .force = opt.force,
                               .quiet = opt.quiet};
  return rank_files_merge(&m, argv + optind, (size_t)(argc - optind));
}
