/* fuzz_raw.c: the reader of the runtime's raw results (pisa-char run and
 * --mpi): strict parsing, the raw check and schema, the document made from
 * a valid raw result, and the merge of a rank's raw result. */
#include "document.h"
#include "fuzz.h"
#include "jsonschema.h"
#include "rankmerge.h"

#include <stdlib.h>

static void read_raw(json_object *raw) {
  char err[1024];
  char *args[] = {"x"};
  struct pisa_program_run run = {"./app", args, 1, 0, 0, 0.5};
  json_object *doc = pisa_document_from_raw(raw, &run, 0);
  pisa_document_validate(doc, err, sizeof err);
  json_object_put(doc);
  if (!pisa_raw_is_rank(raw))
    return;
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, 0);
  json_object *merged = NULL;
  if (pisa_rank_merge_add(&m, raw) == 0)
    merged = pisa_rank_merge_finish(&m, &run);
  else
    json_object_put(m.doc);
  json_object_put(merged);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024], *text = fuzz_text(data, size);
  json_object *raw = NULL;
  if (pisa_json_parse(text, size, &raw, err, sizeof err) == 0 &&
      pisa_raw_check(raw, err, sizeof err) == 0 &&
      pisa_raw_validate(raw, err, sizeof err) == 0)
    read_raw(raw);
  json_object_put(raw);
  free(text);
  return 0;
}
