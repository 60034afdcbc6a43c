/* pisa.h: what programs built with pisa-cc may include.  pisa-cc puts this
 * directory on the include path and defines PISA_INSTRUMENTED; without
 * pisa-cc every call here compiles to a constant, so the same source builds
 * with any compiler. */
#ifndef PISA_H
#define PISA_H

#define PISA_VERSION_MAJOR 0
#define PISA_VERSION_MINOR 1

#ifdef __cplusplus
extern "C" {
#endif

#ifdef PISA_INSTRUMENTED
/* 1 while pisa-char is analysing this process (run under `pisa-char`), 0 when
 * the instrumented program runs on its own. */
int pisa_active(void);
#else
#define pisa_active() 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* PISA_H */
