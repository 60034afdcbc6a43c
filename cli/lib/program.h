/* program.h: the program that `pisa-char run` is to analyse, checked
 * before anything runs: found as execvp would find it, a regular
 * executable ELF file built with pisa-cc, for the mode asked for. Each
 * failure is one line naming the program and exit status 2. */
#ifndef PISA_CLI_PROGRAM_H
#define PISA_CLI_PROGRAM_H

/* The file execvp would run for `name` (newly allocated): itself when it
 * has a '/', else the first executable regular file of that name in PATH
 * (or /usr/local/bin:/usr/bin:/bin without PATH). */
char *program_find(const char *name);

/* The first executable regular file `name` (without '/') in PATH (newly
 * allocated), or NULL. */
char *program_search(const char *name);

/* `file`, given as `given`, is a regular executable built with pisa-cc. */
void program_check(const char *given, const char *file);

/* `file` was built for counter mode if `counter`, else for deep mode. */
void program_check_mode(const char *given, const char *file, int counter,
                        int footprint);

#endif
