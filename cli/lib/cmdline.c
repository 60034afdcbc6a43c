/* cmdline.c: the getopt_long loop of every command, --help, and usage
 * errors in the style each command has today. */
#include "cmdline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* How a message is shown. */
enum shown {
  SHOWN_NAMED_TEXT, /* "pisa-char: CMD: MSG", then the usage text */
  SHOWN_BLANK_TEXT, /* "pisa-char: MSG", a blank line, the usage text */
  SHOWN_NAMED_LINE, /* "pisa-char: CMD: MSG" alone */
  SHOWN_NAMED_HINT, /* "pisa-char: CMD: MSG; see 'pisa-char CMD --help'" */
};

/* How getopt's errors are worded. */
enum wording {
  WORDED_PLAIN,    /* option --x needs an argument; unknown option --x|-x */
  WORDED_QUOTED,   /* option '--x' needs an argument; unknown option '--x' */
  WORDED_TRAILING, /* option needs an argument '--x'; unknown option '--x' */
};

static const struct {
  enum shown usage, option;
  enum wording wording;
} Styles[] = {
    [USAGE_LIKE_SHOW] = {SHOWN_NAMED_TEXT, SHOWN_NAMED_TEXT, WORDED_PLAIN},
    [USAGE_LIKE_RUN] = {SHOWN_BLANK_TEXT, SHOWN_BLANK_TEXT, WORDED_QUOTED},
    [USAGE_LIKE_SWEEP] = {SHOWN_NAMED_HINT, SHOWN_NAMED_LINE, WORDED_QUOTED},
    [USAGE_LIKE_MERGE_SWEEP] = {SHOWN_NAMED_HINT, SHOWN_NAMED_HINT,
                                WORDED_TRAILING},
};

static int vreport(const struct command_line *cl, enum shown shown,
                   const char *fmt, va_list ap) {
  fprintf(stderr, "%s: ", pisa_progname);
  if (shown != SHOWN_BLANK_TEXT)
    fprintf(stderr, "%s: ", cl->name);
  vfprintf(stderr, fmt, ap);
  if (shown == SHOWN_NAMED_HINT)
    fprintf(stderr, "; see '%s %s --help'", pisa_progname, cl->name);
  fputs(shown == SHOWN_BLANK_TEXT ? "\n\n" : "\n", stderr);
  if (shown == SHOWN_NAMED_TEXT || shown == SHOWN_BLANK_TEXT)
    fputs(cl->usage, stderr);
  return 2;
}

int usage_error(const struct command_line *cl, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int status = vreport(cl, Styles[cl->style].usage, fmt, ap);
  va_end(ap);
  return status;
}

static int option_error(const struct command_line *cl, const char *fmt, ...)
    PISA_PRINTF(2, 3);
static int option_error(const struct command_line *cl, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int status = vreport(cl, Styles[cl->style].option, fmt, ap);
  va_end(ap);
  return status;
}

/* getopt_long's ':' (a missing argument) or '?' (an unknown option). */
static int bad_option(const struct command_line *cl, int opt, char **argv) {
  const char *arg = argv[optind - 1];
  switch (Styles[cl->style].wording) {
  case WORDED_PLAIN:
    if (opt == ':')
      return option_error(cl, "option %s needs an argument", arg);
    if (optopt)
      return option_error(cl, "unknown option -%c", optopt);
    return option_error(cl, "unknown option %s", arg);
  case WORDED_QUOTED:
    if (opt == ':')
      return option_error(cl, "option '%s' needs an argument", arg);
    return option_error(cl, "unknown option '%s'", arg);
  case WORDED_TRAILING:
    break;
  }
  return option_error(
      cl, "%s '%s'", opt == ':' ? "option needs an argument" : "unknown option",
      arg);
}

static int help(const struct command_line *cl) {
  fputs(cl->usage, stdout);
  check_stdout();
  return 0;
}

int cmdline_parse(const struct command_line *cl, int argc, char **argv,
                  int (*take)(int opt, char *arg, void *ctx), void *ctx) {
  int opt;
  optind = 0; /* full reset: another command may have parsed before */
  opterr = 0; /* messages in the command's style, below */
  while ((opt = getopt_long(argc, argv, cl->short_options, cl->options,
                            NULL)) != -1) {
    if (opt == 'h')
      return help(cl);
    int status = opt == ':' || opt == '?' ? bad_option(cl, opt, argv)
                                          : take(opt, optarg, ctx);
    if (status)
      return status;
  }
  return CMDLINE_PARSED;
}
