/* docdiff.h: two result documents compared number by number: the rows of
 * docrows.h matched by scope, key and metric (so functions by name,
 * threads by number), each with its absolute and relative change, sorted
 * by the size of the relative change, as `perf diff` and `benchstat`
 * compare two runs. */
#ifndef PISA_CLI_DOCDIFF_H
#define PISA_CLI_DOCDIFF_H

#include <json-c/json.h>
#include <stddef.h>

struct metric_change {
  char *scope, *key, *metric;
  double a, b;
  double absolute; /* b - a */
  double relative; /* (b - a) / |a|; +-INFINITY when a is 0 and b is not;
                      0 when both are 0 */
  size_t order;    /* its place among the rows of A */
};

/* An entry (scope and key) whose metrics only one document has: a
 * function that ran in one run only, or families computed in one only. */
struct unmatched {
  char *scope, *key;
  size_t metrics; /* how many */
  int in_b;       /* 0: only in A, 1: only in B */
};

struct doc_diff {
  struct metric_change *changes; /* by |relative| descending, then in
                                    A's order */
  size_t nchanges;
  struct unmatched *unmatched; /* in A's order, then B's */
  size_t nunmatched;
};

/* The scopes compared: totals, thread, function, region, rank and object
 * (data objects, matched as a merge matches them). */
int docdiff_compares(const char *scope);

/* Compares documents a and b (of one mode). */
void docdiff_compute(json_object *a, json_object *b, struct doc_diff *out);

void docdiff_free(struct doc_diff *d);

#endif
