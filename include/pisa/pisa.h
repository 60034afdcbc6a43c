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

/* Regions of interest (docs/result-document.md, docs/counter-mode.md):
 * everything a thread executes between PISA_ROI_BEGIN("name") and the
 * matching PISA_ROI_END("name") counts for the region "name", work in
 * called functions included.  In a deep run every metric family is
 * reported per region; in a counter run (where both markers must be in the
 * same function) executions, time, instruction mix, bytes and bandwidth.
 * Regions nest; the same name in several places is one region.  When
 * pisa-char is not analysing the program they cost a call and do
 * nothing. */
void __pisa_roi_begin(const char *name);
void __pisa_roi_end(const char *name);
#define PISA_ROI_BEGIN(name) __pisa_roi_begin(name)
#define PISA_ROI_END(name) __pisa_roi_end(name)
#else
#define pisa_active() 0
#define PISA_ROI_BEGIN(name) ((void)0)
#define PISA_ROI_END(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PISA_H */
