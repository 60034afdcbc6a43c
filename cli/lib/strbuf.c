/* strbuf.c: a growing NUL-terminated text buffer. */
#include "strbuf.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sb_reserve(struct strbuf *b, size_t more) {
  if (b->len + more + 1 <= b->cap)
    return;
  while (b->len + more + 1 > b->cap)
    b->cap = b->cap ? 2 * b->cap : 4096;
  b->data = xrealloc(b->data, b->cap);
}

void sb_printf(struct strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  sb_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void sb_puts(struct strbuf *b, const char *s) {
  size_t n = strlen(s);
  sb_reserve(b, n);
  memcpy(b->data + b->len, s, n + 1);
  b->len += n;
}

void sb_escaped(struct strbuf *b, const char *s) {
  for (; *s; s++) {
    const char *entity = *s == '&'    ? "&amp;"
                         : *s == '<'  ? "&lt;"
                         : *s == '>'  ? "&gt;"
                         : *s == '"'  ? "&quot;"
                         : *s == '\'' ? "&#39;"
                                      : NULL;
    if (entity) {
      sb_puts(b, entity);
    } else {
      sb_reserve(b, 1);
      b->data[b->len++] = *s;
      b->data[b->len] = '\0';
    }
  }
}

void sb_free(struct strbuf *b) {
  free(b->data);
  *b = (struct strbuf){0};
}
