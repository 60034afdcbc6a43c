/* util.h: error reporting and small helpers shared by the pisa-char commands.
 * Messages go to stderr as "pisa-char: ..."; die() exits 2 (bad usage or
 * input) unless the caller picks another status with die_status(). */
#ifndef PISA_CLI_UTIL_H
#define PISA_CLI_UTIL_H

#include <stddef.h>
#include <stdio.h>

#define PISA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

extern const char *pisa_progname; /* "pisa-char" unless a tool sets it */

void error(const char *fmt, ...) PISA_PRINTF(1, 2);
void warning(const char *fmt, ...) PISA_PRINTF(1, 2);
_Noreturn void die(const char *fmt, ...) PISA_PRINTF(1, 2);
/* A usage error: "pisa-char: " fmt (with one string argument), a blank
 * line, the command's usage on stderr, and exit 2. */
_Noreturn void usage_error(void (*usage)(FILE *), const char *fmt,
                           const char *arg);
_Noreturn void die_status(int status, const char *fmt, ...) PISA_PRINTF(2, 3);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) PISA_PRINTF(1, 2);

/* Directory holding the running executable (resolved /proc/self/exe). */
const char *self_dir(void);

/* Flushes stdout and dies with status 1 if writing it failed. */
void check_stdout(void);

#endif
