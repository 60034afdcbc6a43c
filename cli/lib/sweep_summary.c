/* sweep_summary.c: rows of a sweep summary (status and the headline
 * metrics of each benchmark's result document), reading a summary back for
 * resuming and merging, and writing it as JSON and CSV atomically. */
#include "sweep_summary.h"
#include "docmetrics.h"
#include "document.h"
#include "jsonpath.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns of summary.csv, in order: the keys of a row. */
static const char *const Columns[] = {
    "name",
    "status",
    "exit_status",
    "seconds",
    "build_seconds",
    "checksum",
    "error",
    "result",
    "instructions",
    "memory_accesses_per_instruction",
    "bytes_loaded",
    "bytes_stored",
    "footprint_bytes",
    "memory_entropy_0",
    "memory_entropy_6",
    "slq",
    "miss_ratio_32k",
    "miss_ratio_32m",
};
#define NUM_COLUMNS (sizeof Columns / sizeof *Columns)

static const char *const IdentityKeys[] = {"suite", "manifest", "size",
                                           "options"};
#define NUM_IDENTITY_KEYS (sizeof IdentityKeys / sizeof *IdentityKeys)

/* ---- Building ------------------------------------------------------------ */

json_object *sweep_summary_new(json_object *identity, json_object *shard,
                               json_object *all_names) {
  json_object *s = json_object_new_object();
  json_object_object_add(s, "format",
                         json_object_new_string(PISA_SWEEP_FORMAT));
  for (size_t i = 0; i < NUM_IDENTITY_KEYS; i++) {
    json_object *v = json_object_object_get(identity, IdentityKeys[i]);
    json_object_object_add(s, IdentityKeys[i], json_object_get(v));
  }
  json_object_object_add(s, "shard", json_object_get(shard));
  json_object_object_add(s, "benchmarks_in_suite", json_object_get(all_names));
  json_object_object_add(s, "counts", json_object_new_object());
  json_object_object_add(s, "benchmarks", json_object_new_array());
  return s;
}

int sweep_summary_same_identity(json_object *a, json_object *b,
                                const char **what) {
  for (size_t i = 0; i < NUM_IDENTITY_KEYS; i++)
    if (!json_object_equal(json_object_object_get(a, IdentityKeys[i]),
                           json_object_object_get(b, IdentityKeys[i]))) {
      *what = IdentityKeys[i];
      return 0;
    }
  return 1;
}

/* ---- Headline metrics ---------------------------------------------------- */

static json_object *copy_number(json_object *v) {
  if (json_object_is_type(v, json_type_int))
    return json_object_new_int64(json_object_get_int64(v));
  if (json_object_is_type(v, json_type_double))
    return json_object_new_double(json_object_get_double(v));
  return NULL;
}

/* Memory references per counted instruction, as rank counts them. */
static json_object *accesses_per_instruction(json_object *totals) {
  if (!json_at(totals, "memory_accesses") ||
      json_count_at(totals, "instructions") <= 0)
    return NULL;
  return json_object_new_double(metrics_accesses_per_instruction(totals));
}

static json_object *entropy_at(json_object *totals, size_t bits) {
  json_object *h = json_at(totals, "memory_entropy");
  if (!json_object_is_type(h, json_type_array) ||
      json_object_array_length(h) <= bits)
    return NULL;
  return copy_number(json_object_array_get_idx(h, bits));
}

static json_object *miss_ratio_at(json_object *totals, int64_t cache_bytes) {
  json_object *list = json_at(totals, "miss_ratio");
  if (!json_object_is_type(list, json_type_array))
    return NULL;
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *e = json_object_array_get_idx(list, i);
    if (json_object_get_int64(json_at(e, "cache_bytes")) == cache_bytes &&
        json_object_get_int64(json_at(e, "line_bytes")) == 64)
      return copy_number(json_at(e, "ratio"));
  }
  return NULL;
}

static void add_headline(json_object *row, json_object *doc) {
  json_object *t = doc ? json_at(doc, "totals") : NULL;
  json_object *values[] = {
      copy_number(json_at(t, "instructions")),
      accesses_per_instruction(t),
      copy_number(json_at(t, "instruction_mix/bytes_loaded")),
      copy_number(json_at(t, "instruction_mix/bytes_stored")),
      copy_number(json_at(t, "footprint/bytes")),
      entropy_at(t, 0),
      entropy_at(t, 6),
      copy_number(json_at(t, "spatial_locality/score")),
      miss_ratio_at(t, 32 * 1024),
      miss_ratio_at(t, 32 * 1024 * 1024),
  };
  size_t first = NUM_COLUMNS - sizeof values / sizeof *values;
  for (size_t i = 0; i < sizeof values / sizeof *values; i++)
    json_object_object_add(row, Columns[first + i], values[i]);
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

json_object *sweep_row_new(const char *name, const char *status,
                           int exit_status, double seconds,
                           double build_seconds, const char *checksum,
                           const char *error, const char *result,
                           json_object *doc) {
  json_object *row = json_object_new_object();
  json_object_object_add(row, "name", json_object_new_string(name));
  json_object_object_add(row, "status", json_object_new_string(status));
  json_object_object_add(row, "exit_status",
                         exit_status < 0 ? NULL
                                         : json_object_new_int(exit_status));
  json_object_object_add(row, "seconds", json_object_new_double(seconds));
  json_object_object_add(row, "build_seconds",
                         json_object_new_double(build_seconds));
  json_object_object_add(row, "checksum", string_or_null(checksum));
  json_object_object_add(row, "error", string_or_null(error));
  json_object_object_add(row, "result", string_or_null(result));
  add_headline(row, doc);
  return row;
}

void sweep_summary_set_rows(json_object *summary, json_object **rows,
                            size_t n) {
  json_object *list = json_object_new_array();
  int ok = 0, failed = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rows[i])
      continue;
    json_object_array_add(list, json_object_get(rows[i]));
    if (sweep_row_ok(rows[i]))
      ok++;
    else
      failed++;
  }
  json_object *counts = json_object_new_object();
  json_object_object_add(counts, "finished", json_object_new_int(ok + failed));
  json_object_object_add(counts, "ok", json_object_new_int(ok));
  json_object_object_add(counts, "failed", json_object_new_int(failed));
  json_object_object_add(summary, "counts", counts);
  json_object_object_add(summary, "benchmarks", list);
}

/* ---- Reading ------------------------------------------------------------- */

static int check_rows(json_object *list) {
  if (!json_object_is_type(list, json_type_array))
    return -1;
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *row = json_object_array_get_idx(list, i);
    if (!json_object_is_type(json_at(row, "name"), json_type_string) ||
        !json_object_is_type(json_at(row, "status"), json_type_string))
      return -1;
  }
  return 0;
}

/* Every benchmark name is a string: readers compare them. */
static int check_names(json_object *list) {
  if (!json_object_is_type(list, json_type_array))
    return -1;
  for (size_t i = 0; i < json_object_array_length(list); i++)
    if (!json_object_is_type(json_object_array_get_idx(list, i),
                             json_type_string))
      return -1;
  return 0;
}

json_object *sweep_summary_read(const char *path, char *err, size_t n) {
  json_object *s = pisa_read_json_file(path, err, n);
  if (!s)
    return NULL;
  const char *format = json_object_get_string(json_at(s, "format"));
  if (!format || strcmp(format, PISA_SWEEP_FORMAT) != 0) {
    snprintf(err, n, "%s: not a sweep summary (\"format\" is not \"%s\")", path,
             PISA_SWEEP_FORMAT);
    json_object_put(s);
    return NULL;
  }
  if (check_rows(json_at(s, "benchmarks")) ||
      check_names(json_at(s, "benchmarks_in_suite"))) {
    snprintf(err, n, "%s: malformed sweep summary", path);
    json_object_put(s);
    return NULL;
  }
  return s;
}

int sweep_row_ok(json_object *row) {
  return strcmp(json_object_get_string(json_at(row, "status")), SWEEP_OK) == 0;
}

json_object *sweep_summary_row(json_object *summary, const char *name) {
  json_object *list = json_at(summary, "benchmarks");
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *row = json_object_array_get_idx(list, i);
    if (strcmp(json_object_get_string(json_at(row, "name")), name) == 0)
      return row;
  }
  return NULL;
}

/* ---- Writing ------------------------------------------------------------- */

static void csv_field(struct strbuf *b, json_object *v) {
  if (!v)
    return;
  if (!json_object_is_type(v, json_type_string)) {
    sb_puts(b, json_object_to_json_string(v));
    return;
  }
  const char *s = json_object_get_string(v);
  if (!strpbrk(s, ",\"\r\n")) {
    sb_puts(b, s);
    return;
  }
  sb_puts(b, "\"");
  for (; *s; s++) {
    char c[2] = {*s, '\0'};
    sb_puts(b, *s == '"' ? "\"\"" : c); /* quotes doubled (RFC 4180) */
  }
  sb_puts(b, "\"");
}

/* The CSV text of a summary: a header and one line per row. */
static void csv_text(struct strbuf *b, json_object *summary) {
  for (size_t c = 0; c < NUM_COLUMNS; c++)
    sb_printf(b, "%s%s", Columns[c], c + 1 < NUM_COLUMNS ? "," : "\n");
  json_object *list = json_at(summary, "benchmarks");
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *row = json_object_array_get_idx(list, i);
    for (size_t c = 0; c < NUM_COLUMNS; c++) {
      csv_field(b, json_at(row, Columns[c]));
      sb_puts(b, c + 1 < NUM_COLUMNS ? "," : "\n");
    }
  }
}

int sweep_summary_write(json_object *summary, const char *base, char *err,
                        size_t n) {
  char *json = xasprintf("%s.json", base);
  char *csv = xasprintf("%s.csv", base);
  struct strbuf text = {0};
  csv_text(&text, summary);
  int rc = pisa_write_json_atomic(json, summary, 1, err, n) == PISA_WRITE_OK &&
                   pisa_write_atomic(csv, text.data, text.len, 1,
                                     PISA_WRITE_KEEP, err, n) == PISA_WRITE_OK
               ? 0
               : -1;
  sb_free(&text);
  free(json);
  free(csv);
  return rc;
}
