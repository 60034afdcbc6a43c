/* progress.h: the status line of a run (`pisa-char run` on a terminal):
 * elapsed time, events analysed and the phase (running, draining,
 * writing), refreshed twice a second from the progress block that the
 * runtime fills (pisa/status.h). Nothing at all unless stderr is a
 * terminal and the run is not quiet. */
#ifndef PISA_CLI_PROGRESS_H
#define PISA_CLI_PROGRESS_H

#include "pisa/status.h"
#include "strvec.h"

struct progress {
  struct pisa_status *block; /* NULL: no status line */
  double start, shown_at;    /* child_clock() */
};

/* Starts the status line when stderr is a terminal and !quiet: the block
 * is the file DIR/status, named to the runtime in `env`. */
void progress_start(struct progress *p, const char *dir, int quiet,
                    struct strvec *env);
/* Shows the line again when half a second has passed since it was. */
void progress_tick(void *progress);
/* Erases the line and unmaps the block. */
void progress_end(struct progress *p);

#endif
