/* live.h: the live views of counter-mode runs (include/pisa/live.h), read
 * from outside: a process's file mapped read-only, consistent copies of
 * its snapshot, and the processes of this machine that have one. */
#ifndef PISA_CLI_LIVE_H
#define PISA_CLI_LIVE_H

#include "pisa/live.h"

#include <stddef.h>
#include <sys/types.h>

struct live_view {
  pid_t pid;
  const struct pisa_live *map;
  dev_t dev; /* the file mapped: a later file of the same pid is another */
  ino_t ino;
  char path[4096];
};

/* The directory of the live files: PISA_LIVE_DIR or /dev/shm. */
const char *live_dir(void);

/* Maps pid's live file: 0, or -1 with the reason in err (no such process,
 * or no live view: not a counter-mode run under pisa-char). */
int live_open(pid_t pid, struct live_view *v, char *err, size_t errlen);
void live_close(struct live_view *v);

/* A consistent copy of the snapshot: 0, or -1 when the writer kept
 * changing it (try again later). */
int live_read(const struct live_view *v, struct pisa_live *out);

/* Whether the process still runs with this view: its file is still there
 * (removed when its result is written) and the process exists. */
int live_running(const struct live_view *v);

/* The pids of the processes that have a live view now, ascending, in a
 * malloc'ed array (*pids); their count. */
size_t live_list(pid_t **pids);

#endif
