/* textout.c: checking and writing the output file of a command that reads
 * documents. */
#include "textout.h"

#include "atomicfile.h"
#include "strvec.h"
#include "util.h"

#include <stdio.h>
#include <sys/stat.h>

int textout_check(const char *command, const char *output, int force) {
  struct stat st;
  if (output && !force && lstat(output, &st) == 0) {
    error("%s: %s exists; use --force to replace it or -o to choose "
          "another file",
          command, output);
    return 2;
  }
  return 0;
}

int textout_check_inputs(const char *command, const char *output,
                         const struct pisa_docset *set) {
  char err[1024];
  if (!output)
    return 0;
  struct strvec paths = {0};
  for (size_t i = 0; i < set->count; i++)
    strvec_push(&paths, set->docs[i].path);
  int status = pisa_check_output(output, paths.v, paths.n,
                                 "one of the documents read", err, sizeof err);
  if (status)
    error("%s: %s", command, err);
  strvec_free(&paths);
  return status ? 2 : 0;
}

int textout_write(const char *command, const char *output,
                  const struct strbuf *text, int force) {
  char err[1024];
  if (!output) {
    fwrite(text->data ? text->data : "", 1, text->len, stdout);
    check_stdout();
    return 0;
  }
  if (pisa_write_atomic(output, text->data ? text->data : "", text->len, force,
                        PISA_WRITE_DROP, err, sizeof err) != PISA_WRITE_OK) {
    error("%s: %s", command, err);
    return 1;
  }
  return 0;
}
