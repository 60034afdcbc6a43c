/* thread.c: per-thread buffers and analysis state.  A thread gets its state
 * at its first record (the slow path of the instrumented code), drains its
 * buffer into its own metrics without locks, and drains the rest when it
 * exits; states stay listed until the process writes its result. */
#include "runtime.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PISA_BUFFER_WORDS (UINT64_C(1) << 14)

/* The instrumented code's cursor and limit; NULL until the first refill. */
__attribute__((
    visibility("default"),
    tls_model("initial-exec"))) __thread struct pisa_tls_buffer __pisa_buf;

static __thread struct pisa_thread *self;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pisa_thread *threads_head, **threads_tail = &threads_head;
static uint32_t threads_created;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Where records go when no memory is left: written, never read. */
static uint64_t scratch_buffer[UINT64_C(1) << 16];

PISA_HIDDEN struct pisa_thread *pisa_thread_self(void) { return self; }
PISA_HIDDEN struct pisa_thread *pisa_thread_list(void) { return threads_head; }
PISA_HIDDEN void pisa_threads_lock(void) { pthread_mutex_lock(&threads_lock); }
PISA_HIDDEN void pisa_threads_unlock(void) {
  pthread_mutex_unlock(&threads_lock);
}

static void thread_exit(void *arg);

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0)
    PISA_ERR("cannot create the thread-exit key");
}

static struct pisa_thread *thread_create(void) {
  pisa_config_init();
  struct pisa_thread *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->os_tid = (pid_t)syscall(SYS_gettid);
  t->tls = &__pisa_buf;
  t->block = UINT32_MAX;
  pthread_once(&exit_key_once, make_exit_key);
  pthread_setspecific(exit_key, t);
  pthread_mutex_lock(&threads_lock);
  t->index = threads_created++;
  *threads_tail = t;
  threads_tail = &t->next;
  pthread_mutex_unlock(&threads_lock);
  self = t;
  return t;
}

/* Decodes the words the thread has committed and empties its buffer. */
PISA_HIDDEN void pisa_thread_drain(struct pisa_thread *t) {
  if (!t->buffer) /* none yet, or the thread exited (its TLS is gone) */
    return;
  uint64_t *cursor = __atomic_load_n(&t->tls->cursor, __ATOMIC_ACQUIRE);
  if (cursor < t->buffer || cursor > t->buffer + t->buffer_words)
    return;
  if (pisa_config.active)
    pisa_decode(t, t->buffer, (size_t)(cursor - t->buffer));
  __atomic_store_n(&t->tls->cursor, t->buffer, __ATOMIC_RELEASE);
}

static int ensure_buffer(struct pisa_thread *t, uint64_t words) {
  uint64_t want = words > PISA_BUFFER_WORDS ? words : PISA_BUFFER_WORDS;
  if (t->buffer && t->buffer_words >= want)
    return 0;
  uint64_t *b = realloc(t->buffer, want * sizeof *b);
  if (!b)
    return -1;
  t->buffer = b;
  t->buffer_words = want;
  return 0;
}

__attribute__((visibility("default"))) uint64_t *
__pisa_buffer_refill(uint64_t words) {
  int saved_errno = errno;
  struct pisa_thread *t = self ? self : thread_create();
  uint64_t *start = scratch_buffer;
  uint64_t capacity = sizeof scratch_buffer / sizeof *scratch_buffer;
  if (t) {
    pisa_thread_drain(t);
    if (ensure_buffer(t, words) == 0) {
      start = t->buffer;
      capacity = t->buffer_words;
    }
  }
  __pisa_buf.cursor = start;
  __pisa_buf.limit = start + capacity;
  errno = saved_errno;
  return start;
}

/* Thread-exit destructor: analyse what is left.  Instrumented code that runs
 * after it (other destructors) refills and re-arms it. */
static void thread_exit(void *arg) {
  struct pisa_thread *t = arg;
  pthread_mutex_lock(&threads_lock); /* the exit-time writer drains too */
  pisa_thread_drain(t);
  t->exited = 1;
  free(t->buffer);
  t->buffer = NULL;
  t->buffer_words = 0;
  __pisa_buf.cursor = __pisa_buf.limit = NULL;
  pthread_mutex_unlock(&threads_lock);
}

/* In a fork child only the forking thread exists, and the work before the
 * fork belongs to the parent's result: start over from empty metrics. */
PISA_HIDDEN void pisa_threads_after_fork(void) {
  pthread_mutex_init(&threads_lock, NULL);
  threads_head = NULL;
  threads_tail = &threads_head;
  threads_created = 0;
  struct pisa_thread *t = self;
  if (!t)
    return;
  uint64_t *buffer = t->buffer;
  size_t words = t->buffer_words;
  pisa_thread_free_metrics(t);
  memset(t, 0, sizeof *t);
  t->buffer = buffer;
  t->buffer_words = words;
  t->os_tid = (pid_t)syscall(SYS_gettid);
  t->tls = &__pisa_buf;
  t->block = UINT32_MAX;
  t->index = threads_created++;
  *threads_tail = t;
  threads_tail = &t->next;
  if (buffer)
    __pisa_buf.cursor = buffer;
}
