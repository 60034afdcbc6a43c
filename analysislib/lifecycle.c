/* lifecycle.c: the top of the runtime: start-up, the one result write at
 * exit, on a fatal signal or before an exec, and fork.  It calls the rest
 * (configuration, registries, thread states, both reports) and nothing
 * calls it back but exec.c's wrappers.  The runtime never changes how the
 * program ends: after writing, a signal is re-raised with its default
 * action. */
#include "lifecycle.h"
#include "config.h"
#include "counter/counter.h"
#include "exit_status.h"
#include "rawdoc.h"
#include "report.h"
#include "snapshot.h"
#include "status.h"
#include "threads.h"
#include "watchdog.h"

#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_flag result_written = ATOMIC_FLAG_INIT;

/* Every signal whose default action ends the process (SIGPIPE included:
 * `pisa-char ./prog | head -1`); not SIGKILL, which cannot be caught. */
static const int fatal_signals[] = {
    SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,    SIGABRT, SIGTRAP, SIGSYS,
    SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGXCPU, SIGXFSZ, SIGALRM,
    SIGUSR1, SIGUSR2, SIGPIPE, SIGVTALRM, SIGPROF};

/* Freezes every thread's metrics and writes the result, with signals
 * blocked: an instrumented handler would wait for the locks held here (or
 * call malloc inside malloc).  After a fatal signal the list lock is
 * waited for 2 s at most (below the watchdog's 3 s): a snapshot being
 * built holds it (two results built at once would share the aggregates'
 * tables), but the signal may also have interrupted a thread that holds it
 * (creating its state): the list only grows, so it is walked without the
 * lock then.  `last`: no result follows (every write but the one before an
 * exec, which may fail); with the lock held, the result frees the states
 * it no longer needs as it goes (pisa_write_last_result). */
static void write_result_now(int complete, int sig, int in_signal, int last) {
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  int locked = in_signal ? pisa_threads_timedlock(2) == 0 : 1;
  if (!in_signal)
    pisa_threads_lock();
  pisa_status_phase(PISA_PHASE_DRAINING);
  pisa_threads_freeze();
  complete = complete && !pisa_memory_exhausted();
  pisa_status_phase(PISA_PHASE_WRITING);
  if (pisa_counter_mode()) {
    pisa_live_stop();
    pisa_counter_write_result(complete, sig, PISA_RESULT_STEM);
  } else if (last && locked)
    pisa_write_last_result(complete, sig, PISA_RESULT_STEM);
  else
    pisa_write_result(complete, sig, PISA_RESULT_STEM);
  if (locked)
    pisa_threads_unlock();
  pisa_signals_restore(&saved_mask);
}

/* The watchdog thread's writer (watchdog.c): the result of a fatal
 * signal, which may have interrupted a thread holding the list lock. */
static void write_signal_result(int sig) { write_result_now(0, sig, 1, 1); }

static void on_fatal_signal(int sig) {
  int saved = errno;
  if (!atomic_flag_test_and_set(&result_written) && !pisa_watchdog_write(sig))
    write_signal_result(sig);
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
  pisa_watchdog_start(write_signal_result);
  pisa_threads_after_fork();
  if (!pisa_counter_mode())
    pisa_drainer_start();
  if (pisa_counter_mode()) {
    pisa_cthreads_after_fork();
    pisa_live_after_fork();
  }
}

/* Start-up: the settings, then, when the run is analysed, what its end
 * needs: the signal handlers, the fork handler and, in counter mode, the
 * time-series thread and the live view, and the snapshot thread when
 * asked for. */
__attribute__((constructor(101))) static void pisa_start(void) {
  pisa_config_init();
  pisa_registry_init();
  if (!pisa_config.active)
    return;
  result_pid = getpid();
  pisa_keep_earlier_image();
  pisa_memory_reserve();
  pisa_status_init();
  pisa_watchdog_start(write_signal_result);
  install_signal_handlers();
  pthread_atfork(NULL, NULL, after_fork_child);
  if (pisa_counter_mode() && pisa_counter_config.interval_ms)
    pisa_intervals_start();
  if (pisa_counter_mode())
    pisa_live_start();
  else
    pisa_drainer_start();
  pisa_snapshots_start();
}

/* Threads still alive at exit (thread pools, workers still running when
 * another thread called exit) have their committed words drained too. */
__attribute__((destructor(101))) static void pisa_finish(void) {
  if (!pisa_config.active || atomic_flag_test_and_set(&result_written))
    return;
  write_result_now(1, 0, 0, 1);
}

/* exec.c: the image is about to be replaced; write its result now (unless
 * this is a vfork child, whose memory is its parent's). */
PISA_HIDDEN void pisa_before_exec(void) {
  if (!pisa_config.active || getpid() != result_pid ||
      atomic_flag_test_and_set(&result_written))
    return;
  write_result_now(1, 0, 0, 0); /* not the last if the exec fails */
}

/* quickexit.c: _exit skips the exit handlers and destructors, so the
 * result is written here, incomplete (whatever the program had left to do
 * at exit did not run), with the status passed to _exit. */
PISA_HIDDEN void pisa_before_quick_exit(int status) {
  if (!pisa_config.active || getpid() != result_pid ||
      atomic_flag_test_and_set(&result_written))
    return;
  pisa_set_exit_status(status);
  write_result_now(0, 0, 0, 1);
}

/* exec.c: the exec failed, the image goes on: its result will be written
 * again (replacing the one written before the exec) at exit. */
PISA_HIDDEN void pisa_after_failed_exec(void) {
  if (!pisa_config.active || getpid() != result_pid)
    return;
  sigset_t saved_mask;
  pisa_signals_block(&saved_mask);
  pisa_threads_lock();
  pisa_threads_thaw();
  pisa_threads_unlock();
  pisa_status_phase(PISA_PHASE_RUNNING);
  pisa_signals_restore(&saved_mask);
  atomic_flag_clear(&result_written);
}
