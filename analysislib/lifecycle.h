/* lifecycle.h: what the exec and _exit wrappers (exec.c, quickexit.c) ask
 * of the lifecycle (lifecycle.c), the only calls into it. */
#ifndef PISA_LIFECYCLE_H
#define PISA_LIFECYCLE_H

#include "error.h"

/* The image is about to be replaced: write its result now. */
PISA_HIDDEN void pisa_before_exec(void);
/* The exec failed, the image goes on: its result is written again at its
 * end, replacing the one written before the exec. */
PISA_HIDDEN void pisa_after_failed_exec(void);
/* The process ends with _exit(status), without exit handlers: its result
 * is written now, marked incomplete. */
PISA_HIDDEN void pisa_before_quick_exit(int status);

#endif
