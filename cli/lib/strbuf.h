/* strbuf.h: a growing text buffer, for the HTML and SVG of the report and
 * the CSV of a sweep summary. */
#ifndef PISA_CLI_STRBUF_H
#define PISA_CLI_STRBUF_H

#include "util.h"

#include <stddef.h>

struct strbuf {
  char *data; /* NUL-terminated; NULL until something is written */
  size_t len, cap;
};

void sb_printf(struct strbuf *b, const char *fmt, ...) PISA_PRINTF(2, 3);
void sb_puts(struct strbuf *b, const char *s);
/* Appends s with &, <, >, " and ' escaped for XML and HTML. */
void sb_escaped(struct strbuf *b, const char *s);
void sb_free(struct strbuf *b);

#endif
