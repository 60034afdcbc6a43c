/* cmdline.h: the command line of a pisa-char command, one grammar for all:
 * its one table of options and of their valid values, the getopt_long loop
 * with --help, and the one path of usage errors: a line
 * "pisa-char CMD: PROBLEM" and the hint "Try 'pisa-char CMD --help'." on
 * stderr, exit status 2, with "did you mean" for a mistyped option or
 * value. Help texts, man pages and shell completion come from the same
 * tables. */
#ifndef PISA_CLI_CMDLINE_H
#define PISA_CLI_CMDLINE_H

#include "suggest.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>

/* The valid values of one option, from the table that defines them. A help
 * text names them as {OPTION} (replaced by "a, b, c", the line wrapped). */
struct cmdline_values {
  const char *option; /* the long option's name, e.g. "metrics" */
  const struct name_table *names;
};

struct command_line {
  const char *name;             /* the command; NULL for pisa-char itself */
  const char *usage;            /* the help text */
  const char *short_options;    /* getopt_long's, starting with ':' (or
                                   "+:" to stop at the first operand) */
  const struct option *options; /* the command's options; 'h' is --help */
  const struct cmdline_values *values; /* ended by a NULL option, or NULL */
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

/* Reports a usage error of the command; returns 2. */
int usage_error(const struct command_line *cl, const char *fmt, ...)
    PISA_PRINTF(2, 3);

/* The valid values of --OPTION (an empty table when it has none listed). */
struct name_table cmdline_values_of(const struct command_line *cl,
                                    const char *option);

/* Finds `value` among the valid values of --OPTION: 0 and its index in
 * *index, or the usage error "--OPTION 'VALUE': expected a, b or c" (with
 * "did you mean") and 2. */
int cmdline_choose(const struct command_line *cl, const char *option,
                   const char *value, size_t *index);

/* Writes the help text with every {OPTION} replaced by its values. */
void cmdline_print_usage(const struct command_line *cl, FILE *f);

#endif
