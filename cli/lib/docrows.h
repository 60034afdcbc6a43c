/* docrows.h: a result document as rows of (scope, key, metric, value), one
 * per number, found by walking the JSON generically so that every family,
 * present and future, is covered: `export` writes them as a table, `diff`
 * matches them between two documents.
 *
 * Scopes: an object at the top of the document (totals, program, mpi,
 * counter) is a scope of its own with an empty key; each entry of a list
 * at the top (threads, functions, regions, ranks, intervals) is one of
 * scope "thread", "function", ... (the list's name without its "s"), keyed
 * by what identifies it: a function or region its name (with " (module)"
 * when the name is not unique), a rank its number, a thread its number
 * (RANK:THREAD in a document with ranks), a data object what names it in
 * a merge (objectmerge.h: kind, name, site, a stack's thread), any other
 * entry its position.
 * The fields that identify an entry are not rows. `config` (the analysis
 * parameters) and `tool` are no measurements and have no rows.
 *
 * Metric: the path to the number inside the entry, keys joined by ".";
 * a list of numbers by position (memory_entropy.6), a list of objects by
 * their key fields (reuse_distance.64.bins.3, miss_ratio.32768.64.ratio:
 * cache_bytes, line_bytes, window, history and block, in that order), or
 * else by position. Booleans, strings and nulls have no rows. */
#ifndef PISA_CLI_DOCROWS_H
#define PISA_CLI_DOCROWS_H

#include <json-c/json.h>
#include <stddef.h>

struct doc_row {
  const char *scope;  /* "totals", "thread", "function", ... */
  const char *key;    /* identifies the entry; "" for a top-level object */
  const char *metric; /* the path of the number in the entry */
  json_object *value; /* a number (json-c int or double) */
};

/* Calls `fn` for every row of `doc`, in document order; the row's strings
 * live until `fn` returns. */
void docrows_walk(json_object *doc,
                  void (*fn)(const struct doc_row *row, void *ctx), void *ctx);

#endif
