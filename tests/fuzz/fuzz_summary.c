/* fuzz_summary.c: the reader of sweep outputs (the resumed sweep and
 * merge-sweep read DIR/summary.json): the summary checks, then what the
 * sweep reads of each row and of the identity. */
#include "fuzz.h"
#include "jsonpath.h"
#include "sweep_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  char err[1024];
  json_object *s = sweep_summary_read(path, err, sizeof err);
  if (!s)
    return 0;
  const char *differs;
  sweep_summary_same_identity(s, s, &differs);
  json_object *rows = json_at(s, "benchmarks");
  for (size_t i = 0; i < json_object_array_length(rows); i++) {
    json_object *row = json_object_array_get_idx(rows, i);
    sweep_row_ok(row);
    sweep_summary_row(s, json_object_get_string(json_at(row, "name")));
  }
  json_object_put(s);
  return 0;
}
