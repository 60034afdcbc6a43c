/* fuzz_document.c: the reader of result documents that show, rank, compare
 * and report share (docset_load: bounded strict parsing, the schema), then
 * what rank, compare and report read of a valid document, given twice so
 * that compare has two applications. */
#include "compare.h"
#include "docset.h"
#include "fuzz.h"
#include "rank.h"
#include "report.h"

#include <stdlib.h>

static void read_set(const struct pisa_docset *set) {
  struct report_options o = {.title = "fuzz", .functions = 5, .clusters = 2};
  rank_model_init(&o.model);
  struct rank_candidates c = {0};
  rank_add_application(&c, &o.model, &set->docs[0]);
  rank_add_functions(&c, &o.model, &set->docs[0], 0.0, 1);
  rank_sort(&c);
  rank_candidates_free(&c);
  struct comparison cmp;
  compare_build(set, 2, &cmp);
  compare_free(&cmp);
  struct strbuf html = {0};
  report_build(&o, set, &html);
  sb_free(&html);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  char *args[] = {(char *)path, (char *)path};
  struct pisa_docset set;
  if (docset_load(&set, args, 2) == 0) {
    read_set(&set);
    docset_free(&set);
  }
  return 0;
}
