/* suggest.c: edit distances for "did you mean", and the lists of valid
 * names of messages and help texts. */
#include "suggest.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Lowrance and Wagner's algorithm: the table of distances between
 * prefixes, with a border row and column of "infinity" (n + m), and per
 * character the last row of a it was seen in, for transpositions of
 * characters with edits between them. */
size_t edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b), inf = n + m, w = m + 2;
  size_t *d = xcalloc((n + 2) * w, sizeof *d), last_row[256] = {0};
#define D(i, j) d[(i) * w + (j)]
  D(0, 0) = inf;
  for (size_t i = 0; i <= n; i++)
    D(i + 1, 0) = inf, D(i + 1, 1) = i;
  for (size_t j = 0; j <= m; j++)
    D(0, j + 1) = inf, D(1, j + 1) = j;
  for (size_t i = 1; i <= n; i++) {
    size_t last_col = 0; /* of a match of a[i - 1] in this row */
    for (size_t j = 1; j <= m; j++) {
      size_t i1 = last_row[(unsigned char)b[j - 1]], j1 = last_col;
      size_t cost = a[i - 1] != b[j - 1];
      if (!cost)
        last_col = j;
      size_t best = D(i, j) + cost;
      if (D(i + 1, j) + 1 < best)
        best = D(i + 1, j) + 1;
      if (D(i, j + 1) + 1 < best)
        best = D(i, j + 1) + 1;
      size_t swap = D(i1, j1) + (i - i1 - 1) + 1 + (j - j1 - 1);
      D(i + 1, j + 1) = swap < best ? swap : best;
    }
    last_row[(unsigned char)a[i - 1]] = i;
  }
  size_t distance = D(n + 1, m + 1);
#undef D
  free(d);
  return distance;
}

const char *name_at(struct name_table t, size_t i) {
  return *(const char *const *)((const char *)t.base + i * t.stride);
}

const char *suggest_name(const char *word, struct name_table t) {
  size_t limit = strlen(word) <= 4 ? 1 : 2, best_d = limit + 1;
  const char *best = NULL;
  for (size_t i = 0; i < t.count; i++) {
    const char *name = name_at(t, i);
    if (!name)
      continue;
    size_t d = edit_distance(word, name);
    if (d < best_d && d > 0) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

char *join_names(struct name_table t, const char *last) {
  struct strbuf b = {0};
  size_t total = 0, seen = 0;
  for (size_t i = 0; i < t.count; i++)
    total += name_at(t, i) != NULL;
  for (size_t i = 0; i < t.count; i++) {
    const char *name = name_at(t, i);
    if (!name)
      continue;
    seen++;
    sb_printf(&b, "%s%s", name,
              seen == total       ? ""
              : seen + 1 == total ? last
                                  : ", ");
  }
  return b.data ? b.data : xstrdup("");
}
