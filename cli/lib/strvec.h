/* strvec.h: a growable NULL-terminated list of strings, as argv and envp
 * are: command lines and environments of child processes, and the lists
 * of a suite manifest. */
#ifndef PISA_CLI_STRVEC_H
#define PISA_CLI_STRVEC_H

#include <stddef.h>

struct strvec {
  char **v; /* NULL-terminated once something is pushed */
  size_t n, cap;
};

/* Appends a copy of s. */
void strvec_push(struct strvec *sv, const char *s);
void strvec_append(struct strvec *sv, const struct strvec *more);
void strvec_free(struct strvec *sv);

#endif
