/* docset.h: a set of pisa-char/1 result documents loaded from FILES or
 * DIRs for the commands that read documents (show, rank, compare), and
 * the derived metrics that several of them use (accesses, entropy, miss
 * ratio estimated from the reuse histogram). */
#ifndef PISA_CLI_DOCSET_H
#define PISA_CLI_DOCSET_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

struct pisa_doc {
  char *path;        /* the file it came from */
  char *label;       /* file name without directory and .pisa.json/.json */
  json_object *root; /* the validated document */
};

struct pisa_docset {
  struct pisa_doc *docs; /* in argument order; a DIR's files sorted by name */
  size_t count;
};

/* Loads every FILE, and every *.json file (*.pisa.json included) directly
 * in every DIR, and validates each against the built-in pisa-char/1
 * schema. On the first problem prints one line "pisa-char: FILE: problem"
 * and returns -1 (the caller exits 2); else 0 with at least one document. */
int docset_load(struct pisa_docset *set, char *const *args, int nargs);
void docset_free(struct pisa_docset *set);

/* The value at a '/'-separated key path ("program/path"), or NULL. */
json_object *json_at(json_object *obj, const char *path);

/* 1 and the number in *out when the path leads to a number, else 0. */
int json_number_at(json_object *obj, const char *path, double *out);

/* The number at the path, or 0 when absent (for counts that every
 * METRICS object has, per the schema). */
double json_count_at(json_object *obj, const char *path);

/* Memory accesses of a METRICS object: loads + stores + atomics + memset +
 * 2 x memcpy (source and destination) + gathers + scatters, the references
 * that memory_entropy and reuse_distance count. */
double metrics_accesses(json_object *metrics);

/* H_k of memory_entropy; 1 when present, else 0. */
int metrics_entropy(json_object *metrics, int k, double *out);

/* The miss ratio of a fully associative LRU cache of cache_bytes with
 * line_bytes lines, estimated from the reuse histogram of that line size:
 * (cold + accesses with distance >= C) / all, C = cache_bytes / line_bytes
 * lines. When C is not a power of two, the bin [2^(i-1), 2^i) holding C
 * counts with the fraction (2^i - C) / 2^(i-1) of its accesses (uniform
 * within the bin) and *interpolated is set. 1 when the histogram exists
 * and has accesses, else 0. */
int metrics_miss_estimate(json_object *metrics, uint64_t cache_bytes,
                          unsigned line_bytes, double *ratio,
                          int *interpolated);

/* ---- Helpers of the commands that read documents ---- */

/* Prints "pisa-char: CMD: message" and the usage to stderr; returns 2. */
int cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The usage error for getopt_long's ':' (missing argument) or '?'. */
int cmd_bad_option(const char *cmd, const char *usage, int opt, char **argv);

/* Parses a whole decimal integer in [min, max]; 0 if so, else -1. */
int parse_long(const char *s, long min, long max, long *out);

/* Writes a count with thousands separators ("2,488,363"). */
const char *format_count(char *buf, size_t n, double count);

/* Writes a byte size with a binary unit ("1.5 MiB", "512 B"). */
const char *format_bytes(char *buf, size_t n, double bytes);

#endif
