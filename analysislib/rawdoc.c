/* rawdoc.c: the raw result document of either mode (rawdoc.h): the header
 * pisa-char reads first, and the write that leaves either the whole
 * document or none (a temporary file renamed). */
#include "rawdoc.h"
#include "exit_status.h"

#include <json-c/json.h>
#include <stdio.h>
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

PISA_HIDDEN int pisa_write_raw(json_object *doc, const char *stem) {
  char path[PISA_OUTPUT_PATH_MAX], tmp[sizeof path + 8];
  pisa_output_path(path, stem, "json");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int rc = json_object_to_file_ext(tmp, doc, JSON_C_TO_STRING_PLAIN);
  json_object_put(doc);
  if (rc != 0 || rename(tmp, path) != 0) {
    PISA_ERR("cannot write %s", path);
    unlink(tmp);
    return -1;
  }
  return 0;
}
