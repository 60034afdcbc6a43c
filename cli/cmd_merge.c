/* cmd_merge.c: `pisa-char merge FILE... -o OUT`: merges the results of the
 * ranks of an MPI job that the user ran with their own mpirun (per-rank
 * documents, or the runtime's raw results) into one document with `ranks`,
 * the job's `mpi` object and merged `totals`. */
#include "cmdline.h"
#include "commands.h"
#include "document.h"
#include "jsonpath.h"
#include "numbers.h"
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
    if (parse_long(arg, 1, 1 << 20, &size))
      return usage_error(&merge_line, "--size %s: expected a number of ranks",
                         arg);
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

/* Warns about each failed rank; returns how many there are. */
static size_t report_failures(json_object *doc) {
  json_object *failed = json_at(doc, "mpi/failed_ranks");
  size_t n = failed ? json_object_array_length(failed) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *f = json_object_array_get_idx(failed, i);
    warning("rank %d: %s", json_object_get_int(json_at(f, "rank")),
            json_object_get_string(json_at(f, "reason")));
  }
  return n;
}

static int write_merged(json_object *doc, const char *output, int force,
                        int quiet) {
  char err[1024];
  if (pisa_document_validate(doc, err, sizeof err) != 0) {
    error("%s: the merged document does not match schema %s: %s", output,
          PISA_SCHEMA_ID, err);
    return -1;
  }
  if (pisa_write_json_atomic(output, doc, force, err, sizeof err) !=
      PISA_WRITE_OK) {
    error("%s", err);
    return -1;
  }
  if (!quiet)
    fprintf(stderr, "%s: wrote %s: %zu of %d ranks\n", pisa_progname, output,
            json_object_array_length(json_at(doc, "ranks")),
            json_object_get_int(json_at(doc, "mpi/size")));
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
  int first = optind;
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, opt.size);
  for (int i = first; i < argc; i++) {
    char err[1024];
    json_object *input = pisa_read_json_file(argv[i], err, sizeof err);
    if (!input)
      die("%s", err);
    if (pisa_rank_merge_add(&m, input) != 0)
      die("%s: %s", argv[i], m.err);
    json_object_put(input);
  }
  struct pisa_program_run run = {opt.program, NULL, 0, 0, 0, 0};
  json_object *doc = pisa_rank_merge_finish(&m, opt.program ? &run : NULL);
  if (!doc)
    die("%s", m.err);
  size_t failed = report_failures(doc);
  status = write_merged(doc, opt.output, opt.force, opt.quiet);
  json_object_put(doc);
  return status != 0 ? 2 : failed ? 1 : 0;
}
