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

#include <semaphore.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PISA_BUFFER_WORDS (UINT64_C(1) << 14)

/* The instrumented code's cursor and limit; NULL until the first refill. */
__attribute__((
    visibility("default"),
    tls_model("initial-exec"))) __thread struct pisa_tls_buffer __pisa_buf;

/* A move of a thread's cursor from one piece of its buffer to another (a
 * signal handler starts, takes another chunk, or returns; see "Signal
 * handlers" below): the words of the piece being left end at `at`, the
 * next piece starts at `to` (NULL: a piece dropped, in the scratch
 * buffer). */
struct cursor_switch {
  uint64_t *at, *to;
};
#define PISA_SWITCHES 1024

/* A thread's state and what only this file needs: the lock that the owner
 * (refill, exit) and the exit-time writer take around decoding, and the
 * first word of the buffer not decoded yet (the writer decodes a running
 * thread's committed words without moving its cursor; NULL while the
 * piece being decoded was dropped).  Above the limit the buffer has three
 * times as many words again: the reserve, where the program's signal
 * handlers write their records.  The moves of the cursor between pieces
 * wait in a ring, logged by the owner and taken under the lock. */
struct thread_slot {
  struct pisa_thread t; /* first: a pisa_thread * is a thread_slot * */
  pthread_mutex_t lock;
  uint64_t *decoded;
  int frozen; /* the result was built: later words are dropped */
  struct cursor_switch switches[PISA_SWITCHES];
  unsigned switches_head, switches_tail; /* atomic: taken / logged */
  unsigned switch_seq;    /* atomic: odd while the owner moves its cursor */
  uint64_t *reserve_next; /* the reserve's first free chunk (owner only) */
  int drain_asked;        /* atomic: its handlers asked the drainer */
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
static struct pisa_thread *abandoned_threads; /* pisa_threads_after_fork */
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Where records go when no memory is left: written, never read. */
static uint64_t scratch_buffer[UINT64_C(1) << 16];

/* The program's signal handlers running on this thread, innermost last
 * (handlers.c): the signal, the trampoline's frame, whether the signal is
 * left unblocked in its handler (SA_NODEFER), the cursor and limit it
 * interrupted, and what became of its records: pending (none written yet:
 * its first write takes a chunk), logged (in chunks of the reserve;
 * `stopped`: dropped from when they filled it), dropped (in the scratch
 * buffer), and whether a drop was counted. */
#define PISA_MAX_HANDLER_DEPTH 8
struct handler_level {
  int sig, nodefer;
  char *frame;
  uint64_t *cursor, *limit;
  unsigned pending : 1, logged : 1, stopped : 1, dropped : 1, counted : 1;
};
static __thread struct handler_level handlers_running[PISA_MAX_HANDLER_DEPTH];
static __thread unsigned handler_depth;
/* The log's switches held back for the running logged handlers (their
 * stop and their return). */
static __thread unsigned held_switches;
/* Set while the buffer is reallocated: a handler that a sanitizer runs
 * late, inside realloc, must not write to it. */
static __thread int buffer_moving;
/* Handlers whose records were dropped, in part or whole: the reserve or
 * the log was full, the thread had no buffer yet, or the handler
 * interrupted a dropped one (the result is marked incomplete). */
static _Atomic uint64_t handler_overflows;

static struct thread_slot *slot_of(struct pisa_thread *t) {
  return (struct thread_slot *)t;
}

/* The buffer's parts: below the limit, the program's; above it, three
 * times as many words again, the reserve of its signal handlers. */
#define PISA_BUFFER_PARTS 4
static uint64_t *reserve_of(const struct pisa_thread *t) {
  return t->buffer ? t->buffer + t->buffer_words / PISA_BUFFER_PARTS : NULL;
}

static uint64_t *buffer_end(const struct pisa_thread *t) {
  return t->buffer + t->buffer_words;
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
  s->reserve_next = reserve_of(t);
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

/* The owner, its switches taken: the reserve is free again from its start
 * (unless a handler that a sanitizer ran late, inside this drain, logged
 * more: the next drain takes them). */
static void reserve_reset(struct thread_slot *s) {
  if (s->switches_head == __atomic_load_n(&s->switches_tail, __ATOMIC_ACQUIRE))
    s->reserve_next = reserve_of(&s->t);
}

/* Whether a cursor is in the thread's buffer (not the scratch buffer). */
static int in_buffer(const struct pisa_thread *t, const uint64_t *p) {
  return t->buffer && p >= t->buffer && p <= buffer_end(t);
}

/* Decodes [from, to), a piece of the thread's buffer. */
static void decode_span(struct thread_slot *s, const uint64_t *from,
                        const uint64_t *to) {
  if (in_buffer(&s->t, from) && in_buffer(&s->t, to) && to > from &&
      pisa_config.active && !s->frozen && !pisa_memory_exhausted()) {
    pisa_decode(&s->t, from, (size_t)(to - from));
    pisa_status_events((size_t)(to - from));
  }
}

/* The thread's logged switches and its cursor, as one consistent pair;
 * 0 when its handlers move it too fast to tell (four tries: the words
 * wait for the next drain). */
static int published(struct thread_slot *s, unsigned *tail, uint64_t **cursor) {
  for (int tries = 0; tries < 4; tries++) {
    unsigned seq = __atomic_load_n(&s->switch_seq, __ATOMIC_SEQ_CST);
    if (seq & 1)
      continue;
    *tail = __atomic_load_n(&s->switches_tail, __ATOMIC_ACQUIRE);
    *cursor = __atomic_load_n(&s->t.tls->cursor, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&s->switch_seq, __ATOMIC_SEQ_CST) == seq)
      return 1;
  }
  return 0;
}

/* Decodes the words committed since the last drain, under the slot's lock:
 * each piece to the switch that ends it, in the order they were written,
 * then the current piece to the cursor.  The owner also empties its
 * buffer (it takes switches again until none came meanwhile: a sanitizer
 * may run a handler late, inside this decoding); another thread (a
 * snapshot, the exit-time writer) leaves the cursor alone, as the owner
 * may be writing behind it. */
static void drain_locked(struct thread_slot *s, int owner) {
  struct pisa_thread *t = &s->t;
  if (!t->buffer) /* none yet, or the thread exited (its TLS is gone) */
    return;
  unsigned tail;
  uint64_t *cursor;
  do {
    if (!published(s, &tail, &cursor))
      break;
    for (unsigned head = s->switches_head; head != tail;) {
      const struct cursor_switch *w = &s->switches[head % PISA_SWITCHES];
      decode_span(s, s->decoded, w->at);
      s->decoded = w->to;
      __atomic_store_n(&s->switches_head, ++head, __ATOMIC_RELEASE);
    }
    if (s->decoded && in_buffer(t, cursor) && cursor >= s->decoded) {
      decode_span(s, s->decoded, cursor);
      s->decoded = cursor;
    }
  } while (owner &&
           tail != __atomic_load_n(&s->switches_tail, __ATOMIC_ACQUIRE));
  if (owner) {
    s->decoded = t->buffer;
    __atomic_store_n(&t->tls->cursor, t->buffer, __ATOMIC_RELEASE);
    reserve_reset(s);
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
static int ensure_buffer(struct pisa_thread *t, uint64_t words) {
  uint64_t want = PISA_BUFFER_PARTS *
                  (words > PISA_BUFFER_WORDS ? words : PISA_BUFFER_WORDS);
  if (t->buffer && t->buffer_words >= want)
    return 0;
  buffer_moving = 1; /* no handler takes a chunk of it meanwhile */
  uint64_t *b = realloc(t->buffer, want * sizeof *b);
  if (b) {
    t->buffer = b;
    t->buffer_words = want;
  }
  buffer_moving = 0;
  if (!b)
    pisa_out_of_memory();
  return b ? 0 : -1;
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
    reserve_reset(s);
    __atomic_store_n(&__pisa_buf.cursor, start, __ATOMIC_RELEASE);
    __pisa_buf.limit = start + t->buffer_words / PISA_BUFFER_PARTS;
  }
  pthread_mutex_unlock(&s->lock);
  return start;
}

/* Signal handlers.  A program's handler may interrupt one of its blocks
 * after the block took the cursor and before it published the words it
 * wrote there, and it may interrupt malloc.  So a handler writes its
 * records to chunks of the reserve: at its first write the cursor moves
 * to a free chunk (entry lowers the limit to the cursor, so that the
 * first write refills), on return it comes back to the place the handler
 * interrupted.
 * Each move is logged (the thread's switches), so that a drain decodes
 * the pieces in the order they were written: the handler's records where
 * it interrupted the program (as if it had run between two blocks), a
 * nested handler's inside its outer one's, and after a handler left by a
 * jump, the records written on in its chunk after its own.  A refill
 * inside a handler takes no lock, decodes nothing and allocates nothing.
 * When the reserve or the log is full, or the handler interrupted a
 * dropped one, its records go to the scratch buffer: they are dropped,
 * counted, and the result is marked incomplete.  Enter and leave run with
 * signals blocked, so that a nested handler never sees a move half done. */

/* A chunk of the reserve for `words` from `from` (at least
 * PISA_HANDLER_CHUNK_WORDS: a handler refills at the end of each, so that
 * after a jump out of it the program, writing on in its chunk, refills
 * outside any handler and decodes the reserve within a chunk), and its
 * limit; NULL when the reserve is full. */
#define PISA_HANDLER_CHUNK_WORDS 256
static uint64_t chunk_words(uint64_t words) {
  return words > PISA_HANDLER_CHUNK_WORDS ? words : PISA_HANDLER_CHUNK_WORDS;
}

static uint64_t *take_chunk(struct thread_slot *s, uint64_t *from,
                            uint64_t words, uint64_t **limit) {
  uint64_t *end = buffer_end(&s->t);
  if (buffer_moving || !from || words > (uint64_t)(end - from))
    return NULL;
  uint64_t chunk = chunk_words(words);
  *limit = chunk < (uint64_t)(end - from) ? from + chunk : end;
  s->reserve_next = *limit;
  return from;
}

/* Moves the cursor to `cursor` with `limit`; with `log`, logs the switch
 * from `at` to `to` first (the pair is consistent to other threads: the
 * sequence number is odd meanwhile).  s: NULL without thread state. */
static void move_cursor(struct thread_slot *s, int log, uint64_t *at,
                        uint64_t *to, uint64_t *cursor, uint64_t *limit) {
  if (s)
    __atomic_fetch_add(&s->switch_seq, 1, __ATOMIC_SEQ_CST);
  if (s && log) {
    s->switches[s->switches_tail % PISA_SWITCHES] =
        (struct cursor_switch){at, to};
    __atomic_store_n(&s->switches_tail, s->switches_tail + 1, __ATOMIC_RELEASE);
  }
  __pisa_buf.limit = limit;
  __atomic_store_n(&__pisa_buf.cursor, cursor, __ATOMIC_SEQ_CST);
  if (s)
    __atomic_fetch_add(&s->switch_seq, 1, __ATOMIC_SEQ_CST);
}

/* Whether the log has room for one more switch beyond those the running
 * handlers hold back (their stop and their return, two each). */
static int log_room(struct thread_slot *s, unsigned more) {
  unsigned used =
      s->switches_tail - __atomic_load_n(&s->switches_head, __ATOMIC_ACQUIRE);
  return PISA_SWITCHES - used >= held_switches + more;
}

static void count_dropped(unsigned d) {
  if (!handlers_running[d].counted) {
    handlers_running[d].counted = 1;
    atomic_fetch_add_explicit(&handler_overflows, 1, memory_order_relaxed);
  }
}

/* Lets go of handler d, returned or left by a jump: the switches it held
 * back. */
static void handler_done(unsigned d) {
  if (handlers_running[d].logged)
    held_switches -= handlers_running[d].stopped ? 1 : 2;
  else if (handlers_running[d].dropped && !handlers_running[d].counted &&
           __pisa_buf.cursor != scratch_buffer)
    count_dropped(d);
  handlers_running[d].pending = handlers_running[d].logged = 0;
  handlers_running[d].dropped = 0;
}

/* The drainer: a thread of the runtime that decodes, at its handlers'
 * request, a thread whose reserve or log is a quarter full, for a thread
 * that may not refill for long (waiting in pthread_join, read, poll) while
 * its handlers run often.  The handler's next first write then finds every
 * piece decoded and takes the reserve again from its start. */
static sem_t drain_requests;
static int drainer_running; /* atomic */

static void ask_drainer(struct thread_slot *s) {
  uint64_t *reserve = reserve_of(&s->t);
  size_t room = (size_t)(buffer_end(&s->t) - reserve),
         logged = s->switches_tail -
                  __atomic_load_n(&s->switches_head, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&drainer_running, __ATOMIC_ACQUIRE) &&
      ((size_t)(s->reserve_next - reserve) > room / 4 ||
       logged > PISA_SWITCHES / 4) &&
      !__atomic_exchange_n(&s->drain_asked, 1, __ATOMIC_ACQ_REL))
    sem_post(&drain_requests); /* async-signal-safe */
}

static void *drainer(void *arg) {
  (void)arg;
  for (;;) {
    while (sem_wait(&drain_requests) != 0)
      ;
    pisa_threads_lock();
    for (struct pisa_thread *t = threads_head; t; t = t->next) {
      struct thread_slot *s = slot_of(t);
      if (__atomic_exchange_n(&s->drain_asked, 0, __ATOMIC_ACQ_REL)) {
        /* Decoded words are not read again: the analysis of them need not
         * be waited for.  Again while the thread's handlers logged more
         * meanwhile (a few times): a handler takes the reserve from its
         * start only when every piece logged was decoded. */
        pthread_mutex_lock(&s->lock);
        for (int pass = 0; pass < 8; pass++) {
          drain_locked(s, 0);
          if (s->switches_head ==
              __atomic_load_n(&s->switches_tail, __ATOMIC_ACQUIRE))
            break;
        }
        pthread_mutex_unlock(&s->lock);
      }
    }
    pisa_threads_unlock();
  }
  return NULL;
}

PISA_HIDDEN void pisa_drainer_start(void) {
  __atomic_store_n(&drainer_running, 0, __ATOMIC_RELEASE);
  if (sem_init(&drain_requests, 0, 0) != 0)
    return;
  pisa_runtime_thread(drainer, "the reserve drainer");
  __atomic_store_n(&drainer_running, 1, __ATOMIC_RELEASE);
}

PISA_HIDDEN void pisa_handler_enter(int sig, int nodefer, void *frame) {
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  unsigned d = handler_depth++;
  if (d < PISA_MAX_HANDLER_DEPTH) {
    struct handler_level *h = &handlers_running[d];
    *h = (struct handler_level){.sig = sig,
                                .nodefer = nodefer,
                                .frame = frame,
                                .cursor = __pisa_buf.cursor,
                                .limit = __pisa_buf.limit};
    struct thread_slot *s = self ? slot_of(self) : NULL;
    if (s && in_buffer(&s->t, h->cursor)) {
      /* No room from the cursor on: its first write refills and takes a
       * chunk (a handler that writes nothing takes none). */
      h->pending = 1;
      __pisa_buf.limit = h->cursor;
    } else {
      h->dropped = 1;
      move_cursor(s, 0, NULL, NULL, scratch_buffer,
                  scratch_buffer + PISA_HANDLER_CHUNK_WORDS);
    }
  }
  pisa_signals_restore(&saved_mask);
}

/* Handler entries at or below `frame` on the stack (deeper handlers left
 * by a jump, then the one returning) are let go of. */
PISA_HIDDEN void pisa_handler_leave(void *frame) {
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  while (handler_depth) {
    unsigned d = --handler_depth;
    if (d >= PISA_MAX_HANDLER_DEPTH)
      continue;
    struct handler_level *h = &handlers_running[d];
    if ((char *)frame < h->frame) { /* an outer one: not ours after all */
      handler_depth++;
      break;
    }
    int ours = h->frame == frame, logged = h->logged;
    handler_done(d);
    if (!ours)
      continue;
    struct thread_slot *s = self ? slot_of(self) : NULL;
    /* The writer it interrupted goes on as before: its records are decoded
     * at its next refill, or by the drainer when they fill a quarter of
     * the reserve (a refill at every return would decode a few words at a
     * time, dearer than the handler's period at a fast timer). */
    move_cursor(s, logged, __pisa_buf.cursor, h->cursor, h->cursor, h->limit);
    if (logged && !d)
      ask_drainer(s);
    break;
  }
  pisa_signals_restore(&saved_mask);
}

/* Whether a program's handler runs below this frame: one entered, its
 * signal still blocked (mask: the thread's mask before the refill blocked
 * everything) unless the handler leaves it unblocked, and its frame above
 * this one.  A handler left by siglongjmp unblocks its signal; one left by
 * longjmp on the same stack leaves frames above it: such stale entries are
 * let go of (the records written on after the jump stay where they are,
 * in order; a refill outside any handler then decodes them). */
static unsigned in_handler(const sigset_t *mask) {
  char *here = __builtin_frame_address(0);
  unsigned n = handler_depth < PISA_MAX_HANDLER_DEPTH ? handler_depth
                                                      : PISA_MAX_HANDLER_DEPTH;
  unsigned tracked = n;
  while (n && !((handlers_running[n - 1].nodefer ||
                 sigismember(mask, handlers_running[n - 1].sig) == 1) &&
                here < handlers_running[n - 1].frame))
    handler_done(--n);
  /* Untracked deeper ones go with the innermost tracked one. */
  if (n < tracked || handler_depth <= PISA_MAX_HANDLER_DEPTH)
    handler_depth = n;
  return n;
}

/* A refill inside a handler (d: the innermost).  A logged handler gets
 * the next chunk, or, the reserve or the log full, stops there: its
 * records are dropped from then on.  A dropped one fills a chunk of the
 * scratch buffer again. */
static uint64_t *handler_refill(unsigned d, uint64_t words) {
  struct handler_level *h = &handlers_running[d];
  struct thread_slot *s = self ? slot_of(self) : NULL;
  uint64_t *cursor = __pisa_buf.cursor, *limit, *chunk = NULL;
  if (h->pending) { /* its first write */
    h->pending = 0;
    if (s && !d && h->cursor < reserve_of(&s->t) &&
        __atomic_load_n(&s->switches_head, __ATOMIC_ACQUIRE) ==
            s->switches_tail)
      /* The program is in its own part and every piece logged was decoded
       * (by the drainer): the reserve is free again. */
      s->reserve_next = reserve_of(&s->t);
    if (s && log_room(s, 3))
      chunk = take_chunk(s, s->reserve_next, words, &limit);
    if (chunk) {
      h->logged = 1;
      held_switches += 2;
      move_cursor(s, 1, h->cursor, chunk, chunk, limit);
      return chunk;
    }
    h->dropped = 1;
  }
  if (h->logged && !h->stopped) {
    /* Its chunk is the reserve's last: it goes on in place. */
    if (__pisa_buf.limit == s->reserve_next &&
        take_chunk(s, cursor, words, &limit)) {
      __pisa_buf.limit = limit;
      return cursor;
    }
    if (log_room(s, 1) &&
        (chunk = take_chunk(s, s->reserve_next, words, &limit))) {
      move_cursor(s, 1, cursor, chunk, chunk, limit);
      return chunk;
    }
  }
  count_dropped(d);
  int stop = h->logged && !h->stopped;
  if (stop) {
    h->stopped = 1;
    held_switches--;
  }
  move_cursor(s, stop, cursor, NULL, scratch_buffer,
              scratch_buffer + chunk_words(words));
  return scratch_buffer;
}

PISA_HIDDEN uint64_t pisa_handler_overflows(void) {
  return atomic_load_explicit(&handler_overflows, memory_order_relaxed);
}

/* The slow path of the instrumented code, also taken by instrumented
 * signal handlers: it runs with signals blocked, so a handler's records
 * never arrive while this thread decodes (holding its lock, maybe inside
 * malloc); they wait until it is done.  A handler that interrupted the
 * program elsewhere (maybe inside malloc) comes here at its first write
 * and at the end of each of its chunks of the reserve. */
__attribute__((visibility("default"))) uint64_t *
__pisa_buffer_refill(uint64_t words) {
  int saved_errno = errno;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  uint64_t *start;
  unsigned depth = in_handler(&saved_mask);
  if (depth && depth <= PISA_MAX_HANDLER_DEPTH &&
      words <= sizeof scratch_buffer / sizeof *scratch_buffer) {
    start = handler_refill(depth - 1, words);
  } else if (depth) {
    start = NULL;
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
    if (!cur || cur >= __pisa_buf.limit)
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
  uint64_t *buffer = s->t.buffer; /* freed once no handler can see it */
  s->t.buffer = s->decoded = NULL;
  s->t.buffer_words = 0;
  __pisa_buf.cursor = __pisa_buf.limit = NULL;
  free(buffer);
  pthread_mutex_unlock(&s->lock);
  pisa_signals_restore(&saved_mask);
}

/* In a fork child only the forking thread exists, and the work before the
 * fork belongs to the parent's result: start over from empty metrics. */
PISA_HIDDEN void pisa_threads_after_fork(void) {
  pthread_mutex_init(&threads_lock, NULL);
  pisa_workers_after_fork();
  /* The other threads' slots stay as they are (another thread may have
   * been updating one at the fork) and reachable (their memory is the
   * parent's, copy on write); nothing reads them again. */
  for (struct pisa_thread *o = threads_head, *next; o; o = next) {
    next = o->next;
    if (o != self) {
      o->next = abandoned_threads;
      abandoned_threads = o;
    }
  }
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
  /* Forked inside a handler: its records and the switches it held back
   * belong to the parent; it returns to the child's empty buffer. */
  held_switches = 0;
  for (unsigned d = 0; d < handler_depth && d < PISA_MAX_HANDLER_DEPTH; d++) {
    handlers_running[d].logged = handlers_running[d].stopped = 0;
    handlers_running[d].cursor = handlers_running[d].limit = buffer;
  }
  t->buffer = buffer;
  t->buffer_words = words;
  slot_init(s);
  t->index = 0; /* the main thread of the child */
  *threads_tail = t;
  threads_tail = &t->next;
  if (buffer)
    __pisa_buf.cursor = buffer;
}
