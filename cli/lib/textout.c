/* textout.c: checking and writing the output file of a command that reads
 * documents. */
#include "textout.h"
#include "atomicfile.h"
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
  struct stat out, in;
  if (!output || stat(output, &out))
    return 0;
  for (size_t i = 0; i < set->count; i++)
    if (stat(set->docs[i].path, &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino) {
      error("%s: %s is one of the documents read; choose another -o", command,
            output);
      return 2;
    }
  return 0;
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
