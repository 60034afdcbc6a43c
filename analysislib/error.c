/* error.c: the runtime's one error path (error.h): a line on stderr with a
 * fixed prefix and the reason; the program goes on.  Also the refusal of a
 * module built for another ABI, the same in both modes. */
#include "error.h"
#include "pisa/abi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...) {
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  fputs("pisa-char runtime: ", stderr);
  vfprintf(stderr, fmt, ap);
  if (err)
    fprintf(stderr, ": %s", strerror(err));
  fputc('\n', stderr);
  va_end(ap);
}

PISA_HIDDEN int pisa_abi_mismatch(const char *module, unsigned abi_version) {
  if (abi_version == PISA_ABI_VERSION)
    return 0;
  PISA_ERR("module %s was instrumented for ABI %u, this runtime has %u; "
           "rebuild it with this pisa-cc",
           module, abi_version, PISA_ABI_VERSION);
  return 1;
}
