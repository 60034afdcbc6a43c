/* fuzz_rankmerge.c: the reader of the per-rank outputs of an MPI job
 * (pisa-char merge): up to four documents or raw results, separated by NUL
 * bytes, each parsed strictly and merged (which validates it first). */
#include "fuzz.h"
#include "jsonschema.h"
#include "rankmerge.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024], *text = fuzz_text(data, size);
  struct pisa_rank_merge m;
  pisa_rank_merge_init(&m, (int)(size % 5));
  int ok = 1;
  for (char *p = text; ok && p < text + size && p < text + 4 * size;) {
    size_t len = strlen(p);
    json_object *input = NULL;
    ok = pisa_json_parse(p, len, &input, err, sizeof err) == 0 && input &&
         pisa_rank_merge_add(&m, input) == 0;
    json_object_put(input);
    p += len + 1;
  }
  char *args[] = {"x"};
  struct pisa_program_run run = {"./app", args, 1, 0, 0, 0.5};
  if (ok)
    json_object_put(pisa_rank_merge_finish(&m, size % 2 ? &run : NULL));
  else
    json_object_put(m.doc);
  free(text);
  return 0;
}
