/* error.h: what every file of the runtime needs: the symbol tier of its
 * internals (hidden, pisa_ prefix, invisible to the instrumented program)
 * and the one error path (error.c). */
#ifndef PISA_ERROR_H
#define PISA_ERROR_H

#include <errno.h>

#define PISA_HIDDEN __attribute__((visibility("hidden")))

/* The one error path: a fixed prefix, the reason, never an abort. */
#define PISA_ERR(...) pisa_report_error(__FILE__, __LINE__, errno, __VA_ARGS__)
PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether a module was instrumented for another ABI than this runtime's;
 * says so when it was (both modes' registries refuse such modules). */
PISA_HIDDEN int pisa_abi_mismatch(const char *module, unsigned abi_version);

#endif
