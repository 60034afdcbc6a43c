/* outname.c: expanding the patterns of -o and naming ranks' documents. */
#include "outname.h"
#include "document.h"
#include "strbuf.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Appends what pattern character c stands for; -1 when it is none. */
static int expand_one(char c, const struct launcher_rank *rank,
                      struct output_name *out, struct strbuf *b) {
  char host[HOST_NAME_MAX + 1];
  const char *job;
  switch (c) {
  case 'p':
    sb_printf(b, "%ld", (long)getpid());
    out->per_process = 1;
    return 0;
  case 'h':
    if (gethostname(host, sizeof host) != 0)
      snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    sb_puts(b, host);
    out->per_process = 1;
    return 0;
  case 'r':
    sb_printf(b, "%ld", rank ? rank->rank : 0);
    out->has_rank = 1;
    return 0;
  case 'j':
    job = launcher_job_id();
    sb_puts(b, job ? job : "");
    return 0;
  case '%':
    sb_puts(b, "%");
    return 0;
  }
  return -1;
}

int output_name_expand(const char *pattern, const struct launcher_rank *rank,
                       struct output_name *out, char *err, size_t n) {
  struct strbuf b = {0};
  *out = (struct output_name){0};
  sb_puts(&b, "");
  for (const char *p = pattern; *p; p++) {
    if (*p != '%') {
      sb_printf(&b, "%c", *p);
    } else if (expand_one(p[1], rank, out, &b) == 0) {
      p++;
    } else {
      snprintf(err, n,
               "-o %s: unknown pattern '%%%.1s' (expected %%p, %%h, %%r, %%j "
               "or %%%%)",
               pattern, p + 1);
      sb_free(&b);
      return -1;
    }
  }
  out->path = b.data;
  return 0;
}

char *output_rank_name(const char *path, long rank) {
  size_t stem = pisa_document_stem(path);
  return xasprintf("%.*s.rank%ld%s", (int)stem, path, rank, path + stem);
}
