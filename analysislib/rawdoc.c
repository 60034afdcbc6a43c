/* rawdoc.c: the raw result document of either mode (rawdoc.h): the header
 * pisa-char reads first, and the write that leaves either the whole
 * document or none (a temporary file renamed). */
#include "rawdoc.h"
#include "exit_status.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set by libpisa_mpi (analysislib/mpi/) in MPI_Init. */
static json_object *(*mpi_report)(void);
static int mpi_rank;

__attribute__((visibility("default"))) void
__pisa_mpi_register(json_object *(*report)(void), int rank) {
  mpi_rank = rank;
  mpi_report = report;
}

PISA_HIDDEN int pisa_mpi_rank(void) { return mpi_rank; }

PISA_HIDDEN int pisa_mpi_active(void) { return mpi_report != NULL; }

PISA_HIDDEN json_object *pisa_mpi_json(void) {
  return mpi_report ? mpi_report() : NULL;
}

PISA_HIDDEN json_object *pisa_raw_document(int complete, int signal,
                                           const char *mode) {
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "schema",
                         json_object_new_string("pisa-char-raw/1"));
  json_object_object_add(doc, "pid", json_object_new_int64(getpid()));
  json_object_object_add(doc, "ppid", json_object_new_int64(getppid()));
  json_object_object_add(doc, "complete", json_object_new_boolean(complete));
  json_object_object_add(doc, "signal",
                         signal ? json_object_new_int(signal) : NULL);
  json_object_object_add(doc, "mode", json_object_new_string(mode));
  int exit_status = pisa_exit_status();
  if (exit_status >= 0)
    json_object_object_add(doc, "exit_status",
                           json_object_new_int(exit_status));
  json_object *mpi = pisa_mpi_json();
  if (mpi)
    json_object_object_add(doc, "mpi", mpi);
  return doc;
}

PISA_HIDDEN void pisa_output_path(char *path, const char *stem,
                                  const char *ext) {
  snprintf(path, PISA_OUTPUT_PATH_MAX, "%s/%s.%ld.%s", pisa_config.output_dir,
           stem, (long)getpid(), ext);
}

PISA_HIDDEN void pisa_keep_earlier_image(void) {
  char path[PISA_OUTPUT_PATH_MAX], kept[PISA_OUTPUT_PATH_MAX];
  pisa_output_path(path, PISA_RESULT_STEM, "json");
  for (int n = 0; n < 4096; n++) {
    snprintf(kept, sizeof kept, "%s/exec.%ld.%d.json", pisa_config.output_dir,
             (long)getpid(), n);
    if (link(path, kept) == 0) { /* never replaces an earlier one */
      unlink(path);
      return;
    }
    if (errno != EEXIST)
      return; /* ENOENT: no earlier image wrote one */
  }
}

/* Writes doc to f with, when `stream` is given, the array `key` after its
 * last member, its elements written by `stream`. */
static int write_doc(FILE *f, json_object *doc, const char *key,
                     int (*stream)(FILE *)) {
  const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
  size_t n = s ? strlen(s) : 0;
  if (n < 2 || s[n - 1] != '}')
    return -1;
  if (!stream)
    return fputs(s, f) == EOF ? -1 : 0;
  /* the object's text without its closing brace, then the array */
  if (fwrite(s, 1, n - 1, f) != n - 1 ||
      fprintf(f, "%s\"%s\":[", n > 2 ? "," : "", key) < 0 || stream(f) != 0 ||
      fputs("]}", f) == EOF)
    return -1;
  return 0;
}

PISA_HIDDEN int pisa_write_raw_streamed(json_object *doc, const char *stem,
                                        const char *key,
                                        int (*stream)(FILE *)) {
  char path[PISA_OUTPUT_PATH_MAX], tmp[sizeof path + 8];
  pisa_output_path(path, stem, "json");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  int rc = f ? write_doc(f, doc, key, stream) : -1;
  json_object_put(doc);
  if (f && fclose(f) != 0)
    rc = -1;
  if (rc != 0 || rename(tmp, path) != 0) {
    PISA_ERR("cannot write %s", path);
    unlink(tmp);
    return -1;
  }
  return 0;
}

PISA_HIDDEN int pisa_write_raw(json_object *doc, const char *stem) {
  return pisa_write_raw_streamed(doc, stem, NULL, NULL);
}
