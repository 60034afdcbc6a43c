/* strvec.c: growable NULL-terminated lists of strings. */
#include "strvec.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void strvec_push(struct strvec *sv, const char *s) {
  if (sv->n + 2 > sv->cap) {
    sv->cap = sv->cap ? 2 * sv->cap : 8;
    sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
  }
  sv->v[sv->n++] = xstrdup(s);
  sv->v[sv->n] = NULL;
}

void strvec_append(struct strvec *sv, const struct strvec *more) {
  for (size_t i = 0; i < more->n; i++)
    strvec_push(sv, more->v[i]);
}

void strvec_free(struct strvec *sv) {
  for (size_t i = 0; i < sv->n; i++)
    free(sv->v[i]);
  free(sv->v);
  memset(sv, 0, sizeof *sv);
}
