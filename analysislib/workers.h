/* workers.h: analysis threads (workers.c): the consumer groups of the
 * threads' decoded batches (consume.c) run on worker threads, so that a
 * program that leaves cores idle gets wall time back.  The program's
 * threads stay the only producers: each decodes its buffers into its
 * batch slots (struct pisa_thread) and hands them over. */
#ifndef PISA_WORKERS_H
#define PISA_WORKERS_H

#include "runtime.h"

/* A slot of t for the next batch, once no worker reads it (waits). */
PISA_HIDDEN unsigned pisa_workers_free_slot(struct pisa_thread *t);
/* Consumes the batch in slot `slot` of t, decoded under t's lock: on the
 * workers (PISA_ANALYSIS_THREADS, started at the first batch), else here,
 * after t's queued batches. */
PISA_HIDDEN void pisa_workers_consume(struct pisa_thread *t, unsigned slot);
/* Waits until no worker reads t's batches: t's metrics are then complete
 * up to its last decoded batch.  In inline mode it polls (nanosleep), so a
 * signal handler may call it. */
PISA_HIDDEN void pisa_workers_wait(struct pisa_thread *t);
/* On: later batches are consumed where they are decoded (while the result
 * is built); off again after an exec that failed. */
PISA_HIDDEN void pisa_workers_inline(int on);
/* In a fork child: no worker exists there; it analyses inline. */
PISA_HIDDEN void pisa_workers_after_fork(void);

#endif
