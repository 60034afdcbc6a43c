/* sweep_summary.h: the summary of a sweep (format pisa-char-sweep/1, one
 * row per finished benchmark with its status and headline metrics), shared
 * by `pisa-char sweep` and `pisa-char merge-sweep`: rows, reading, and
 * atomic writing of summary.json and summary.csv. */
#ifndef PISA_CLI_SWEEP_SUMMARY_H
#define PISA_CLI_SWEEP_SUMMARY_H

#include <json-c/json.h>
#include <stddef.h>

#define PISA_SWEEP_FORMAT "pisa-char-sweep/1"

/* How a benchmark ended; "ok" is the only success. */
#define SWEEP_OK "ok"
#define SWEEP_BUILD_FAILED "build-failed"
#define SWEEP_RUN_FAILED "run-failed"
#define SWEEP_TIMEOUT "timeout"
#define SWEEP_ANALYSIS_FAILED "analysis-failed"

/* A new summary: "format", the `identity` members (suite, manifest, size,
 * options: what must match for results to be reused or merged; shared by
 * reference), "shard" (NULL or {"index", "count"}), the names of all the
 * suite's benchmarks, and empty "benchmarks". */
json_object *sweep_summary_new(json_object *identity, json_object *shard,
                               json_object *all_names);

/* Whether two summaries have the same identity (suite, manifest, size and
 * options); on a difference names the first differing key in `what`. */
int sweep_summary_same_identity(json_object *a, json_object *b,
                                const char **what);

/* The row of a finished benchmark: name, status, exit_status (<0: null),
 * seconds, build_seconds, checksum, error, result (a path relative to the
 * summary's directory, or NULL), then the headline metrics of `doc` (NULL
 * or a result document; metrics it lacks are null). */
json_object *sweep_row_new(const char *name, const char *status,
                           int exit_status, double seconds,
                           double build_seconds, const char *checksum,
                           const char *error, const char *result,
                           json_object *doc);

/* Replaces the rows by `rows` (one per finished benchmark, in suite order,
 * NULL entries skipped; each row's reference is shared) and recomputes the
 * counts. */
void sweep_summary_set_rows(json_object *summary, json_object **rows, size_t n);

/* Reads and checks a summary file; NULL and a one-line reason in `err`. */
json_object *sweep_summary_read(const char *path, char *err, size_t n);

/* Whether a row's benchmark ended ok. */
int sweep_row_ok(json_object *row);

/* The row named `name` in a summary, or NULL. */
json_object *sweep_summary_row(json_object *summary, const char *name);

/* Writes BASE.json and BASE.csv with the atomic writer, replacing older
 * ones; 0, or -1 and `err`. */
int sweep_summary_write(json_object *summary, const char *base, char *err,
                        size_t n);

#endif
