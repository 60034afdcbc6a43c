/* progress.c: the status line of a run (progress.h). pisa-char makes the
 * progress block, the runtime of every analysed process adds to it, and
 * this reads it between waits for the program. */
#include "progress.h"
#include "child.h"
#include "numbers.h"
#include "statusline.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define REFRESH_SECONDS 0.5

static const char *const PhaseNames[] = {"starting", "running", "draining",
                                         "writing"};

/* A zeroed block in a new file at `path` with the magic set, or NULL. */
static struct pisa_status *make_block(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return NULL;
  void *p = MAP_FAILED;
  if (ftruncate(fd, sizeof(struct pisa_status)) == 0)
    p = mmap(NULL, sizeof(struct pisa_status), PROT_READ | PROT_WRITE,
             MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return NULL;
  struct pisa_status *s = p;
  __atomic_store_n(&s->magic, PISA_STATUS_MAGIC, __ATOMIC_RELEASE);
  return s;
}

void progress_start(struct progress *p, const char *dir, int quiet,
                    struct strvec *env) {
  *p = (struct progress){.start = child_clock()};
  if (quiet || !isatty(STDERR_FILENO))
    return;
  char *path = xasprintf("%s/status", dir);
  p->block = make_block(path);
  if (p->block)
    child_env_set(env, PISA_STATUS_ENV, path, 1);
  free(path);
}

static void show(struct progress *p) {
  char elapsed[32], events[32];
  uint32_t phase = __atomic_load_n(&p->block->phase, __ATOMIC_RELAXED);
  p->shown_at = child_clock();
  statusline_duration(elapsed, sizeof elapsed, p->shown_at - p->start);
  format_count(events, sizeof events,
               (double)__atomic_load_n(&p->block->events, __ATOMIC_RELAXED));
  statusline_show("%s elapsed, %s events analysed, %s", elapsed, events,
                  phase < sizeof PhaseNames / sizeof *PhaseNames
                      ? PhaseNames[phase]
                      : "running");
}

void progress_tick(void *progress) {
  struct progress *p = progress;
  if (p->block && child_clock() - p->shown_at >= REFRESH_SECONDS)
    show(p);
}

void progress_end(struct progress *p) {
  if (!p->block)
    return;
  statusline_clear();
  munmap(p->block, sizeof *p->block);
  p->block = NULL;
}
