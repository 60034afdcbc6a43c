/* child.h: the processes that pisa-char starts: the analysed program of
 * `run` (its signals forwarded, waited for like `time` does) and the builds
 * and runs of `sweep` (each in a process group, output to files). Starting
 * one, the signals around it, its environment, waiting and exit statuses. */
#ifndef PISA_CLI_CHILD_H
#define PISA_CLI_CHILD_H

#include "strvec.h"

#include <signal.h>
#include <sys/types.h>

/* pisa-char's signal dispositions while a program runs in the foreground
 * (child_signals_hold ... child_signals_release). */
struct child_signals {
  sigset_t old_mask;
  struct sigaction old_int, old_quit, old_term, old_hup;
};

struct child_spec {
  const char *file;  /* the program: a path, or a name to look up in PATH */
  int search;        /* when `file` is a name */
  char *const *argv; /* its arguments, argv[0] included */
  char *const *envp; /* its environment; NULL: pisa-char's */
  const char *dir;   /* its working directory; NULL: pisa-char's */
  /* Its stdin from `in`, stdout to `out`, stderr to `err` (files created or
   * truncated); NULL: pisa-char's own, except that a NULL `err` with an
   * `out` goes to `out` as well. */
  const char *in, *out, *err;
  int own_group;   /* a process group of its own, signalled as one */
  const char *who; /* when set, a failure before the program starts is
                      "pisa-char: WHO: ...: reason" on its stderr */
  /* Dispositions held by child_signals_hold(), restored in the child; NULL:
   * SIGINT, SIGTERM, SIGHUP and SIGCHLD get their defaults. */
  const struct child_signals *signals;
};

/* Starts the program; the pid, or -1 when fork failed (errno). With
 * `exec_report`, *exec_report is a pipe to read the child's exec failure
 * from with child_exec_error() (exit status 2 if it cannot be made). */
pid_t child_start(const struct child_spec *spec, int *exec_report);

/* The errno of a failed exec, or 0 when the program started. */
int child_exec_error(int exec_report);

/* Before starting a program in the foreground: the terminal's SIGINT and
 * SIGQUIT reach the program directly and are ignored here; SIGTERM and
 * SIGHUP are held until child_signals_forward() sends them on to `pid`. */
void child_signals_hold(struct child_signals *s);
void child_signals_forward(pid_t pid, struct child_signals *s);
/* Back to the dispositions before child_signals_hold. */
void child_signals_release(const struct child_signals *s);

/* Waits for the foreground program and ends the forwarding; its wait
 * status. It stays a zombie until forwarding stopped, so a late signal can
 * never hit a recycled pid. With a `tick`, it is called with `ctx` about
 * every CHILD_TICK_SECONDS while the program runs.  From then on the
 * signals that would end pisa-char (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGALRM, SIGPIPE, SIGUSR1, SIGUSR2) are held (blocked) until
 * child_signals_deliver(): one that comes after the program ended waits
 * until its results are written. */
#define CHILD_TICK_SECONDS 0.05
int child_wait(pid_t pid, struct child_signals *s, void (*tick)(void *ctx),
               void *ctx);
/* Unblocks what child_wait held: a signal that came meanwhile acts now,
 * with the dispositions before child_signals_hold. */
void child_signals_deliver(const struct child_signals *s);

/* The exit status of a wait status as a shell reports it: the exit code,
 * or 128+N when killed by signal N (*sig = N, else 0). */
int child_exit_status(int wstatus, int *sig);

/* Seconds on the monotonic clock, for durations. */
double child_clock(void);

/* A copy of pisa-char's environment to start programs with. */
void child_env_init(struct strvec *env);
/* Sets NAME=value: in place if NAME is there (unless !overwrite), else
 * appended, as setenv(3) does. */
void child_env_set(struct strvec *env, const char *name, const char *value,
                   int overwrite);
/* Removes every variable whose name starts with one of the prefixes
 * (a NULL-terminated list). */
void child_env_drop(struct strvec *env, const char *const *prefixes);

#endif
