/* statusline.c: the status line on stderr (statusline.h). */
#include "statusline.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

void statusline_show(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "\r\033[K%s: ", pisa_progname);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
}

void statusline_clear(void) {
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

void statusline_duration(char *buf, size_t n, double seconds) {
  long s = (long)(seconds + 0.5);
  snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}
