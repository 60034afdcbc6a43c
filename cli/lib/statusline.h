/* statusline.h: one status line on a terminal's stderr, rewritten in place
 * ("\r", erase to the end of the line), as `sweep` and a deep `run` show
 * their progress; and the h:mm:ss they show durations in. */
#ifndef PISA_CLI_STATUSLINE_H
#define PISA_CLI_STATUSLINE_H

#include "util.h"

#include <stddef.h>

/* Replaces the status line with "pisa-char: " and the text (no newline). */
void statusline_show(const char *fmt, ...) PISA_PRINTF(1, 2);
/* Erases the status line. */
void statusline_clear(void);
/* "h:mm:ss" of a duration, rounded to the second. */
void statusline_duration(char *buf, size_t n, double seconds);

#endif
