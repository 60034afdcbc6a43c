/* fuzz_summary.c: the reader of sweep outputs (a resumed sweep and
 * merge-sweep read DIR/summary.json): the summary checks, what the sweep
 * reads of each row and of the identity, then merge-sweep itself on the
 * summary, writing into a private directory. */
#include "commands.h"
#include "fuzz.h"
#include "jsonpath.h"
#include "sweep_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char out[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(out, sizeof out, "%s/pisa-fuzz-sweep.%d", tmp ? tmp : "/tmp",
           (int)getpid());
  return 0;
}

static void read_summary(json_object *s) {
  const char *differs;
  sweep_summary_same_identity(s, s, &differs);
  json_object *rows = json_at(s, "benchmarks");
  for (size_t i = 0; i < json_object_array_length(rows); i++) {
    json_object *row = json_object_array_get_idx(rows, i);
    sweep_row_ok(row);
    sweep_summary_row(s, json_object_get_string(json_at(row, "name")));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  char err[1024];
  json_object *s = sweep_summary_read(path, err, sizeof err);
  if (!s)
    return 0;
  read_summary(s);
  json_object_put(s);
  char *argv[] = {"merge-sweep", "-o", out, (char *)path, NULL};
  FUZZ_CATCH_EXIT(cmd_merge_sweep(4, argv));
  const char *written[] = {"summary.json", "summary.csv"};
  for (size_t i = 0; i < 2; i++) {
    char file[128];
    snprintf(file, sizeof file, "%s/%s", out, written[i]);
    unlink(file);
  }
  rmdir(out);
  return 0;
}
