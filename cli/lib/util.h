/* util.h: error reporting, allocation and small helpers shared by the
 * pisa-char commands and pisa-cc. Messages go to stderr as "pisa-char: ..."
 * (pisa_progname); die() exits 2 (bad usage or input) unless the caller
 * picks another status with die_status(). */
#ifndef PISA_CLI_UTIL_H
#define PISA_CLI_UTIL_H

#include <stddef.h>
#include <stdio.h>

#define PISA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

extern const char *pisa_progname; /* "pisa-char" unless a tool sets it */

void error(const char *fmt, ...) PISA_PRINTF(1, 2);
void warning(const char *fmt, ...) PISA_PRINTF(1, 2);
_Noreturn void die(const char *fmt, ...) PISA_PRINTF(1, 2);
_Noreturn void die_status(int status, const char *fmt, ...) PISA_PRINTF(2, 3);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) PISA_PRINTF(1, 2);

/* The directory holding the running executable (resolved
 * /proc/self/exe, so links to it work); exits 1 if it cannot be found. */
const char *self_dir(void);

/* Where the tools are installed: the parent of self_dir() ("/usr" for
 * /usr/bin/pisa-cc), or NULL (errno set) if it cannot be found. */
const char *install_prefix(void);

/* Flushes stdout and dies with status 1 if writing it failed. */
void check_stdout(void);

#endif
