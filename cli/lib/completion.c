/* completion.c: the bash completion script, written from the tables: per
 * command its options, the options that take a value, and the values of
 * the options that list them. */
#include "completion.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The command's option words: --long for each long option, -c for each
 * short one; with `valued`, only those that take an argument. */
static void put_options(FILE *f, const struct command_line *cl, int valued,
                        const char *sep) {
  const char *s = cl->short_options;
  int first = 1;
  for (const struct option *o = cl->options; o->name; o++)
    if (!valued || o->has_arg == required_argument) {
      fprintf(f, "%s--%s", first ? "" : sep, o->name);
      first = 0;
    }
  for (; *s; s++)
    if (*s != ':' && *s != '+' && (!valued || s[1] == ':')) {
      fprintf(f, "%s-%c", first ? "" : sep, *s);
      first = 0;
    }
}

static void put_case_of_options(FILE *f,
                                const struct completed_command *commands,
                                size_t n) {
  for (size_t i = 0; i < n; i++)
    if (commands[i].line) {
      fprintf(f, "  %s) echo '", commands[i].name);
      put_options(f, commands[i].line, 0, " ");
      fputs("' ;;\n", f);
    }
}

/* "CMD:--opt|CMD:-o) return 0 ;;" for the options that take a value. */
static void put_case_of_valued(FILE *f,
                               const struct completed_command *commands,
                               size_t n) {
  for (size_t i = 0; i < n; i++) {
    const struct command_line *cl = commands[i].line;
    if (!cl)
      continue;
    char *sep = xasprintf("|%s:", commands[i].name);
    char *list = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&list, &len);
    put_options(m, cl, 1, sep);
    fclose(m);
    if (len)
      fprintf(f, "  %s:%s) return 0 ;;\n", commands[i].name, list);
    free(list);
    free(sep);
  }
}

static void put_values(FILE *f, const struct completed_command *commands,
                       size_t n) {
  for (size_t i = 0; i < n; i++) {
    const struct command_line *cl = commands[i].line;
    for (const struct cmdline_values *v = cl ? cl->values : NULL;
         v && v->option; v++) {
      fprintf(f, "  %s:--%s) echo '", commands[i].name, v->option);
      for (size_t k = 0; k < v->names->count; k++)
        if (name_at(*v->names, k))
          fprintf(f, "%s%s", k ? " " : "", name_at(*v->names, k));
      fputs("' ;;\n", f);
    }
  }
}

/* The shell function's body: which command, then what the word is. */
static const char Completer[] =
    "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "  local cmd=@DEFAULT@ i=1 opt word values\n"
    "  case ${COMP_WORDS[1]} in\n"
    "  @COMMANDS@) ((COMP_CWORD > 1)) && cmd=${COMP_WORDS[1]} i=2 ;;\n"
    "  esac\n"
    "  # After the program that @DEFAULT@ runs, every word is the program's.\n"
    "  while [[ $cmd == @DEFAULT@ ]] && ((i < COMP_CWORD)); do\n"
    "    word=${COMP_WORDS[i]}\n"
    "    if [[ ${COMP_WORDS[i+1]} == = ]]; then\n"
    "      ((i += 3)) # --opt=value\n"
    "    elif _@FN@_valued \"$cmd\" \"$word\"; then\n"
    "      ((i += 2))\n"
    "    elif [[ $word == -- || $word != -* ]]; then\n"
    "      COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "      return\n"
    "    else\n"
    "      ((i++))\n"
    "    fi\n"
    "  done\n"
    "  # The value of --opt VALUE, --opt=VALUE or -o VALUE.\n"
    "  opt=$prev\n"
    "  [[ $prev == = ]] && opt=${COMP_WORDS[COMP_CWORD-2]}\n"
    "  [[ $cur == = ]] && opt=$prev cur=\n"
    "  if _@FN@_valued \"$cmd\" \"$opt\"; then\n"
    "    values=$(_@FN@_values \"$cmd\" \"$opt\")\n"
    "    if [[ -n $values ]]; then\n"
    "      local last=${cur##*,}\n"
    "      COMPREPLY=($(compgen -P \"${cur%\"$last\"}\" -W \"$values\" -- "
    "\"$last\"))\n"
    "    else\n"
    "      COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "    fi\n"
    "  elif [[ $cur == -* ]]; then\n"
    "    COMPREPLY=($(compgen -W \"$(_@FN@_options \"$cmd\")\" -- \"$cur\"))\n"
    "  elif ((COMP_CWORD == 1)); then\n"
    "    COMPREPLY=($(compgen -W '@NAMES@' -- \"$cur\") $(compgen -f -- "
    "\"$cur\"))\n"
    "  else\n"
    "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "  fi\n";

/* Writes `text` with each @KEY@ of keys[] (pairs of key and value)
 * replaced by its value. */
static void put_template(FILE *f, const char *text, const char *const *keys,
                         size_t nkeys) {
  for (const char *at; (at = strchr(text, '@'));) {
    size_t k = 0;
    while (k < nkeys && !(!strncmp(at + 1, keys[k], strlen(keys[k])) &&
                          at[1 + strlen(keys[k])] == '@'))
      k += 2;
    fprintf(f, "%.*s%s", (int)(at - text), text, k < nkeys ? keys[k + 1] : "@");
    text = k < nkeys ? at + strlen(keys[k]) + 2 : at + 1;
  }
  fputs(text, f);
}

static char *joined_names(const struct completed_command *commands, size_t n,
                          const char *sep) {
  struct strbuf b = {0};
  for (size_t i = 0; i < n; i++)
    sb_printf(&b, "%s%s", i ? sep : "", commands[i].name);
  return b.data;
}

void completion_write_bash(FILE *f, const char *tool,
                           const struct completed_command *commands, size_t n,
                           const char *default_command) {
  char fn[64];
  snprintf(fn, sizeof fn, "%s", tool);
  for (char *p = fn; *p; p++)
    if (*p == '-')
      *p = '_';
  fprintf(f,
          "# bash completion for %s, written by '%s help --completion' from\n"
          "# the tables of its commands and options.\n\n",
          tool, tool);
  fprintf(f, "_%s_options() {\n  case $1 in\n", fn);
  put_case_of_options(f, commands, n);
  fprintf(f, "  esac\n}\n\n_%s_valued() {\n  case $1:$2 in\n", fn);
  put_case_of_valued(f, commands, n);
  fprintf(f, "  esac\n  return 1\n}\n\n_%s_values() {\n  case $1:$2 in\n", fn);
  put_values(f, commands, n);
  fprintf(f, "  esac\n}\n\n_%s() {\n", fn);
  char *bars = joined_names(commands, n, "|"),
       *names = joined_names(commands, n, " ");
  const char *keys[] = {"DEFAULT", default_command, "COMMANDS", bars, "FN",
                        fn,        "NAMES",         names};
  put_template(f, Completer, keys, sizeof keys / sizeof *keys);
  free(bars);
  free(names);
  fprintf(f, "}\n\ncomplete -o filenames -F _%s %s\n", fn, tool);
}
