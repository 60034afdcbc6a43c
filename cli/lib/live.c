/* live.c: reading the live views of counter-mode runs (live.h). */
#include "live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *live_dir(void) {
  const char *dir = getenv(PISA_LIVE_DIR_ENV);
  return dir && *dir ? dir : PISA_LIVE_DEFAULT_DIR;
}

static int process_exists(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

static void path_of(pid_t pid, char *path, size_t size) {
  snprintf(path, size, "%s/%s%ld", live_dir(), PISA_LIVE_PREFIX, (long)pid);
}

int live_open(pid_t pid, struct live_view *v, char *err, size_t errlen) {
  memset(v, 0, sizeof *v);
  v->pid = pid;
  path_of(pid, v->path, sizeof v->path);
  if (!process_exists(pid)) {
    snprintf(err, errlen, "no process %ld", (long)pid);
    return -1;
  }
  int fd = open(v->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (size_t)st.st_size < sizeof *v->map) {
    if (fd >= 0)
      close(fd);
    snprintf(err, errlen,
             "process %ld has no live view (%s): it is not a counter-mode "
             "run under pisa-char, or its result is being written",
             (long)pid, v->path);
    return -1;
  }
  void *p = mmap(NULL, sizeof *v->map, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    snprintf(err, errlen, "%s: %s", v->path, strerror(errno));
    return -1;
  }
  v->map = p;
  v->dev = st.st_dev;
  v->ino = st.st_ino;
  if (atomic_load_explicit((_Atomic uint64_t *)&v->map->magic,
                           memory_order_acquire) != PISA_LIVE_MAGIC ||
      v->map->pid != pid) {
    snprintf(err, errlen, "%s: not a pisa-char live view", v->path);
    live_close(v);
    return -1;
  }
  return 0;
}

void live_close(struct live_view *v) {
  if (v->map)
    munmap((void *)v->map, sizeof *v->map);
  v->map = NULL;
}

int live_read(const struct live_view *v, struct pisa_live *out) {
  _Atomic uint64_t *sequence = (_Atomic uint64_t *)&v->map->sequence;
  _Atomic uint64_t *from = (_Atomic uint64_t *)&v->map->seconds;
  uint64_t to[PISA_LIVE_WORDS];
  for (int tries = 0; tries < 1000; tries++) {
    uint64_t before = atomic_load_explicit(sequence, memory_order_acquire);
    if (before & 1)
      continue;
    for (size_t i = 0; i < PISA_LIVE_WORDS; i++)
      to[i] = atomic_load_explicit(&from[i], memory_order_acquire);
    if (atomic_load_explicit(sequence, memory_order_relaxed) != before)
      continue;
    memcpy(out, v->map, offsetof(struct pisa_live, seconds));
    memcpy(&out->seconds, to, sizeof to);
    return 0;
  }
  return -1;
}

int live_running(const struct live_view *v) {
  struct stat st;
  return stat(v->path, &st) == 0 && st.st_dev == v->dev &&
         st.st_ino == v->ino && process_exists(v->pid);
}

static int by_pid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

size_t live_list(pid_t **pids) {
  size_t n = 0, cap = 0;
  *pids = NULL;
  DIR *d = opendir(live_dir());
  if (!d)
    return 0;
  size_t plen = strlen(PISA_LIVE_PREFIX);
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    if (strncmp(e->d_name, PISA_LIVE_PREFIX, plen) != 0)
      continue;
    long pid = strtol(e->d_name + plen, &end, 10);
    if (*end || pid <= 0 || !process_exists((pid_t)pid))
      continue; /* not ours, or left by a killed process */
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      pid_t *grown = realloc(*pids, cap * sizeof *grown);
      if (!grown)
        break;
      *pids = grown;
    }
    (*pids)[n++] = (pid_t)pid;
  }
  closedir(d);
  if (n)
    qsort(*pids, n, sizeof **pids, by_pid);
  return n;
}
