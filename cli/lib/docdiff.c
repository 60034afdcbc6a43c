/* docdiff.c: matching the rows of two documents (a sorted list of A's rows
 * searched for each of B's) and ordering the changes. */
#include "docdiff.h"
#include "docrows.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const Compared[] = {"totals", "thread", "function",
                                       "region", "rank",   "object"};

int docdiff_compares(const char *scope) {
  for (size_t i = 0; i < sizeof Compared / sizeof *Compared; i++)
    if (!strcmp(scope, Compared[i]))
      return 1;
  return 0;
}

/* One row of a document, with its place in the document. */
struct row {
  char *scope, *key, *metric;
  double value;
  size_t order;
  int matched;
};

struct rows {
  struct row *v;
  size_t n, cap;
};

static void collect(const struct doc_row *r, void *ctx) {
  struct rows *rows = ctx;
  if (!docdiff_compares(r->scope))
    return;
  if (rows->n == rows->cap) {
    rows->cap = rows->cap ? 2 * rows->cap : 256;
    rows->v = xrealloc(rows->v, rows->cap * sizeof *rows->v);
  }
  rows->v[rows->n] = (struct row){xstrdup(r->scope),
                                  xstrdup(r->key),
                                  xstrdup(r->metric),
                                  json_object_get_double(r->value),
                                  rows->n,
                                  0};
  rows->n++;
}

static int compare_entry(const struct row *x, const struct row *y) {
  int c = strcmp(x->scope, y->scope);
  return c ? c : strcmp(x->key, y->key);
}

static int by_name(const void *a, const void *b) {
  const struct row *x = a, *y = b;
  int c = compare_entry(x, y);
  return c ? c : strcmp(x->metric, y->metric);
}

static int by_order(const void *a, const void *b) {
  const struct row *x = a, *y = b;
  return (x->order > y->order) - (x->order < y->order);
}

static double relative_change(double a, double b) {
  if (a == b)
    return 0;
  if (a == 0)
    return b > 0 ? INFINITY : -INFINITY;
  return (b - a) / fabs(a);
}

static void add_change(struct doc_diff *d, const struct row *a,
                       const struct row *b) {
  d->changes = xrealloc(d->changes, (d->nchanges + 1) * sizeof *d->changes);
  d->changes[d->nchanges++] =
      (struct metric_change){xstrdup(a->scope),
                             xstrdup(a->key),
                             xstrdup(a->metric),
                             a->value,
                             b->value,
                             b->value - a->value,
                             relative_change(a->value, b->value),
                             a->order};
}

/* Counts the unmatched rows of `rows` (in document order) per entry. */
static void add_unmatched(struct doc_diff *d, struct rows *rows, int in_b) {
  qsort(rows->v, rows->n, sizeof *rows->v, by_order);
  struct unmatched *last = NULL;
  for (size_t i = 0; i < rows->n; i++) {
    const struct row *r = &rows->v[i];
    if (r->matched)
      continue;
    if (last && !strcmp(last->scope, r->scope) && !strcmp(last->key, r->key)) {
      last->metrics++;
      continue;
    }
    d->unmatched =
        xrealloc(d->unmatched, (d->nunmatched + 1) * sizeof *d->unmatched);
    last = &d->unmatched[d->nunmatched++];
    *last = (struct unmatched){xstrdup(r->scope), xstrdup(r->key), 1, in_b};
  }
}

/* Larger relative changes first (infinite ones first of all); equal ones
 * in A's order. */
static int by_change(const void *p, const void *q) {
  const struct metric_change *x = p, *y = q;
  double a = fabs(x->relative), b = fabs(y->relative);
  if (a != b)
    return (a < b) - (a > b);
  return (x->order > y->order) - (x->order < y->order);
}

static void free_rows(struct rows *rows) {
  for (size_t i = 0; i < rows->n; i++) {
    free(rows->v[i].scope);
    free(rows->v[i].key);
    free(rows->v[i].metric);
  }
  free(rows->v);
}

void docdiff_compute(json_object *a, json_object *b, struct doc_diff *out) {
  struct rows ra = {0}, rb = {0};
  *out = (struct doc_diff){0};
  docrows_walk(a, collect, &ra);
  docrows_walk(b, collect, &rb);
  qsort(ra.v, ra.n, sizeof *ra.v, by_name);
  /* B's match of each of A's rows, then the changes in A's order. */
  struct row **matches = xcalloc(ra.n ? ra.n : 1, sizeof *matches);
  for (size_t i = 0; i < rb.n; i++) {
    struct row *hit = bsearch(&rb.v[i], ra.v, ra.n, sizeof *ra.v, by_name);
    if (hit) {
      hit->matched = rb.v[i].matched = 1;
      matches[hit - ra.v] = &rb.v[i];
    }
  }
  size_t *order = xcalloc(ra.n ? ra.n : 1, sizeof *order);
  for (size_t i = 0; i < ra.n; i++)
    order[ra.v[i].order] = i;
  for (size_t k = 0; k < ra.n; k++)
    if (matches[order[k]])
      add_change(out, &ra.v[order[k]], matches[order[k]]);
  qsort(out->changes, out->nchanges, sizeof *out->changes, by_change);
  free(order);
  free(matches);
  add_unmatched(out, &ra, 0);
  add_unmatched(out, &rb, 1);
  free_rows(&ra);
  free_rows(&rb);
}

void docdiff_free(struct doc_diff *d) {
  for (size_t i = 0; i < d->nchanges; i++) {
    free(d->changes[i].scope);
    free(d->changes[i].key);
    free(d->changes[i].metric);
  }
  for (size_t i = 0; i < d->nunmatched; i++) {
    free(d->unmatched[i].scope);
    free(d->unmatched[i].key);
  }
  free(d->changes);
  free(d->unmatched);
}
