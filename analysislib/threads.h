/* threads.h: the deep-mode thread states (thread.c): each thread's record
 * buffer and analysis state (struct pisa_thread, runtime.h), the list of
 * them in creation order, and what the result writer does to them. */
#ifndef PISA_THREADS_H
#define PISA_THREADS_H

#include "runtime.h"

PISA_HIDDEN struct pisa_thread *pisa_thread_self(void); /* NULL when none */
PISA_HIDDEN struct pisa_thread *pisa_thread_list(void); /* under lock */
PISA_HIDDEN void pisa_threads_lock(void);
PISA_HIDDEN int pisa_threads_trylock(void); /* 0 when locked */
/* 0 when locked within `seconds` (the fatal signal's writer: a snapshot
 * being built holds the lock that long at most, in the normal case). */
PISA_HIDDEN int pisa_threads_timedlock(unsigned seconds);
PISA_HIDDEN void pisa_threads_unlock(void);
PISA_HIDDEN void pisa_thread_drain(struct pisa_thread *t);
/* pisa_thread_drain, unless t's lock is held (the runtime starting one of
 * its own threads while it drains): then nothing. */
PISA_HIDDEN void pisa_thread_drain_unless_busy(struct pisa_thread *t);
/* Under pisa_threads_lock: drain every thread and freeze its metrics while
 * the result is built (threads may still run); thaw undoes it. */
PISA_HIDDEN void pisa_threads_freeze(void);
PISA_HIDDEN void pisa_threads_thaw(void);
PISA_HIDDEN int pisa_threads_frozen(void); /* under pisa_threads_lock */
/* Under pisa_threads_lock: drain every thread and hold its lock, so that a
 * snapshot can be built while the threads wait at their next refill (none
 * of their records is dropped); release lets them go on. */
PISA_HIDDEN void pisa_threads_hold(void);
PISA_HIDDEN void pisa_threads_release(void);
/* In a fork child: the forking thread alone, with empty metrics. */
PISA_HIDDEN void pisa_threads_after_fork(void);
/* Creation numbers (for creation.c, the pthread_create wrapper of the
 * shared runtime): a new one; the one of the calling thread, set when it
 * starts. */
PISA_HIDDEN uint32_t pisa_new_creation_number(void);
PISA_HIDDEN void pisa_thread_started(uint32_t creation);
/* For handlers.c, the sigaction wrapper of the shared runtime: one of the
 * program's handlers of signal `sig` starts on this thread (its trampoline
 * frame at `frame`; `nodefer`: the signal is not blocked while it runs),
 * or returns (the trampoline's frame again).  Its records go to chunks of
 * the buffer's reserve, decoded where it interrupted the program; while it
 * runs, the buffer refill never decodes or allocates: the handler may have
 * interrupted malloc. */
PISA_HIDDEN void pisa_handler_enter(int sig, int nodefer, void *frame);
PISA_HIDDEN void pisa_handler_leave(void *frame);
/* Starts the thread that decodes, when their handlers ask, the threads
 * whose handlers' reserve or log is a quarter full (at start-up and in a
 * fork child). */
PISA_HIDDEN void pisa_drainer_start(void);
/* How many handlers' records were dropped, in part or whole (the reserve
 * or the log of cursor moves was full, the thread had no buffer yet, or
 * the handler interrupted a dropped one): the result is then incomplete. */
PISA_HIDDEN uint64_t pisa_handler_overflows(void);

#endif
