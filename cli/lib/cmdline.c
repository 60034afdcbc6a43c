/* cmdline.c: the getopt_long loop of every command, --help with the lists
 * of valid values filled in, and the one shape of usage errors. */
#include "cmdline.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 79

/* "pisa-char CMD" (or "pisa-char"), as messages and hints name it. */
static void print_command(const struct command_line *cl, FILE *f) {
  fputs(pisa_progname, f);
  if (cl->name)
    fprintf(f, " %s", cl->name);
}

static int vusage_error(const struct command_line *cl, const char *fmt,
                        va_list ap) {
  print_command(cl, stderr);
  fputs(": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\nTry '", stderr);
  print_command(cl, stderr);
  fputs(" --help'.\n", stderr);
  return 2;
}

int usage_error(const struct command_line *cl, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int status = vusage_error(cl, fmt, ap);
  va_end(ap);
  return status;
}

/* ---- Valid values ---------------------------------------------------------
 */

struct name_table cmdline_values_of(const struct command_line *cl,
                                    const char *option) {
  for (const struct cmdline_values *v = cl->values; v && v->option; v++)
    if (!strcmp(v->option, option))
      return *v->names;
  return (struct name_table){NULL, 0, sizeof(const char *)};
}

/* "; did you mean 'X'?" when `word` is close to a name, else "". */
static char *did_you_mean(const char *word, struct name_table names,
                          const char *prefix) {
  const char *close = suggest_name(word, names);
  return close ? xasprintf("; did you mean '%s%s'?", prefix, close)
               : xstrdup("");
}

int cmdline_choose(const struct command_line *cl, const char *option,
                   const char *value, size_t *index) {
  struct name_table names = cmdline_values_of(cl, option);
  for (size_t i = 0; i < names.count; i++)
    if (name_at(names, i) && !strcmp(name_at(names, i), value)) {
      *index = i;
      return 0;
    }
  char *list = join_names(names, " or ");
  char *hint = did_you_mean(value, names, "");
  int status =
      usage_error(cl, "--%s '%s': expected %s%s", option, value, list, hint);
  free(list);
  free(hint);
  return status;
}

/* ---- getopt's errors ------------------------------------------------------
 */

/* Long options whose name starts with the `len` characters of `name`. */
static size_t count_prefixed(const struct option *o, const char *name,
                             size_t len, struct strbuf *list) {
  size_t n = 0;
  for (; o->name; o++)
    if (!strncmp(o->name, name, len))
      sb_printf(list, "%s--%s", n++ ? ", " : "", o->name);
  return n;
}

static struct name_table option_names(const struct option *o) {
  size_t count = 0;
  while (o[count].name)
    count++;
  return (struct name_table){o, count, sizeof *o};
}

/* An unknown, ambiguous or misused long option (`arg` is "--name[=v]"):
 * getopt_long accepts unique prefixes, so a name that starts one option
 * only is that option, given a value it does not take. */
static int bad_long_option(const struct command_line *cl, const char *arg) {
  const char *name = arg + 2;
  size_t len = strcspn(name, "=");
  struct strbuf list = {0};
  size_t n = count_prefixed(cl->options, name, len, &list);
  int status;
  if (n == 1 && name[len] == '=') {
    status = usage_error(cl, "option '%s' takes no argument", list.data);
  } else if (n > 1) {
    status = usage_error(cl, "option '--%.*s' is ambiguous: %s", (int)len, name,
                         list.data);
  } else {
    char *word = xasprintf("%.*s", (int)len, name);
    char *hint = did_you_mean(word, option_names(cl->options), "--");
    status = usage_error(cl, "unknown option '--%s'%s", word, hint);
    free(word);
    free(hint);
  }
  sb_free(&list);
  return status;
}

/* getopt_long's ':' (a missing argument) or '?' (an unknown option). */
static int bad_option(const struct command_line *cl, int opt, char **argv) {
  const char *arg = argv[optind - 1];
  int is_long = !strncmp(arg, "--", 2);
  if (opt == ':' && is_long)
    return usage_error(cl, "option '%.*s' needs an argument",
                       (int)strcspn(arg, "="), arg);
  if (opt == ':')
    return usage_error(cl, "option '-%c' needs an argument", optopt);
  if (is_long)
    return bad_long_option(cl, arg);
  return usage_error(cl, "unknown option '-%c'", optopt ? optopt : '?');
}

/* ---- Help -----------------------------------------------------------------
 */

/* Appends the help text's line [line, end) with {OPTION}s expanded. */
static void expand_line(const struct command_line *cl, const char *line,
                        const char *end, struct strbuf *out) {
  while (line < end) {
    const char *open = memchr(line, '{', (size_t)(end - line));
    const char *close = open ? memchr(open, '}', (size_t)(end - open)) : NULL;
    if (!close) {
      sb_printf(out, "%.*s", (int)(end - line), line);
      return;
    }
    char *option = xasprintf("%.*s", (int)(close - open - 1), open + 1);
    char *list = join_names(cmdline_values_of(cl, option), ", ");
    sb_printf(out, "%.*s%s", (int)(open - line), line, list);
    free(option);
    free(list);
    line = close + 1;
  }
}

/* Prints `text` (one line) wrapped at HELP_WIDTH, continuation lines
 * indented like the text's first word after its own indentation. */
static void print_wrapped(const char *text, FILE *f) {
  size_t indent = strspn(text, " ");
  const char *p = text;
  size_t column = 0;
  while (*p) {
    size_t word = strcspn(p + (*p == ' '), " ") + (*p == ' ');
    if (column > indent && column + word > HELP_WIDTH) {
      fprintf(f, "\n%*s", (int)indent, "");
      column = indent;
      p += *p == ' ';
      word -= 1;
    }
    fprintf(f, "%.*s", (int)word, p);
    column += word;
    p += word;
  }
  fputc('\n', f);
}

void cmdline_print_usage(const struct command_line *cl, FILE *f) {
  for (const char *line = cl->usage; *line;) {
    const char *end = line + strcspn(line, "\n");
    if (!memchr(line, '{', (size_t)(end - line))) {
      fprintf(f, "%.*s\n", (int)(end - line), line);
    } else {
      struct strbuf b = {0};
      expand_line(cl, line, end, &b);
      print_wrapped(b.data, f);
      sb_free(&b);
    }
    line = *end ? end + 1 : end;
  }
}

static int help(const struct command_line *cl) {
  cmdline_print_usage(cl, stdout);
  check_stdout();
  return 0;
}

int cmdline_parse(const struct command_line *cl, int argc, char **argv,
                  int (*take)(int opt, char *arg, void *ctx), void *ctx) {
  int opt;
  optind = 0; /* full reset: another command may have parsed before */
  opterr = 0; /* messages in the one grammar, below */
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
