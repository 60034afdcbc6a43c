/* thread.c: per-thread buffers and analysis state.  A thread gets its state
 * at its first record (the slow path of the instrumented code) and decodes
 * its own buffer when it fills; its only lock is its own, taken once per
 * buffer, so threads never wait for each other.  At thread exit the rest is
 * decoded; at process exit the writer drains threads still running
 * (thread pools, a worker that called exit) and freezes their metrics. */
#include "exit_status.h"
#include "names.h"
#include "objects.h"
#include "status.h"
#include "threads.h"
#include "workers.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PISA_BUFFER_WORDS (UINT64_C(1) << 14)

/* The instrumented code's cursor and limit; NULL until the first refill. */
__attribute__((
    visibility("default"),
    tls_model("initial-exec"))) __thread struct pisa_tls_buffer __pisa_buf;

/* A thread's state and what only this file needs: the lock that the owner
 * (refill, exit) and the exit-time writer take around decoding, and the
 * first word of the buffer not decoded yet (the writer decodes a running
 * thread's committed words without moving its cursor).  Above the limit
 * the buffer has three times as many words again: the reserve of a signal
 * handler's records (handler_refill), never touched otherwise. */
struct thread_slot {
  struct pisa_thread t; /* first: a pisa_thread * is a thread_slot * */
  pthread_mutex_t lock;
  uint64_t *decoded;
  int frozen; /* the result was built: later words are dropped */
};

static __thread struct pisa_thread *self;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pisa_thread *threads_head, **threads_tail = &threads_head;
/* Creation numbers: the pthread_create wrapper (creation.c) hands them out
 * in call order (main is 0), so threads are listed in creation order
 * whichever runs first; threads it did not start get theirs at their first
 * record. */
static uint32_t next_creation = 1;
static __thread uint32_t creation_plus1; /* pisa_thread_started */
static int threads_frozen;               /* under threads_lock */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Where records go when no memory is left: written, never read. */
static uint64_t scratch_buffer[UINT64_C(1) << 16];

/* The program's signal handlers running on this thread, innermost last
 * (handlers.c): the signal and the trampoline's frame. */
#define PISA_MAX_HANDLER_DEPTH 8
static __thread struct {
  int sig;
  char *frame;
} handlers_running[PISA_MAX_HANDLER_DEPTH];
static __thread unsigned handler_depth;
/* Handler records that found the reserve full, or no thread state yet
 * (they are dropped and the result marked incomplete). */
static _Atomic uint64_t handler_overflows;

static struct thread_slot *slot_of(struct pisa_thread *t) {
  return (struct thread_slot *)t;
}

PISA_HIDDEN struct pisa_thread *pisa_thread_self(void) { return self; }
PISA_HIDDEN struct pisa_thread *pisa_thread_list(void) { return threads_head; }
PISA_HIDDEN void pisa_threads_lock(void) { pthread_mutex_lock(&threads_lock); }
PISA_HIDDEN int pisa_threads_trylock(void) {
  return pthread_mutex_trylock(&threads_lock);
}
PISA_HIDDEN int pisa_threads_timedlock(unsigned seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += seconds;
  return pthread_mutex_timedlock(&threads_lock, &until);
}
PISA_HIDDEN void pisa_threads_unlock(void) {
  pthread_mutex_unlock(&threads_lock);
}

static void thread_exit(void *arg);

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0)
    PISA_ERR("cannot create the thread-exit key");
}

static void slot_init(struct thread_slot *s) {
  struct pisa_thread *t = &s->t;
  t->os_tid = (pid_t)syscall(SYS_gettid);
  t->tls = &__pisa_buf;
  t->block = UINT32_MAX;
  pthread_mutex_init(&s->lock, NULL);
  s->decoded = t->buffer;
}

/* The calling thread's creation number: 0 for the main thread, the one
 * pthread_create gave it, or (a thread created some other way) a new one. */
static uint32_t creation_number(void) {
  if (syscall(SYS_gettid) == getpid())
    return 0;
  if (creation_plus1)
    return creation_plus1 - 1;
  return pisa_new_creation_number();
}

/* Under threads_lock: links t into the list, ordered by creation number. */
static void list_insert(struct pisa_thread *t) {
  struct pisa_thread **at = &threads_head;
  while (*at && (*at)->index <= t->index)
    at = &(*at)->next;
  t->next = *at;
  *at = t;
  if (!t->next)
    threads_tail = &t->next;
}

static struct pisa_thread *thread_create(void) {
  pisa_config_init();
  pisa_watch_exit_status();
  struct thread_slot *s = calloc(1, sizeof *s);
  if (!s) {
    pisa_out_of_memory();
    return NULL;
  }
  slot_init(s);
  s->t.index = creation_number();
  pthread_once(&exit_key_once, make_exit_key);
  pthread_setspecific(exit_key, s);
  pthread_mutex_lock(&threads_lock);
  s->frozen = threads_frozen;
  list_insert(&s->t);
  pthread_mutex_unlock(&threads_lock);
  self = &s->t;
  pisa_objects_thread(self);
  return self;
}

PISA_HIDDEN uint32_t pisa_new_creation_number(void) {
  return __atomic_fetch_add(&next_creation, 1, __ATOMIC_RELAXED);
}

PISA_HIDDEN void pisa_thread_started(uint32_t creation) {
  creation_plus1 = creation + 1;
}

/* Decodes the words committed since the last drain, under the slot's lock.
 * The owner also empties its buffer; another thread (the exit-time writer)
 * leaves the cursor alone, as the owner may be writing behind it. */
static void drain_locked(struct thread_slot *s, int owner) {
  struct pisa_thread *t = &s->t;
  if (!t->buffer) /* none yet, or the thread exited (its TLS is gone) */
    return;
  uint64_t *cursor = __atomic_load_n(&t->tls->cursor, __ATOMIC_ACQUIRE);
  if (cursor >= s->decoded && cursor <= t->buffer + t->buffer_words) {
    if (pisa_config.active && !s->frozen && !pisa_memory_exhausted()) {
      pisa_decode(t, s->decoded, (size_t)(cursor - s->decoded));
      pisa_status_events((size_t)(cursor - s->decoded));
    }
    s->decoded = cursor;
  }
  if (owner) {
    s->decoded = t->buffer;
    __atomic_store_n(&t->tls->cursor, t->buffer, __ATOMIC_RELEASE);
  }
}

/* Drains t under its lock; with `busy_ok`, nothing when the lock is held
 * (by the runtime itself, further up this thread's stack, or by a
 * writer). */
static void drain(struct pisa_thread *t, int busy_ok) {
  struct thread_slot *s = slot_of(t);
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  if (busy_ok ? pthread_mutex_trylock(&s->lock) == 0
              : pthread_mutex_lock(&s->lock) == 0) {
    drain_locked(s, t == self);
    pisa_workers_wait(t);
    pthread_mutex_unlock(&s->lock);
  }
  pisa_signals_restore(&saved_mask);
}

PISA_HIDDEN void pisa_thread_drain(struct pisa_thread *t) { drain(t, 0); }

PISA_HIDDEN void pisa_thread_drain_unless_busy(struct pisa_thread *t) {
  drain(t, 1);
}

/* Under pisa_threads_lock: decodes what every thread committed and freezes
 * the metrics, so the result can be built while threads still run (their
 * later records are dropped).  No thread is interrupted by a signal while
 * it holds its own lock (signals are blocked there), so a fatal signal's
 * writer takes every lock too. */
PISA_HIDDEN void pisa_threads_freeze(void) {
  threads_frozen = 1;
  pisa_workers_inline(1);
  for (struct pisa_thread *t = threads_head; t; t = t->next) {
    struct thread_slot *s = slot_of(t);
    pthread_mutex_lock(&s->lock);
    drain_locked(s, 0);
    pisa_workers_wait(t);
    s->frozen = 1;
    pthread_mutex_unlock(&s->lock);
  }
}

PISA_HIDDEN int pisa_threads_frozen(void) { return threads_frozen; }

PISA_HIDDEN void pisa_threads_hold(void) {
  for (struct pisa_thread *t = threads_head; t; t = t->next) {
    struct thread_slot *s = slot_of(t);
    pthread_mutex_lock(&s->lock);
    drain_locked(s, 0);
    pisa_workers_wait(t);
  }
}

PISA_HIDDEN void pisa_threads_release(void) {
  for (struct pisa_thread *t = threads_head; t; t = t->next)
    pthread_mutex_unlock(&slot_of(t)->lock);
}

/* Undoes pisa_threads_freeze (an exec that failed), under the list lock. */
PISA_HIDDEN void pisa_threads_thaw(void) {
  threads_frozen = 0;
  pisa_workers_inline(0);
  for (struct pisa_thread *t = threads_head; t; t = t->next) {
    struct thread_slot *s = slot_of(t);
    pthread_mutex_lock(&s->lock);
    s->frozen = 0;
    pthread_mutex_unlock(&s->lock);
  }
}

/* The buffer: room for `words` (and at least PISA_BUFFER_WORDS) below the
 * limit, three times as much above it for a handler's records. */
#define PISA_BUFFER_PARTS 4
static int ensure_buffer(struct pisa_thread *t, uint64_t words) {
  uint64_t want = PISA_BUFFER_PARTS *
                  (words > PISA_BUFFER_WORDS ? words : PISA_BUFFER_WORDS);
  if (t->buffer && t->buffer_words >= want)
    return 0;
  uint64_t *b = realloc(t->buffer, want * sizeof *b);
  if (!b) {
    pisa_out_of_memory();
    return -1;
  }
  t->buffer = b;
  t->buffer_words = want;
  return 0;
}

/* The owner's buffer, drained and big enough for `words`, or NULL. */
static uint64_t *refill_own(struct thread_slot *s, uint64_t words) {
  struct pisa_thread *t = &s->t;
  uint64_t *start = NULL;
  pthread_mutex_lock(&s->lock);
  drain_locked(s, 1);
  if (ensure_buffer(t, words) == 0) {
    start = t->buffer;
    s->decoded = start;
    __atomic_store_n(&__pisa_buf.cursor, start, __ATOMIC_RELEASE);
    __pisa_buf.limit = start + t->buffer_words / PISA_BUFFER_PARTS;
  }
  pthread_mutex_unlock(&s->lock);
  return start;
}

PISA_HIDDEN void pisa_handler_enter(int sig, void *frame) {
  if (handler_depth < PISA_MAX_HANDLER_DEPTH) {
    handlers_running[handler_depth].sig = sig;
    handlers_running[handler_depth].frame = frame;
  }
  handler_depth++;
}

/* Leaving the outermost handler with records in the reserve: the limit
 * comes down to the cursor, so that the program's next block refills and
 * decodes them before other handlers can fill the reserve up. */
PISA_HIDDEN void pisa_handler_leave(void) {
  if (!handler_depth || --handler_depth || !self || !self->buffer)
    return;
  uint64_t *normal = self->buffer + self->buffer_words / PISA_BUFFER_PARTS;
  if (__pisa_buf.limit > normal && __pisa_buf.cursor < __pisa_buf.limit)
    __pisa_buf.limit = __pisa_buf.cursor;
}

/* Whether a program's handler runs below this frame: one entered, its
 * signal still blocked (mask: the thread's mask before the refill blocked
 * everything) and its frame above this one.  A handler left by siglongjmp
 * unblocks its signal; one left by longjmp on the same stack leaves frames
 * above it: such stale entries are dropped. */
static int in_handler(const sigset_t *mask) {
  char *here = __builtin_frame_address(0);
  unsigned n = handler_depth < PISA_MAX_HANDLER_DEPTH ? handler_depth
                                                      : PISA_MAX_HANDLER_DEPTH;
  while (n && !(sigismember(mask, handlers_running[n - 1].sig) == 1 &&
                here < handlers_running[n - 1].frame))
    n--;
  if (handler_depth <= PISA_MAX_HANDLER_DEPTH)
    handler_depth = n;
  return n > 0;
}

/* A refill inside a handler (which may have interrupted malloc): no lock,
 * no decoding, no allocation.  The records go on into the reserve above
 * the limit, in order, a chunk at a time; the first block of the program
 * after the handler returns refills outside it (pisa_handler_leave) and
 * decodes them.  When even the reserve is full its records are overwritten
 * from its start (they are dropped, and the result marked incomplete):
 * the cursor never leaves the buffer, which the interrupted code may be
 * writing to.  NULL without a buffer yet. */
#define PISA_HANDLER_CHUNK_WORDS 1024
static uint64_t *handler_refill(struct pisa_thread *t, uint64_t words) {
  uint64_t *cursor = __pisa_buf.cursor,
           *end = t ? t->buffer + t->buffer_words : NULL;
  if (!t || !t->buffer || cursor < t->buffer || cursor > end) {
    atomic_fetch_add_explicit(&handler_overflows, 1, memory_order_relaxed);
    return NULL;
  }
  if (words > (uint64_t)(end - cursor)) {
    atomic_fetch_add_explicit(&handler_overflows, 1, memory_order_relaxed);
    cursor = t->buffer + t->buffer_words / PISA_BUFFER_PARTS;
    if (words > (uint64_t)(end - cursor))
      return NULL;
  }
  uint64_t chunk =
      words > PISA_HANDLER_CHUNK_WORDS ? words : PISA_HANDLER_CHUNK_WORDS;
  __pisa_buf.cursor = cursor;
  __pisa_buf.limit = chunk < (uint64_t)(end - cursor) ? cursor + chunk : end;
  return cursor;
}

PISA_HIDDEN uint64_t pisa_handler_overflows(void) {
  return atomic_load_explicit(&handler_overflows, memory_order_relaxed);
}

/* The slow path of the instrumented code, also taken by instrumented
 * signal handlers: it runs with signals blocked, so a handler's records
 * never arrive while this thread decodes (holding its lock, maybe inside
 * malloc); they wait until it is done.  A handler that interrupted the
 * program elsewhere (maybe inside malloc) fills the reserve instead. */
__attribute__((visibility("default"))) uint64_t *
__pisa_buffer_refill(uint64_t words) {
  int saved_errno = errno;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  uint64_t *start;
  if (in_handler(&saved_mask)) {
    start = handler_refill(self, words);
  } else {
    struct pisa_thread *t = self ? self : thread_create();
    start = t ? refill_own(slot_of(t), words) : NULL;
  }
  if (!start) {
    start = scratch_buffer;
    __pisa_buf.cursor = start;
    __pisa_buf.limit = start + sizeof scratch_buffer / sizeof *scratch_buffer;
  }
  pisa_signals_restore(&saved_mask);
  errno = saved_errno;
  return start;
}

PISA_HIDDEN void pisa_deep_region_marker(const char *name, int end) {
  int saved_errno = errno;
  uint32_t region = name ? pisa_region_id(name) : UINT32_MAX;
  if (region != UINT32_MAX) {
    uint64_t *cur = __pisa_buf.cursor;
    if (!cur || cur == __pisa_buf.limit)
      cur = __pisa_buffer_refill(1);
    *cur = PISA_REC_BLOCK | PISA_REC_REGION | (uint64_t)region << 1 |
           (uint64_t)(end != 0);
    __atomic_store_n(&__pisa_buf.cursor, cur + 1, __ATOMIC_RELEASE);
  }
  errno = saved_errno;
}

/* Thread-exit destructor: analyse what is left.  Instrumented code that runs
 * after it (other destructors) refills and re-arms it. */
static void thread_exit(void *arg) {
  struct thread_slot *s = arg;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  pthread_mutex_lock(&s->lock);
  drain_locked(s, 1);
  s->t.exited = 1;
  free(s->t.buffer);
  s->t.buffer = s->decoded = NULL;
  s->t.buffer_words = 0;
  __pisa_buf.cursor = __pisa_buf.limit = NULL;
  pthread_mutex_unlock(&s->lock);
  pisa_signals_restore(&saved_mask);
}

/* In a fork child only the forking thread exists, and the work before the
 * fork belongs to the parent's result: start over from empty metrics. */
PISA_HIDDEN void pisa_threads_after_fork(void) {
  pthread_mutex_init(&threads_lock, NULL);
  pisa_workers_after_fork();
  threads_head = NULL;
  threads_tail = &threads_head;
  threads_frozen = 0;
  struct pisa_thread *t = self;
  if (!t)
    return;
  struct thread_slot *s = slot_of(t);
  uint64_t *buffer = t->buffer;
  size_t words = t->buffer_words;
  pisa_thread_free_metrics(t);
  memset(s, 0, sizeof *s);
  t->buffer = buffer;
  t->buffer_words = words;
  slot_init(s);
  t->index = 0; /* the main thread of the child */
  *threads_tail = t;
  threads_tail = &t->next;
  if (buffer)
    __pisa_buf.cursor = buffer;
}
