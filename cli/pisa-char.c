/* pisa-char.c: the pisa-char command. Dispatches its first argument to one
 * cmd_<name>() per command (git style); a first argument that is not a
 * command name is the program to run:
 * `pisa-char ./app` means `pisa-char run ./app`.
 *
 * To add a command NAME:
 *   1. write cli/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)`, its
 *      only external function (argv[0] is "NAME"): its options in one
 *      struct command_line parsed with cmdline_parse() (lib/cmdline.h,
 *      which prints the usage on --help and reports usage errors with exit
 *      status 2); return the exit status. Code another command could use
 *      goes into cli/lib/, never into a command (tests/tools/check_deps.sh);
 *   2. declare it in cli/commands.h and add the file to pisa_cli_commands
 *      in cli/CMakeLists.txt;
 *   3. add a row to Commands[] below (the order is the order of --help). */
#include "commands.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

enum command_flag {
  CMD_DEFAULT = 1u << 0,       /* runs when the first argument is no command */
  CMD_WRITES_STDOUT = 1u << 1, /* a failed write to stdout is an error */
};

struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  unsigned flags;
  const char *summary;
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command Commands[] = {
    {"run", cmd_run, CMD_DEFAULT,
     "run a program built with pisa-cc and characterize it"},
    {"validate", cmd_validate, CMD_WRITES_STDOUT,
     "check documents against the pisa-char schemas"},
    {"show", cmd_show, CMD_WRITES_STDOUT,
     "summarize one result document in the terminal"},
    {"rank", cmd_rank, CMD_WRITES_STDOUT,
     "rank applications or functions as near-memory offload candidates"},
    {"compare", cmd_compare, CMD_WRITES_STDOUT,
     "group similar applications: principal components and clusters"},
    {"report", cmd_report, 0,
     "write an HTML report with plots, the ranking and the similarity"},
    {"sweep", cmd_sweep, CMD_WRITES_STDOUT,
     "build and characterize every benchmark of a suite"},
    {"merge-sweep", cmd_merge_sweep, CMD_WRITES_STDOUT,
     "join the summaries of the slices of a sweep"},
    {"merge", cmd_merge, 0,
     "merge the results of the ranks of an MPI job into one document"},
    {"recover", cmd_recover, 0,
     "write the documents of a run that found no room to write them"},
    {"help", cmd_help, CMD_WRITES_STDOUT,
     "show the help of pisa-char or of a command"},
    {"version", cmd_version, CMD_WRITES_STDOUT, "print the version"},
};

#define NUM_COMMANDS (sizeof Commands / sizeof *Commands)

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

static int is_help_option(const char *arg) {
  return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int run_command(const struct command *cmd, int argc, char **argv) {
  int status = cmd->fn(argc, argv);
  if (cmd->flags & CMD_WRITES_STDOUT)
    check_stdout();
  return status;
}

static int cmd_help(int argc, char **argv) {
  if (argc == 1) {
    usage(stdout);
    return 0;
  }
  if (argc == 2 && is_help_option(argv[1])) {
    puts("usage: pisa-char help [COMMAND]\n\n"
         "Shows the help of pisa-char, or the options of COMMAND.");
    return 0;
  }
  const struct command *cmd = argc == 2 ? find_command(argv[1]) : NULL;
  if (!cmd) {
    if (argc == 2)
      error("no command '%s'", argv[1]);
    fputs("usage: pisa-char help [COMMAND]\n", stderr);
    return 2;
  }
  char help[] = "--help";
  char *sub_argv[] = {argv[1], help, NULL};
  return run_command(cmd, 2, sub_argv);
}

static int cmd_version(int argc, char **argv) {
  if (argc == 2 && is_help_option(argv[1])) {
    puts("usage: pisa-char version\n\n"
         "Prints the version of pisa-char and of its LLVM.");
    return 0;
  }
  if (argc > 1) {
    fputs("usage: pisa-char version\n", stderr);
    return 2;
  }
  printf("pisa-char %s (LLVM %s)\n", PISA_VERSION, PISA_LLVM_VERSION);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *first = argv[1];
  if (is_help_option(first))
    first = "help";
  else if (strcmp(first, "--version") == 0)
    first = "version";
  const struct command *cmd = find_command(first);
  if (cmd) {
    argv[1] = (char *)cmd->name;
    return run_command(cmd, argc - 1, argv + 1);
  }
  /* The default command parses pisa-char's own argv: its options, then
   * the program. */
  return run_command(default_command(), argc, argv);
}
