/* status.c: the runtime's side of the progress block (pisa/status.h). The
 * block is a small shared mapping of the file pisa-char names in
 * PISA_STATUS_FILE; it stays mapped across fork (children add to the same
 * counts) and an exec maps it again. A block that cannot be mapped, or was
 * not made by pisa-char, is ignored: progress is never worth an error. */
#include "status.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

PISA_HIDDEN struct pisa_status *pisa_status_block;

static struct pisa_status *map_block(const char *path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  void *p = mmap(NULL, sizeof(struct pisa_status), PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return NULL;
  struct pisa_status *s = p;
  if (__atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != PISA_STATUS_MAGIC) {
    munmap(p, sizeof *s);
    return NULL;
  }
  return s;
}

PISA_HIDDEN void pisa_status_init(void) {
  const char *path = getenv(PISA_STATUS_ENV);
  if (!path || pisa_status_block)
    return;
  pisa_status_block = map_block(path);
  if (!pisa_status_block)
    return;
  __atomic_fetch_add(&pisa_status_block->processes, 1, __ATOMIC_RELAXED);
  pisa_status_phase(PISA_PHASE_RUNNING);
}

PISA_HIDDEN void pisa_status_phase(enum pisa_phase phase) {
  if (pisa_status_block)
    __atomic_store_n(&pisa_status_block->phase, (uint32_t)phase,
                     __ATOMIC_RELAXED);
}
