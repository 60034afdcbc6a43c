/* completion.h: the bash completion of pisa-char, generated from the
 * command table and each command's table of options and valid values
 * (cmdline.h), so that it completes exactly what the commands accept. */
#ifndef PISA_CLI_COMPLETION_H
#define PISA_CLI_COMPLETION_H

#include "cmdline.h"

#include <stdio.h>

struct completed_command {
  const char *name;
  const struct command_line *line; /* NULL: no options but --help */
};

/* Writes a bash script that completes `tool`: command names (or a program,
 * for `default_command`, after whose name every word is the program's),
 * each command's options, and the valid values of options that have them
 * (the last item of a comma-separated list too); files elsewhere. */
void completion_write_bash(FILE *f, const char *tool,
                           const struct completed_command *commands, size_t n,
                           const char *default_command);

#endif
