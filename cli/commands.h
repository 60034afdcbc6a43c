/* commands.h: the pisa-char commands, one cmd_<name>() per cli/cmd_<name>.c.
 * Each takes the arguments from the command name on (argv[0] is the name)
 * and returns the process exit status; pisa-char.c dispatches to them.
 * Each command's <name>_line is its one table of options (cmdline.h), from
 * which --help, usage errors, the man page and shell completion come. */
#ifndef PISA_CLI_COMMANDS_H
#define PISA_CLI_COMMANDS_H

#include "cmdline.h"

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_rank(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_top(int argc, char **argv);

extern const struct command_line run_line, validate_line, show_line, rank_line,
    compare_line, sweep_line, merge_sweep_line, merge_line, report_line,
    diff_line, export_line, recover_line, top_line;

#endif
