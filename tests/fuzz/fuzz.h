/* fuzz.h: what the fuzz targets share: the input as a NUL-terminated
 * string or as a file for readers that take a path, and a way back from
 * exit() (die() on bad input must end one input, not the fuzzer). */
#ifndef PISA_FUZZ_H
#define PISA_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/* The input with a NUL after it (the readers' contract); free() it. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The input written to this process's own temporary file, whose path is
 * returned (the same every time). */
const char *fuzz_file(const uint8_t *data, size_t size);

/* Set around a call that may exit(): exit() then longjmps here with
 * status + 1 (the targets link with -Wl,--wrap=exit). */
extern jmp_buf fuzz_exit_jump;
extern int fuzz_exit_armed;

#define FUZZ_CATCH_EXIT(call)                                                  \
  do {                                                                         \
    fuzz_exit_armed = 1;                                                       \
    if (setjmp(fuzz_exit_jump) == 0)                                           \
      call;                                                                    \
    fuzz_exit_armed = 0;                                                       \
  } while (0)

#endif
