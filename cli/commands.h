/* commands.h: the pisa-char commands, one cmd_<name>() per cli/cmd_<name>.c.
 * Each takes the arguments from the command name on (argv[0] is the name)
 * and returns the process exit status; pisa-char.c dispatches to them. */
#ifndef PISA_CLI_COMMANDS_H
#define PISA_CLI_COMMANDS_H

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

#endif
