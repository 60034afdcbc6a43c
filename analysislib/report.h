/* report.h: deep mode's raw result (report.c), built from the frozen
 * thread states and written once by lifecycle.c (and as a snapshot by
 * snapshot.c, from held ones). */
#ifndef PISA_REPORT_H
#define PISA_REPORT_H

#include "error.h"

/* Builds and writes STEM.PID.json (rawdoc.h); 0 on success.  Under
 * pisa_threads_lock with the threads frozen or held (threads.h). */
PISA_HIDDEN int pisa_write_result(int complete, int signal, const char *stem);
/* The same for a snapshot (incomplete, no signal), which says nothing on
 * stderr: the final result says what the run lost, once. */
PISA_HIDDEN int pisa_write_snapshot(const char *stem);
/* The same for the process's last result (under the list lock, the threads
 * frozen and never thawed): the regions' states are freed while it is
 * built, so that they are not resident beside the aggregates. */
PISA_HIDDEN int pisa_write_last_result(int complete, int signal,
                                       const char *stem);

#endif
