/* cmdline.h: the command line of a pisa-char command: its one table of
 * options, the getopt_long loop with --help, and the one path of usage
 * errors. The commands word their usage errors in four styles today, kept
 * as they are (the tests check them); issue 16 makes them one grammar. */
#ifndef PISA_CLI_CMDLINE_H
#define PISA_CLI_CMDLINE_H

#include "util.h"

#include <getopt.h>

/* The four ways the commands report usage errors today; each names how a
 * message is shown and how getopt's errors (a missing argument, an unknown
 * option) are worded. */
enum usage_style {
  /* "pisa-char: CMD: MSG", then the usage; "option --x needs an argument",
   * "unknown option --x" or "-x" (show, rank, compare, report, validate) */
  USAGE_LIKE_SHOW,
  /* "pisa-char: MSG", a blank line, the usage; "option '--x' needs an
   * argument", "unknown option '--x'" (run, merge) */
  USAGE_LIKE_RUN,
  /* "pisa-char: CMD: MSG; see 'pisa-char CMD --help'", but getopt's errors
   * "pisa-char: CMD: MSG" alone, worded as run's (sweep) */
  USAGE_LIKE_SWEEP,
  /* "pisa-char: CMD: MSG; see 'pisa-char CMD --help'"; "option needs an
   * argument '--x'", "unknown option '--x'" (merge-sweep) */
  USAGE_LIKE_MERGE_SWEEP,
};

struct command_line {
  const char *name;             /* the command, as messages name it */
  const char *usage;            /* the help text */
  const char *short_options;    /* getopt_long's, starting with ':' (or
                                   "+:" to stop at the first operand) */
  const struct option *options; /* the command's options; 'h' is --help */
  enum usage_style style;
};

/* cmdline_parse() parsed every option; the operands start at optind. */
#define CMDLINE_PARSED (-1)

/* Parses the options of argv (argv[0] is the command) from the start,
 * calling take(opt, optarg, ctx) for each but --help; take returns 0, or
 * the exit status after reporting a usage error. Returns CMDLINE_PARSED,
 * or the exit status: 0 after --help (the usage on stdout, checked), 2
 * after a usage error (reported on stderr). */
int cmdline_parse(const struct command_line *cl, int argc, char **argv,
                  int (*take)(int opt, char *arg, void *ctx), void *ctx);

/* Reports a usage error of the command in its style; returns 2. */
int usage_error(const struct command_line *cl, const char *fmt, ...)
    PISA_PRINTF(2, 3);

#endif
