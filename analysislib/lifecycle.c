/* lifecycle.c: start-up (configuration from the environment), the one
 * result write at exit or on a fatal signal, and fork handling.  The
 * runtime never changes how the program ends: after writing, a signal is
 * re-raised with its default action. */
#include "counter_runtime.h"
#include "runtime.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

PISA_HIDDEN struct pisa_config pisa_config;
PISA_HIDDEN int pisa_exit_status = -1;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static atomic_flag result_written = ATOMIC_FLAG_INIT;

static const int fatal_signals[] = {
    SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT, SIGTRAP, SIGSYS,  SIGINT,
    SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2};

PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...) {
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  fputs("pisa-char runtime: ", stderr);
  vfprintf(stderr, fmt, ap);
  if (err)
    fprintf(stderr, ": %s", strerror(err));
  fputc('\n', stderr);
  va_end(ap);
}

/* PISA_LINE_SIZES=MIN:MAX, powers of two; pisa-char validated it. */
static void parse_line_sizes(const char *spec) {
  unsigned long long lo = 8, hi = 512;
  if (spec && (sscanf(spec, "%llu:%llu", &lo, &hi) != 2 || !lo || lo > hi ||
               (lo & (lo - 1)) || (hi & (hi - 1)) || hi > (1ull << 30))) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_LINE_SIZES=%s", spec);
    lo = 8;
    hi = 512;
  }
  pisa_config.n_line_sizes = 0;
  for (unsigned long long b = lo;
       b <= hi && pisa_config.n_line_sizes < PISA_MAX_LINE_SIZES; b *= 2)
    pisa_config.line_sizes[pisa_config.n_line_sizes++] = b;
}

/* PISA_METRICS=name,name: the families pisa-char enabled; all when unset. */
static void parse_families(const char *spec) {
  static const char *const names[] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
      PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
  };
  pisa_config.families = spec ? 0 : PISA_FAMILIES_ALL;
  for (const char *p = spec; p && *p;) {
    size_t len = strcspn(p, ",");
    unsigned f = 0;
    while (f < PISA_FAMILY_COUNT &&
           (strlen(names[f]) != len || strncmp(p, names[f], len)))
      f++;
    if (f < PISA_FAMILY_COUNT)
      pisa_config.families |= 1u << f;
    else if ((errno = 0) == 0)
      PISA_ERR("ignoring unknown metric family '%.*s' in PISA_METRICS",
               (int)len, p);
    p += len + (p[len] == ',');
  }
  if (pisa_config.families & PISA_FAMILY(LOCALITY))
    pisa_config.families |= PISA_FAMILY(REUSE);
}

/* PISA_ILP_WINDOWS=W,W,...: instruction windows of the ILP schedules, 0
 * for unlimited; pisa-char validated them.  Default 0,64. */
static void parse_windows(const char *spec) {
  struct sched_config *c = &pisa_config.sched;
  c->n_windows = 0;
  for (const char *p = spec; p && *p && c->n_windows < SCHED_MAX_WINDOWS;) {
    char *end;
    unsigned long w = strtoul(p, &end, 10);
    if (end == p || (*end && *end != ',') || w > UINT32_MAX) {
      errno = 0;
      PISA_ERR("ignoring malformed PISA_ILP_WINDOWS=%s", spec);
      c->n_windows = 0;
      break;
    }
    c->windows[c->n_windows++] = (uint32_t)w;
    p = *end ? end + 1 : end;
  }
  if (!c->n_windows) {
    c->windows[0] = 0;
    c->windows[1] = 64;
    c->n_windows = 2;
  }
  if (!(pisa_config.families & PISA_FAMILY(ILP)))
    c->n_windows = 0;
  c->bblp = (pisa_config.families & PISA_FAMILY(BBLP)) != 0;
  /* Memory dependencies are tracked in up to half the machine's memory
   * (PISA_SCHED_MEMORY=BYTES overrides): beyond it the program would be
   * at risk, so the families are marked approximate instead. */
  const char *limit = getenv("PISA_SCHED_MEMORY");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  c->max_memory_bytes = pages > 0 && page > 0
                            ? (uint64_t)pages * (uint64_t)page / 2
                            : UINT64_C(8) << 30;
  if (limit && *limit) {
    char *end;
    unsigned long long v = strtoull(limit, &end, 10);
    if (*end || !v) {
      errno = 0;
      PISA_ERR("ignoring malformed PISA_SCHED_MEMORY=%s", limit);
    } else {
      c->max_memory_bytes = v;
    }
  }
}

static void parse_entropy_bits(const char *spec) {
  unsigned bits = 12;
  if (spec && (sscanf(spec, "%u", &bits) != 1 || bits > ENTROPY_MAX_SHIFT)) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_ENTROPY_BITS=%s", spec);
    bits = 12;
  }
  pisa_config.entropy_bits = bits;
}

/* Freezes every thread's metrics and writes the result.  A signal may have
 * interrupted a thread that holds the list lock (creating its state): the
 * list only grows, so it is walked without the lock then. */
static void write_result_now(int complete, int sig, int in_signal) {
  int locked = in_signal ? pisa_threads_trylock() == 0 : 1;
  if (!in_signal)
    pisa_threads_lock();
  pisa_threads_freeze(in_signal);
  if (pisa_counter_mode())
    pisa_counter_write_result(complete, sig);
  else
    pisa_write_result(complete, sig);
  if (locked)
    pisa_threads_unlock();
}

static void on_fatal_signal(int sig) {
  int saved = errno;
  if (!atomic_flag_test_and_set(&result_written))
    write_result_now(0, sig, 1);
  errno = saved;
  /* The fatal signals stayed blocked while the result was written (a second
   * SIGTERM, as a process group kill plus pisa-char's forwarding deliver,
   * waits; SA_RESETHAND is not used because Linux then delivers the same
   * signal again at once).  Back to the default action, re-raised, and
   * unblocked: the program dies of its own signal. */
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  raise(sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void install_signal_handlers(void) {
  /* Building the result needs a few hundred KiB of stack (aggregates with
   * their footprint caches); untouched pages of it cost nothing. */
  static char altstack[1 << 20];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
    struct sigaction old;
    if (sigaction(fatal_signals[i], NULL, &old) != 0 ||
        old.sa_handler != SIG_DFL)
      continue; /* the program's own disposition wins */
    struct sigaction sa = {.sa_handler = on_fatal_signal,
                           .sa_flags = SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    for (size_t j = 0; j < sizeof fatal_signals / sizeof *fatal_signals; j++)
      sigaddset(&sa.sa_mask, fatal_signals[j]);
    sigaction(fatal_signals[i], &sa, NULL);
  }
}

/* The process whose result this is: a vfork child shares our memory but
 * has another pid (and runs no fork handlers). */
static pid_t result_pid;

static void after_fork_child(void) {
  result_pid = getpid();
  pisa_threads_after_fork();
}

static void record_exit_status(int status, void *arg) {
  (void)arg;
  pisa_exit_status = status & 0xff;
}

static void register_exit_status(void) {
  if (pisa_config.active)
    on_exit(record_exit_status, NULL);
}

/* Exit handlers run last-registered first, and the one that runs the
 * destructors (ours writes the result) is registered after the shared
 * libraries' constructors ran: so this waits for the first thread state. */
PISA_HIDDEN void pisa_watch_exit_status(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_exit_status);
}

static void read_config(void) {
  const char *dir = getenv("PISA_OUTPUT_DIR");
  parse_line_sizes(getenv("PISA_LINE_SIZES"));
  parse_families(getenv("PISA_METRICS"));
  parse_entropy_bits(getenv("PISA_ENTROPY_BITS"));
  parse_windows(getenv("PISA_ILP_WINDOWS"));
  if (!dir || !*dir)
    return;
  if (strlen(dir) >= sizeof pisa_config.output_dir) {
    errno = ENAMETOOLONG;
    PISA_ERR("PISA_OUTPUT_DIR is too long; not analysing");
    return;
  }
  strcpy(pisa_config.output_dir, dir);
  pisa_config.active = 1;
  result_pid = getpid();
  install_signal_handlers();
  pthread_atfork(NULL, NULL, after_fork_child);
}

PISA_HIDDEN void pisa_config_init(void) {
  pthread_once(&config_once, read_config);
}

__attribute__((constructor(101))) static void pisa_start(void) {
  pisa_config_init();
  pisa_registry_init();
}

/* Threads still alive at exit (thread pools, workers still running when
 * another thread called exit) have their committed words drained too. */
__attribute__((destructor(101))) static void pisa_finish(void) {
  if (!pisa_config.active || atomic_flag_test_and_set(&result_written))
    return;
  write_result_now(1, 0, 0);
}

/* exec.c: the image is about to be replaced; write its result now (unless
 * this is a vfork child, whose memory is its parent's). */
PISA_HIDDEN void pisa_before_exec(void) {
  if (!pisa_config.active || getpid() != result_pid ||
      atomic_flag_test_and_set(&result_written))
    return;
  write_result_now(1, 0, 0);
}

/* exec.c: the exec failed, the image goes on: its result will be written
 * again (replacing the one written before the exec) at exit. */
PISA_HIDDEN void pisa_after_failed_exec(void) {
  if (!pisa_config.active || getpid() != result_pid)
    return;
  pisa_threads_lock();
  pisa_threads_thaw();
  pisa_threads_unlock();
  atomic_flag_clear(&result_written);
}

__attribute__((visibility("default"))) int pisa_active(void) {
  pisa_config_init();
  return pisa_config.active;
}
