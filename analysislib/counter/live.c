/* live.c: counter mode's live view (include/pisa/live.h). A thread of the
 * runtime's own writes, every PISA_LIVE_MS (default one second), the
 * process's counts so far into DIR/pisa-live.PID, a small file mapped
 * shared that `pisa-char top` reads. The counters are read as the
 * interval thread reads them (a snapshot may be a few increments early or
 * late); the program is never interrupted. The file goes when the result
 * is written. */
#include "pisa/live.h"
#include "counter.h"
#include "names.h"
#include "rawdoc.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct pisa_live *_Atomic live;
static char live_path[4096];

/* What a snapshot sums; grown with the counters, on the live thread only. */
static uint64_t *total, *scratch;
static uint32_t total_capacity;

static void set_name(char *dst, const char *src) {
  snprintf(dst, PISA_LIVE_NAME, "%s", src ? src : "?");
}

/* Keeps the PISA_LIVE_TOP entries with the largest key (instructions or
 * executions) in top[0..*n), largest first. */
static void keep_top(struct pisa_live_entry *top, uint32_t *n,
                     const struct pisa_live_entry *e, uint64_t key,
                     int by_instructions) {
  uint32_t i = *n;
  while (i > 0 && (by_instructions ? top[i - 1].instructions
                                   : top[i - 1].executions) < key)
    i--;
  if (i == PISA_LIVE_TOP)
    return;
  uint32_t last = *n < PISA_LIVE_TOP ? *n : PISA_LIVE_TOP - 1;
  memmove(&top[i + 1], &top[i], (last - i) * sizeof *top);
  top[i] = *e;
  if (*n < PISA_LIVE_TOP)
    (*n)++;
}

/* The counters of every thread, summed into `total` (n words); the
 * threads counted. */
static uint32_t sum_threads(uint32_t n) {
  uint32_t threads = 0;
  memset(total, 0, n * sizeof *total);
  pisa_cthreads_lock();
  for (struct pisa_cthread *t = pisa_cthread_list(); t; t = t->next) {
    pisa_cthread_read(t, scratch, n);
    for (uint32_t i = 0; i < n; i++)
      total[i] += scratch[i];
    threads++;
  }
  pisa_cthreads_unlock();
  return threads;
}

/* Function f of module cm into the snapshot s and, by instructions, its
 * top list. */
static void add_function(struct pisa_live *s, const struct pisa_cmodule *cm,
                         uint32_t f, uint32_t n) {
  const struct pisa_counter_function *fn = &cm->table->functions[f];
  struct pisa_live_entry e = {0};
  uint64_t loaded, stored;
  pisa_counter_dyn_bytes(cm, fn, total, n, &loaded, &stored);
  for (uint32_t k = fn->first_set; k < fn->first_set + fn->n_sets; k++) {
    const struct pisa_counter_set *set = &cm->table->sets[k];
    uint64_t count = pisa_counter_set_count(cm, set, total, n);
    e.instructions += count * set->n_instrs;
    loaded += count * set->bytes_loaded;
    stored += count * set->bytes_stored;
    s->loads += count * set->accesses[PISA_ACC_LOADS];
    s->stores += count * set->accesses[PISA_ACC_STORES];
  }
  s->instructions += e.instructions;
  s->bytes_loaded += loaded;
  s->bytes_stored += stored;
  e.bytes = loaded + stored;
  if (!e.instructions)
    return;
  set_name(e.name, fn->display);
  keep_top(s->functions, &s->n_functions, &e, e.instructions, 1);
}

/* The snapshot, built aside and then copied under the sequence count. */
static void publish(struct pisa_live *l) {
  uint32_t n = pisa_counter_total();
  if (n > total_capacity) {
    uint64_t *t = realloc(total, n * sizeof *t);
    if (t)
      total = t;
    uint64_t *c = realloc(scratch, n * sizeof *c);
    if (c)
      scratch = c;
    if (!t || !c)
      return; /* the next snapshot tries again */
    total_capacity = n;
  }
  static struct pisa_live s;
  memset(&s.seconds, 0, sizeof s - offsetof(struct pisa_live, seconds));
  s.threads = sum_threads(n);
  uint32_t modules = pisa_cmodule_count();
  for (uint32_t m = 0; m < modules; m++)
    for (uint32_t f = 0; f < pisa_cmodules[m].table->n_functions; f++)
      add_function(&s, &pisa_cmodules[m], f, n);
  uint32_t regions = pisa_region_count();
  for (uint32_t r = 0; r < regions; r++) {
    struct pisa_live_entry e = {.executions = pisa_counter_region_hits(r)};
    set_name(e.name, pisa_region_name(r));
    if (e.executions)
      keep_top(s.regions, &s.n_regions, &e, e.executions, 0);
  }
  s.seconds = pisa_counter_clock();
  s.snapshots = l->snapshots + 1;
  l->rank = pisa_mpi_active() ? pisa_mpi_rank() : -1;
  _Atomic uint64_t *sequence = (_Atomic uint64_t *)&l->sequence;
  _Atomic uint64_t *to = (_Atomic uint64_t *)&l->seconds;
  uint64_t from[PISA_LIVE_WORDS];
  memcpy(from, &s.seconds, sizeof from);
  uint64_t seq = atomic_load_explicit(sequence, memory_order_relaxed);
  atomic_store_explicit(sequence, seq + 1, memory_order_relaxed);
  for (size_t i = 0; i < PISA_LIVE_WORDS; i++) /* each after the odd count */
    atomic_store_explicit(&to[i], from[i], memory_order_release);
  atomic_store_explicit(sequence, seq + 2, memory_order_release);
}

static void *live_thread(void *arg) {
  (void)arg;
  unsigned ms = pisa_counter_config.live_ms;
  struct timespec period = {.tv_sec = ms / 1000,
                            .tv_nsec = (long)(ms % 1000) * 1000000L};
  for (;;) {
    nanosleep(&period, NULL);
    struct pisa_live *l = live;
    if (l) /* not after the result started to be written */
      publish(l);
  }
  return NULL;
}

/* A file left by an earlier process with this pid (killed before it could
 * remove it) is replaced; any other existing file is left alone. */
static int create_file(void) {
  for (int tries = 0; tries < 2; tries++) {
    int fd = open(live_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
      return fd;
    if (unlink(live_path) != 0)
      return -1;
  }
  return -1;
}

static void program_name(char *dst, size_t size) {
  ssize_t len = readlink("/proc/self/exe", dst, size - 1);
  dst[len > 0 ? len : 0] = '\0';
}

PISA_HIDDEN void pisa_live_start(void) {
  const char *dir = getenv(PISA_LIVE_DIR_ENV);
  if (!pisa_counter_config.live_ms || live)
    return;
  snprintf(live_path, sizeof live_path, "%s/%s%ld",
           dir && *dir ? dir : PISA_LIVE_DEFAULT_DIR, PISA_LIVE_PREFIX,
           (long)getpid());
  int fd = create_file();
  if (fd < 0)
    return; /* no live view, which is never worth an error */
  void *p = MAP_FAILED;
  if (ftruncate(fd, sizeof *live) == 0)
    p = mmap(NULL, sizeof *live, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    unlink(live_path);
    return;
  }
  struct pisa_live *l = p;
  l->pid = (int32_t)getpid();
  l->rank = -1;
  program_name(l->program, sizeof l->program);
  atomic_store_explicit((_Atomic uint64_t *)&l->magic, PISA_LIVE_MAGIC,
                        memory_order_release);
  live = l;
  pisa_runtime_thread(live_thread, "the live-view thread");
}

PISA_HIDDEN void pisa_live_stop(void) {
  if (!live)
    return;
  live = NULL; /* the mapping stays: the live thread may be writing it */
  unlink(live_path);
}

/* The child has no live thread: the parent's mapping goes, and the child
 * gets a file of its own. */
PISA_HIDDEN void pisa_live_after_fork(void) {
  struct pisa_live *l = live;
  live = NULL;
  if (!l)
    return;
  munmap(l, sizeof *l);
  pisa_live_start();
}
