/* util.c: error reporting, allocation, the stdout check and where the
 * running tool is installed, for pisa-char and pisa-cc. */
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pisa_progname = "pisa-char";

static void vreport(const char *prefix, const char *fmt, va_list ap) {
  fprintf(stderr, "%s: %s", pisa_progname, prefix);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("", fmt, ap);
  va_end(ap);
}

void warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning: ", fmt, ap);
  va_end(ap);
}

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("", fmt, ap);
  va_end(ap);
  exit(2);
}

void die_status(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("", fmt, ap);
  va_end(ap);
  exit(status);
}

static void *check_alloc(void *p) {
  if (!p)
    die_status(1, "out of memory");
  return p;
}

void *xmalloc(size_t n) { return check_alloc(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) {
  return check_alloc(calloc(n ? n : 1, size ? size : 1));
}
void *xrealloc(void *p, size_t n) { return check_alloc(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check_alloc(strdup(s)); }

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  char *s = NULL;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0)
    die_status(1, "out of memory");
  return s;
}

/* The directory holding the running executable, or NULL (errno set). */
static const char *executable_dir(void) {
  static char dir[PATH_MAX];
  if (dir[0])
    return dir;
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n <= 0)
    return NULL;
  dir[n] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  return dir;
}

const char *self_dir(void) {
  const char *dir = executable_dir();
  if (!dir)
    die_status(1, "cannot locate own executable: %s", strerror(errno));
  return dir;
}

const char *install_prefix(void) {
  static char prefix[PATH_MAX];
  const char *dir = executable_dir();
  const char *slash = dir ? strrchr(dir, '/') : NULL;
  if (!slash) {
    errno = dir ? ENOENT : errno;
    return NULL;
  }
  snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - dir), dir);
  return prefix;
}

void check_stdout(void) {
  if (fflush(stdout) != 0 || ferror(stdout))
    die_status(1, "error writing standard output: %s", strerror(errno));
}
