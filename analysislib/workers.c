/* workers.c: analysis threads (workers.h).  Each consumer group of
 * consume.c runs on one worker, and a worker takes its jobs in the order
 * they were queued, so every group sees each thread's batches in program
 * order, alone: the results are those of a run without workers.  A thread
 * decodes into one of its batch slots and queues it to every worker; the
 * slot is free again when all of them are done with it. */
#include "workers.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>

struct job {
  struct pisa_thread *t;
  unsigned slot;
};

struct worker {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct job *jobs; /* a ring: count jobs from head */
  size_t head, count, capacity;
  unsigned groups; /* the consumer groups it runs, a bit each */
};

static struct worker workers[PISA_CONSUME_GROUPS];
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static int start_tried;    /* under start_lock */
static unsigned n_workers; /* set once, before start_tried */
/* While the result is built, batches are consumed where they are decoded
 * (after the thread's queued ones): the writer needs no worker. */
static int inline_mode;
/* Broadcast when a slot becomes free, for the threads that wait for one. */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

/* A worker is done with slot s: a thread waiting for it is woken (the
 * count and the waiters are read in this order, and set in the other by
 * wait_slot, so one of the two sees the other's). */
static void release(struct pisa_batch_slot *s) {
  if (__atomic_sub_fetch(&s->pending, 1, __ATOMIC_SEQ_CST) ||
      !__atomic_load_n(&s->waiters, __ATOMIC_SEQ_CST))
    return;
  pthread_mutex_lock(&done_lock);
  pthread_cond_broadcast(&done_cond);
  pthread_mutex_unlock(&done_lock);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    while (!w->count)
      pthread_cond_wait(&w->wake, &w->lock);
    struct job j = w->jobs[w->head];
    w->head = (w->head + 1) % w->capacity;
    w->count--;
    pthread_mutex_unlock(&w->lock);
    struct pisa_batch_slot *s = &j.t->slots[j.slot];
    for (unsigned g = 0; g < PISA_CONSUME_GROUPS; g++)
      if (w->groups & (1u << g))
        pisa_consume_group(j.t, &s->batch, g);
    release(s);
  }
  return NULL;
}

/* The enabled groups dealt to `want` workers in turn. */
static void deal_groups(unsigned want) {
  unsigned groups = pisa_consume_groups(), k = 0;
  for (unsigned g = 0; g < PISA_CONSUME_GROUPS; g++)
    if (groups & (1u << g))
      workers[k++ % want].groups |= 1u << g;
}

/* Up to one worker per enabled group, started with every signal blocked
 * (the program's signals are for its own threads); none unless all
 * start. */
static unsigned start_workers(void) {
  unsigned want = pisa_config.analysis_threads,
           groups = (unsigned)__builtin_popcount(pisa_consume_groups());
  sigset_t all, old;
  want = want < groups ? want : groups;
  if (!want)
    return 0;
  deal_groups(want);
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  unsigned started = 0;
  for (pthread_t id; started < want; started++) {
    struct worker *w = &workers[started];
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&id, NULL, worker_main, w) != 0)
      break;
    pthread_detach(id);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (started == want)
    return want;
  PISA_ERR("could start %u of %u analysis threads; analysing in the "
           "program's threads",
           started, want);
  __atomic_store_n(&inline_mode, 1, __ATOMIC_RELEASE);
  return 0;
}

static unsigned workers_running(void) {
  if (!pisa_config.analysis_threads)
    return 0;
  pthread_mutex_lock(&start_lock);
  if (!start_tried) {
    n_workers = start_workers();
    start_tried = 1;
  }
  pthread_mutex_unlock(&start_lock);
  return n_workers;
}

static unsigned pending(struct pisa_thread *t, unsigned slot) {
  return __atomic_load_n(&t->slots[slot].pending, __ATOMIC_ACQUIRE);
}

/* Waits until no worker reads slot `slot` of t: on the condition while
 * the program runs, by polling while the result is built (perhaps in a
 * signal handler, where no lock may be taken). */
static void wait_slot(struct pisa_thread *t, unsigned slot) {
  const struct timespec pause = {0, 50000};
  if (!pending(t, slot))
    return;
  if (__atomic_load_n(&inline_mode, __ATOMIC_ACQUIRE)) {
    while (pending(t, slot))
      nanosleep(&pause, NULL);
    return;
  }
  struct pisa_batch_slot *s = &t->slots[slot];
  pthread_mutex_lock(&done_lock);
  __atomic_add_fetch(&s->waiters, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&s->pending, __ATOMIC_SEQ_CST))
    pthread_cond_wait(&done_cond, &done_lock);
  __atomic_sub_fetch(&s->waiters, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&done_lock);
}

PISA_HIDDEN void pisa_workers_wait(struct pisa_thread *t) {
  for (unsigned s = 0; s < PISA_BATCH_SLOTS; s++)
    wait_slot(t, s);
}

PISA_HIDDEN unsigned pisa_workers_free_slot(struct pisa_thread *t) {
  if (!workers_running() || __atomic_load_n(&inline_mode, __ATOMIC_ACQUIRE)) {
    pisa_workers_wait(t); /* slots handed to workers before */
    return 0;             /* analysed here: one slot is enough */
  }
  unsigned slot = t->next_slot;
  t->next_slot = (slot + 1) % PISA_BATCH_SLOTS;
  /* Full: the thread sleeps until half the slots are free (they free in
   * the order they were filled), not woken for each batch. */
  if (pending(t, slot))
    wait_slot(t, (slot + PISA_BATCH_SLOTS / 2 - 1) % PISA_BATCH_SLOTS);
  wait_slot(t, slot);
  return slot;
}

/* Appends a job to w's ring; -1 when the ring cannot grow. */
static int push(struct worker *w, struct job j) {
  pthread_mutex_lock(&w->lock);
  if (w->count == w->capacity) {
    size_t cap = w->capacity ? 2 * w->capacity : 64;
    struct job *ring = malloc(cap * sizeof *ring);
    if (!ring) {
      pthread_mutex_unlock(&w->lock);
      return -1;
    }
    for (size_t i = 0; i < w->count; i++)
      ring[i] = w->jobs[(w->head + i) % w->capacity];
    free(w->jobs);
    w->jobs = ring;
    w->head = 0;
    w->capacity = cap;
  }
  w->jobs[(w->head + w->count++) % w->capacity] = j;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  return 0;
}

/* The groups here, once no worker reads t's batches any more. */
static void consume_here(struct pisa_thread *t, unsigned slot,
                         unsigned groups) {
  pisa_workers_wait(t);
  for (unsigned g = 0; g < PISA_CONSUME_GROUPS; g++)
    if (groups & (1u << g))
      pisa_consume_group(t, &t->slots[slot].batch, g);
}

PISA_HIDDEN void pisa_workers_consume(struct pisa_thread *t, unsigned slot) {
  unsigned n = workers_running();
  if (!n || __atomic_load_n(&inline_mode, __ATOMIC_ACQUIRE)) {
    consume_here(t, slot, ~0u);
    return;
  }
  struct pisa_batch_slot *s = &t->slots[slot];
  __atomic_store_n(&s->pending, n, __ATOMIC_RELEASE);
  for (unsigned i = 0; i < n; i++)
    if (push(&workers[i], (struct job){t, slot})) {
      release(s);
      consume_here(t, slot, workers[i].groups);
    }
}

PISA_HIDDEN void pisa_workers_inline(int on) {
  __atomic_store_n(&inline_mode, on, __ATOMIC_RELEASE);
}

/* The fork child has no worker: it analyses in its own thread. */
PISA_HIDDEN void pisa_workers_after_fork(void) {
  pthread_mutex_init(&start_lock, NULL);
  pthread_mutex_init(&done_lock, NULL);
  pthread_cond_init(&done_cond, NULL);
  start_tried = 1;
  n_workers = 0;
}
