/* pisa-char.c: the pisa-char command. Dispatches its first argument to one
 * cmd_<name>() per command (git style); a first argument that is not a
 * command name is the program to run:
 * `pisa-char ./app` means `pisa-char run ./app`.
 *
 * To add a command NAME:
 *   1. write cli/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)`, its
 *      only external function (argv[0] is "NAME"), and its options in one
 *      `const struct command_line NAME_line` parsed with cmdline_parse()
 *      (lib/cmdline.h, which prints the usage on --help and reports usage
 *      errors in the one grammar, exit status 2); return the exit status.
 *      Code another command could use goes into cli/lib/, never into a
 *      command (tests/tools/check_deps.sh);
 *   2. declare both in cli/commands.h and add the file to
 *      pisa_cli_commands in cli/CMakeLists.txt;
 *   3. add a row to Commands[] below (the order is the order of --help).
 * The man page and the bash completion follow from the table. */
#include "commands.h"
#include "completion.h"
#include "manpage.h"
#include "program.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum command_flag {
  CMD_DEFAULT = 1u << 0,       /* runs when the first argument is no command */
  CMD_WRITES_STDOUT = 1u << 1, /* a failed write to stdout is an error */
};

struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const struct command_line *line;
  unsigned flags;
  const char *summary;
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);
static const struct command_line help_line, version_line;

static const struct command Commands[] = {
    {"run", cmd_run, &run_line, CMD_DEFAULT,
     "run a program built with pisa-cc and characterize it"},
    {"validate", cmd_validate, &validate_line, CMD_WRITES_STDOUT,
     "check documents against the pisa-char schemas"},
    {"show", cmd_show, &show_line, CMD_WRITES_STDOUT,
     "summarize one result document in the terminal"},
    {"rank", cmd_rank, &rank_line, CMD_WRITES_STDOUT,
     "rank applications or functions as near-memory offload candidates"},
    {"compare", cmd_compare, &compare_line, CMD_WRITES_STDOUT,
     "group similar applications: principal components and clusters"},
    {"diff", cmd_diff, &diff_line, CMD_WRITES_STDOUT,
     "compare two runs metric by metric, largest changes first"},
    {"report", cmd_report, &report_line, 0,
     "write an HTML report with plots, the ranking and the similarity"},
    {"export", cmd_export, &export_line, CMD_WRITES_STDOUT,
     "write the documents' numbers as one long CSV or TSV table"},
    {"sweep", cmd_sweep, &sweep_line, CMD_WRITES_STDOUT,
     "build and characterize every benchmark of a suite"},
    {"merge-sweep", cmd_merge_sweep, &merge_sweep_line, CMD_WRITES_STDOUT,
     "join the summaries of the slices of a sweep"},
    {"merge", cmd_merge, &merge_line, 0,
     "merge the results of the ranks of an MPI job into one document"},
    {"recover", cmd_recover, &recover_line, 0,
     "write the documents of a run that found no room to write them"},
    {"top", cmd_top, &top_line, CMD_WRITES_STDOUT,
     "watch running counter-mode programs: rates, top functions, regions"},
    {"help", cmd_help, &help_line, CMD_WRITES_STDOUT,
     "show the help of pisa-char or of a command"},
    {"version", cmd_version, &version_line, CMD_WRITES_STDOUT,
     "print the version"},
};

#define NUM_COMMANDS (sizeof Commands / sizeof *Commands)

static const char Summary[] = "platform-independent workload "
                              "characterization of programs built with "
                              "pisa-cc";

/* pisa-char's own usage errors: "pisa-char: ...", "Try 'pisa-char --help'." */
static const struct command_line pisa_char_line = {.name = NULL};

static void usage(FILE *f) {
  fputs(
      "usage: pisa-char [options] [--] PROGRAM [ARGS...]\n"
      "       pisa-char COMMAND [ARGS...]\n"
      "\n"
      "Platform-independent workload characterization of programs built with\n"
      "pisa-cc. The first form runs PROGRAM (see 'pisa-char run --help').\n"
      "\n"
      "Commands:\n",
      f);
  for (size_t i = 0; i < NUM_COMMANDS; i++)
    fprintf(f, "  %-12s %s%s\n", Commands[i].name, Commands[i].summary,
            Commands[i].flags & CMD_DEFAULT ? " (the default)" : "");
  fputs("\n"
        "Options:\n"
        "  -h, --help     show this help\n"
        "      --version  print the version\n"
        "\n"
        "'pisa-char COMMAND --help' shows the options of a command. Run a\n"
        "program named like a command as 'pisa-char run NAME' or\n"
        "'pisa-char ./NAME'.\n",
        f);
}

static const struct command *find_command(const char *name) {
  for (size_t i = 0; i < NUM_COMMANDS; i++)
    if (strcmp(Commands[i].name, name) == 0)
      return &Commands[i];
  return NULL;
}

static const struct command *default_command(void) {
  for (size_t i = 0; i < NUM_COMMANDS; i++)
    if (Commands[i].flags & CMD_DEFAULT)
      return &Commands[i];
  return NULL;
}

static int run_command(const struct command *cmd, int argc, char **argv) {
  int status = cmd->fn(argc, argv);
  if (cmd->flags & CMD_WRITES_STDOUT)
    check_stdout();
  return status;
}

/* ---- help: the help texts, the man page and the completion ------------- */

static const char help_usage[] =
    "usage: pisa-char help [COMMAND | --man | --completion]\n"
    "\n"
    "Shows the help of pisa-char, or the options of COMMAND.\n"
    "\n"
    "  --man         print the manual page pisa-char(1), made of the help\n"
    "                of pisa-char and of every command\n"
    "  --completion  print the bash completion of pisa-char's commands,\n"
    "                options and their values\n"
    "  -h, --help    show this help\n";

enum { HELP_MAN = 256, HELP_COMPLETION };

static const struct option HelpOptions[] = {
    {"man", no_argument, NULL, HELP_MAN},
    {"completion", no_argument, NULL, HELP_COMPLETION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct command_line help_line = {
    .name = "help",
    .usage = help_usage,
    .short_options = ":h",
    .options = HelpOptions,
};

/* The command's help text, as `pisa-char CMD --help` prints it. */
static char *help_of(const struct command *cmd) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    die_status(1, "out of memory");
  if (cmd->line)
    cmdline_print_usage(cmd->line, f);
  else
    usage(f);
  fclose(f);
  return text;
}

/* pisa-char(1): the main help, then a subsection per command. */
static void write_man_page(void) {
  man_begin(stdout, "pisa-char", PISA_VERSION, Summary);
  man_section(stdout, "SYNOPSIS", 0);
  char *text = help_of(&(struct command){.line = NULL});
  man_help_text(stdout, text);
  free(text);
  man_section(stdout, "COMMANDS", 0);
  for (size_t i = 0; i < NUM_COMMANDS; i++) {
    man_section(stdout, Commands[i].name, 1);
    text = help_of(&Commands[i]);
    man_help_text(stdout, text);
    free(text);
  }
  man_section(stdout, "SEE ALSO", 0);
  fputs("pisa\\-cc(1); the documentation in share/doc/pisa\\-char.\n", stdout);
}

static void write_completion(void) {
  struct completed_command list[NUM_COMMANDS];
  for (size_t i = 0; i < NUM_COMMANDS; i++)
    list[i] = (struct completed_command){Commands[i].name, Commands[i].line};
  completion_write_bash(stdout, "pisa-char", list, NUM_COMMANDS,
                        default_command()->name);
}

static int take_help_option(int opt, char *arg, void *ctx) {
  (void)arg;
  *(int *)ctx = opt;
  return 0;
}

/* "no command 'X'", with the closest command. */
static int no_command(const struct command_line *cl, const char *name) {
  const char *close = suggest_name(
      name, (struct name_table){Commands, NUM_COMMANDS, sizeof *Commands});
  return usage_error(cl, "no command '%s'%s%s%s", name,
                     close ? "; did you mean '" : "", close ? close : "",
                     close ? "'?" : "");
}

static int cmd_help(int argc, char **argv) {
  int what = 0;
  int status = cmdline_parse(&help_line, argc, argv, take_help_option, &what);
  if (status != CMDLINE_PARSED)
    return status;
  if (what && optind < argc)
    return usage_error(&help_line, "--man and --completion take no COMMAND");
  if (what == HELP_MAN)
    write_man_page();
  else if (what == HELP_COMPLETION)
    write_completion();
  else if (optind == argc)
    usage(stdout);
  else if (argc - optind > 1)
    return usage_error(&help_line, "expected one COMMAND");
  else if (!find_command(argv[optind]))
    return no_command(&help_line, argv[optind]);
  else
    cmdline_print_usage(find_command(argv[optind])->line, stdout);
  return 0;
}

static const struct option VersionOptions[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct command_line version_line = {
    .name = "version",
    .usage = "usage: pisa-char version\n\n"
             "Prints the version of pisa-char and of its LLVM.\n",
    .short_options = ":h",
    .options = VersionOptions,
};

static int cmd_version(int argc, char **argv) {
  int status = cmdline_parse(&version_line, argc, argv, NULL, NULL);
  if (status != CMDLINE_PARSED)
    return status;
  if (optind < argc)
    return usage_error(&version_line, "takes no arguments");
  printf("pisa-char %s (LLVM %s)\n", PISA_VERSION, PISA_LLVM_VERSION);
  return 0;
}

/* A first word that is neither a command nor a program in PATH but close
 * to a command's name is a mistyped command. */
static int mistyped_command(const char *first) {
  if (first[0] == '-' || strchr(first, '/'))
    return 0;
  const char *close = suggest_name(
      first, (struct name_table){Commands, NUM_COMMANDS, sizeof *Commands});
  char *program = close ? program_search(first) : NULL;
  free(program);
  if (!close || program)
    return 0;
  usage_error(&pisa_char_line,
              "'%s' is neither a command nor a program in PATH; did you mean "
              "'%s'?",
              first, close);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage_error(&pisa_char_line, "no command or program given");
  const char *first = argv[1];
  if (!strcmp(first, "--help") || !strcmp(first, "-h"))
    first = "help";
  else if (strcmp(first, "--version") == 0)
    first = "version";
  const struct command *cmd = find_command(first);
  if (cmd) {
    argv[1] = (char *)cmd->name;
    return run_command(cmd, argc - 1, argv + 1);
  }
  if (mistyped_command(first))
    return 2;
  /* The default command parses pisa-char's own argv: its options, then
   * the program. */
  return run_command(default_command(), argc, argv);
}
