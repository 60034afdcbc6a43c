/* registry.c: counter mode's modules and threads.  Modules register
 * their tables from constructors; a thread becomes known when it first
 * enters an instrumented function, its counter arrays are recorded then
 * (and again at its first entry after a module was loaded), and their
 * values are copied when it exits.  A module that dlclose
 * unloads has its tables and every thread's counters of it copied first.
 * No atomics on the counters: each thread writes only its own. */
#include "counter.h"
#include "exit_status.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

PISA_HIDDEN struct pisa_cmodule pisa_cmodules[PISA_MAX_COUNTER_MODULES];

/* The flag the instrumented code tests before calling the runtime. */
__attribute__((
    visibility("default"),
    tls_model("initial-exec"))) __thread char __pisa_counter_thread_on;

static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t n_modules, n_counters;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pisa_cthread *threads_head, **threads_tail = &threads_head;
static uint32_t threads_created;
static __thread struct pisa_cthread *self;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
static struct timespec started;
/* Set once exit has begun: module destructors that run then unmap
 * nothing before the result is written, so they copy nothing. */
static atomic_int exiting;

PISA_HIDDEN uint32_t pisa_cmodule_count(void) {
  return atomic_load_explicit(&n_modules, memory_order_acquire);
}

PISA_HIDDEN uint32_t pisa_counter_total(void) {
  return atomic_load_explicit(&n_counters, memory_order_acquire);
}

PISA_HIDDEN struct pisa_cthread *pisa_cthread_list(void) {
  return threads_head;
}
PISA_HIDDEN void pisa_cthreads_lock(void) { pthread_mutex_lock(&threads_lock); }
PISA_HIDDEN void pisa_cthreads_unlock(void) {
  pthread_mutex_unlock(&threads_lock);
}

static void read_start_time(void) { clock_gettime(CLOCK_MONOTONIC, &started); }

/* The clock starts at the first counter-mode event. */
static void start_clock(void) { pthread_once(&clock_once, read_start_time); }

PISA_HIDDEN double pisa_counter_clock(void) {
  struct timespec now;
  start_clock();
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - started.tv_sec) +
         (double)(now.tv_nsec - started.tv_nsec) / 1e9;
}

/* In a fork child only the forking thread exists, and the counts so far
 * belong to the parent's result: start over from zero. */
PISA_HIDDEN void pisa_cthreads_after_fork(void) {
  struct pisa_cthread *t = self;
  pthread_mutex_init(&threads_lock, NULL);
  threads_head = NULL;
  threads_tail = &threads_head;
  threads_created = 0;
  if (!t) {
    pisa_fp_after_fork(NULL);
    return;
  }
  for (uint32_t i = 0; i < t->n_arrays; i++)
    if (t->arrays[i])
      memset(t->arrays[i], 0,
             pisa_cmodules[i].table->n_counters * sizeof *t->arrays[i]);
  for (uint32_t r = 0; r < t->n_regions; r++)
    free(t->regions[r].delta);
  free(t->regions);
  t->regions = NULL;
  t->n_regions = 0;
  t->depth = 0;
  t->n_intervals = 0;
  t->next = NULL;
  t->index = threads_created++;
  t->os_tid = (pid_t)syscall(SYS_gettid);
  *threads_tail = t;
  threads_tail = &t->next;
  pisa_fp_after_fork(t);
}

static void thread_exit(void *arg);

/* LeakSanitizer's, in sanitizer builds of the runtime (the tests'). */
extern void __lsan_register_root_region(const void *p, size_t size)
    __attribute__((weak));

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0)
    PISA_ERR("cannot create the thread-exit key");
}

/* Records the calling thread's counter arrays of modules [from, to); an
 * unloaded module (no counters function) has none: NULL, read as zeros. */
static void record_arrays(struct pisa_cthread *t, uint32_t to) {
  if (to <= t->n_arrays)
    return;
  uint64_t **arrays = realloc(t->arrays, to * sizeof *arrays);
  if (!arrays)
    return;
  for (uint32_t i = t->n_arrays; i < to; i++)
    arrays[i] = pisa_cmodules[i].table->counters
                    ? pisa_cmodules[i].table->counters()
                    : NULL;
  t->arrays = arrays;
  t->n_arrays = to;
}

PISA_HIDDEN struct pisa_cthread *pisa_cthread_self(void) {
  if (self)
    return self;
  start_clock();
  pisa_watch_exit_status();
  /* Not in the program's heap: an allocation there before the program's
   * own would move them, and with them what reuses freed memory. */
  struct pisa_cthread *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t == MAP_FAILED)
    return NULL;
  if (__lsan_register_root_region) /* its pointers keep what they point to */
    __lsan_register_root_region(t, sizeof *t);
  t->os_tid = (pid_t)syscall(SYS_gettid);
  t->entry_flag = &__pisa_counter_thread_on;
  for (unsigned i = 0; i < PISA_MAX_HW_COUNTERS; i++)
    t->hw_fd[i] = -1;
  record_arrays(t, pisa_cmodule_count());
  pthread_once(&exit_key_once, make_exit_key);
  pthread_setspecific(exit_key, t);
  pthread_mutex_lock(&threads_lock);
  t->index = threads_created++;
  *threads_tail = t;
  threads_tail = &t->next;
  pthread_mutex_unlock(&threads_lock);
  self = t;
  __pisa_counter_thread_on = 1;
  return t;
}

/* A known thread's first entry after a module was loaded: the module's
 * array on this thread is recorded, under the list lock that readers of
 * other threads' arrays (intervals, an unload) hold. */
static void record_new_arrays(struct pisa_cthread *t) {
  pthread_mutex_lock(&threads_lock);
  record_arrays(t, pisa_cmodule_count());
  pthread_mutex_unlock(&threads_lock);
}

/* Signals blocked: an instrumented handler's first event must not wait
 * for the list lock (or malloc) that this thread holds. */
__attribute__((visibility("default"))) void __pisa_counter_thread(void) {
  int saved = errno;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  if (self)
    record_new_arrays(self);
  else
    pisa_cthread_self();
  pisa_signals_restore(&saved_mask);
  __pisa_counter_thread_on = 1; /* even without memory: do not come back */
  errno = saved;
}

PISA_HIDDEN void pisa_cthread_read(struct pisa_cthread *t, uint64_t *out,
                                   uint32_t n) {
  memset(out, 0, n * sizeof *out);
  if (t->final) {
    memcpy(out, t->final, (t->n_final < n ? t->n_final : n) * sizeof *out);
    return;
  }
  if (t == self)
    record_arrays(t, pisa_cmodule_count());
  for (uint32_t i = 0; i < t->n_arrays; i++) {
    const struct pisa_cmodule *m = &pisa_cmodules[i];
    if (m->base >= n)
      break;
    uint32_t k = m->table->n_counters;
    if (m->base + k > n)
      k = n - m->base;
    if (t->arrays[i])
      memcpy(out + m->base, t->arrays[i], k * sizeof *out);
  }
}

/* The thread's TLS goes away after this: keep a copy of its counters.
 * Other keys' destructors may still run instrumented code on the thread
 * (those of keys made after the runtime's run after it, in each round):
 * the key is set again so that this runs in glibc's next to last round of
 * destructors, and the thread stays one thread with one footprint.  Not
 * the last: the sanitizers end their thread state there, with keys made
 * before the runtime's (ThreadSanitizer then faults in this code). */
static void thread_exit(void *arg) {
  struct pisa_cthread *t = arg;
  static __thread unsigned round;
  if (++round < PTHREAD_DESTRUCTOR_ITERATIONS - 1 &&
      pthread_setspecific(exit_key, t) == 0)
    return;
  uint32_t n = pisa_counter_total();
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  uint64_t *copy = calloc(n ? n : 1, sizeof *copy);
  pthread_mutex_lock(&threads_lock);
  if (copy) {
    pisa_cthread_read(t, copy, n);
    t->final = copy;
    t->n_final = n;
  }
  t->exited = 1;
  pisa_hw_close(t);
  pisa_fp_thread_exit(t);
  pthread_mutex_unlock(&threads_lock);
  self = NULL;
  __pisa_counter_thread_on = 0;
  pisa_signals_restore(&saved_mask);
}

/* A module loaded while threads run (dlopen): each live thread calls the
 * runtime at its next entry, which records its array of the module, so an
 * unload finds that thread's counts (the flag is only read by its owner's
 * instrumented code; the store is a byte). */
static void recheck_threads(void) {
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  pthread_mutex_lock(&threads_lock);
  for (struct pisa_cthread *t = threads_head; t; t = t->next)
    if (!t->exited)
      __atomic_store_n(t->entry_flag, 0, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&threads_lock);
  pisa_signals_restore(&saved_mask);
}

static void mark_exiting(void) { atomic_store(&exiting, 1); }

/* atexit handlers run before any destructor of a loaded object. */
static void watch_exit(void) { atexit(mark_exiting); }
static pthread_once_t watch_exit_once = PTHREAD_ONCE_INIT;

__attribute__((visibility("default"))) void
__pisa_counter_register(const struct pisa_counter_module *m) {
  if (pisa_abi_mismatch(m->name, m->abi_version))
    return;
  pthread_once(&watch_exit_once, watch_exit);
  start_clock();
  pthread_mutex_lock(&modules_lock);
  uint32_t i = atomic_load_explicit(&n_modules, memory_order_relaxed);
  if (i == PISA_MAX_COUNTER_MODULES) {
    pthread_mutex_unlock(&modules_lock);
    PISA_ERR("too many counter-mode modules; %s is not analysed", m->name);
    return;
  }
  uint32_t base = atomic_load_explicit(&n_counters, memory_order_relaxed);
  pisa_cmodules[i] = (struct pisa_cmodule){.table = m, .base = base};
  atomic_store_explicit(&n_counters, base + m->n_counters,
                        memory_order_release);
  atomic_store_explicit(&n_modules, i + 1, memory_order_release);
  pthread_mutex_unlock(&modules_lock);
  recheck_threads();
}

/* ---- unloading: a copy of the module's tables and counters ---- */

/* Where a copy goes: with base NULL it only measures (used grows). */
struct arena {
  char *base;
  size_t used;
};

static void *put(struct arena *a, const void *src, size_t bytes) {
  char *dst = a->base ? a->base + a->used : NULL;
  if (dst && bytes)
    memcpy(dst, src, bytes);
  a->used += (bytes + 7) & ~(size_t)7;
  return dst;
}

static const char *put_string(struct arena *a, const char *s) {
  return s ? put(a, s, strlen(s) + 1) : NULL;
}

/* Copies m into a (or measures it), every string and array it points to
 * included; the copy has no counters function: the module is gone. */
static struct pisa_counter_module *
copy_table(struct arena *a, const struct pisa_counter_module *m) {
  struct pisa_counter_module *c = put(a, m, sizeof *m);
  struct pisa_counter_function *fns =
      put(a, m->functions, m->n_functions * sizeof *m->functions);
  const char **calls = put(a, m->calls, m->n_calls * sizeof *m->calls);
  for (uint32_t f = 0; f < m->n_functions; f++) {
    const struct pisa_counter_function *fn = &m->functions[f];
    const char *name = put_string(a, fn->name);
    const char *display = put_string(a, fn->display);
    const char *file = put_string(a, fn->file);
    if (fns) {
      fns[f].name = name;
      fns[f].display = display;
      fns[f].file = file;
    }
  }
  for (uint32_t k = 0; k < m->n_calls; k++) {
    const char *callee = put_string(a, m->calls[k]);
    if (calls)
      calls[k] = callee;
  }
  const char *name = put_string(a, m->name);
  const void *sets = put(a, m->sets, m->n_sets * sizeof *m->sets);
  const void *terms = put(a, m->terms, m->n_terms * sizeof *m->terms);
  const void *instrs = put(a, m->instrs, m->n_instrs * sizeof *m->instrs);
  const void *incs =
      put(a, m->increments, m->n_counters * sizeof *m->increments);
  if (c)
    *c = (struct pisa_counter_module){.abi_version = m->abi_version,
                                      .mode = m->mode,
                                      .n_functions = m->n_functions,
                                      .n_sets = m->n_sets,
                                      .n_terms = m->n_terms,
                                      .n_instrs = m->n_instrs,
                                      .n_calls = m->n_calls,
                                      .n_counters = m->n_counters,
                                      .name = name,
                                      .functions = fns,
                                      .sets = sets,
                                      .terms = terms,
                                      .instrs = instrs,
                                      .calls = calls,
                                      .increments = incs};
  return c;
}

/* Out of memory: the module is kept without functions or counts (the
 * result is marked incomplete). */
static const struct pisa_counter_module lost_module;

static const struct pisa_counter_module *
keep_table(const struct pisa_counter_module *m) {
  struct arena a = {0};
  copy_table(&a, m);
  if (!(a.base = malloc(a.used))) {
    pisa_out_of_memory();
    return &lost_module;
  }
  a.used = 0;
  return copy_table(&a, m);
}

/* Every live thread's counters of module i, into memory of the runtime's. */
static void keep_counters(uint32_t i, uint32_t n_counters) {
  for (struct pisa_cthread *t = threads_head; t; t = t->next) {
    if (t->final || i >= t->n_arrays || !t->arrays[i])
      continue;
    uint64_t *copy = malloc((n_counters ? n_counters : 1) * sizeof *copy);
    if (copy)
      memcpy(copy, t->arrays[i], n_counters * sizeof *copy);
    else
      pisa_out_of_memory();
    t->arrays[i] = copy;
  }
}

/* The module's destructor.  At a dlclose (not at exit) its image and
 * thread-local storage are about to go: the calling thread records its
 * arrays (it may have called the module after its first entry), then the
 * counters and tables are copied under both locks, with signals blocked. */
__attribute__((visibility("default"))) void
__pisa_counter_unregister(const struct pisa_counter_module *m) {
  if (atomic_load(&exiting))
    return;
  int saved = errno;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  pthread_mutex_lock(&modules_lock);
  pthread_mutex_lock(&threads_lock);
  if (self)
    record_arrays(self, pisa_cmodule_count());
  uint32_t n = pisa_cmodule_count();
  for (uint32_t i = 0; i < n; i++)
    if (pisa_cmodules[i].table == m) {
      keep_counters(i, m->n_counters);
      pisa_cmodules[i].table = keep_table(m);
      pisa_fp_module_unloaded(i);
    }
  pthread_mutex_unlock(&threads_lock);
  pthread_mutex_unlock(&modules_lock);
  pisa_signals_restore(&saved_mask);
  errno = saved;
}
