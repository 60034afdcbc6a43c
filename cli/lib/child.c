/* child.c: starting programs (fork, process group, signals, redirections,
 * working directory, environment, exec), forwarding signals to a program
 * in the foreground, waiting for it and reading its exit status. */
#include "child.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- In the child -------------------------------------------------------- */

/* A step before the program failed: say so (when the spec names who is
 * starting it) and tell the parent (when it listens). */
static _Noreturn void child_fail(const struct child_spec *spec, int report,
                                 const char *what, const char *subject) {
  int err = errno;
  if (spec->who)
    fprintf(stderr, "%s: %s: %s%s: %s\n", pisa_progname, spec->who, what,
            subject, strerror(err));
  if (report >= 0) {
    ssize_t written = write(report, &err, sizeof err);
    (void)written; /* nothing more to do about a failure here */
  }
  _exit(127);
}

static void redirect(const struct child_spec *spec, int report, int fd,
                     const char *path, int flags) {
  int f = open(path, flags, 0666);
  if (f < 0 || dup2(f, fd) < 0)
    child_fail(spec, report, "", path);
  close(f);
}

static void child_signals(const struct child_spec *spec) {
  if (spec->signals) {
    sigaction(SIGINT, &spec->signals->old_int, NULL);
    sigaction(SIGQUIT, &spec->signals->old_quit, NULL);
    sigprocmask(SIG_SETMASK, &spec->signals->old_mask, NULL);
    return;
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
}

static _Noreturn void in_child(const struct child_spec *spec, int report) {
  const int wr = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  if (spec->own_group)
    setpgid(0, 0);
  child_signals(spec);
  if (spec->in)
    redirect(spec, report, STDIN_FILENO, spec->in, O_RDONLY | O_CLOEXEC);
  if (spec->out)
    redirect(spec, report, STDOUT_FILENO, spec->out, wr);
  if (spec->err)
    redirect(spec, report, STDERR_FILENO, spec->err, wr);
  else if (spec->out)
    dup2(STDOUT_FILENO, STDERR_FILENO);
  if (spec->dir && chdir(spec->dir) != 0)
    child_fail(spec, report, "", spec->dir);
  char *const *envp = spec->envp ? spec->envp : environ;
  if (spec->search)
    execvpe(spec->file, spec->argv, envp);
  else
    execve(spec->file, spec->argv, envp);
  child_fail(spec, report, "cannot run ", spec->file);
}

/* ---- Starting ------------------------------------------------------------ */

pid_t child_start(const struct child_spec *spec, int *exec_report) {
  int report[2] = {-1, -1};
  if (exec_report && pipe2(report, O_CLOEXEC) != 0)
    die("cannot create a pipe: %s", strerror(errno));
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid == 0)
    in_child(spec, report[1]);
  if (report[1] >= 0)
    close(report[1]);
  if (pid < 0) {
    int err = errno;
    if (report[0] >= 0)
      close(report[0]);
    errno = err;
    return -1;
  }
  if (spec->own_group)
    setpgid(pid, pid); /* also in the child: whichever runs first */
  if (exec_report)
    *exec_report = report[0];
  return pid;
}

int child_exec_error(int exec_report) {
  int err = 0;
  ssize_t n;
  while ((n = read(exec_report, &err, sizeof err)) < 0 && errno == EINTR)
    ;
  close(exec_report);
  return n == (ssize_t)sizeof err ? err : 0;
}

/* ---- A program in the foreground ----------------------------------------- */

static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig) {
  int saved = errno;
  if (forward_pid > 0)
    kill((pid_t)forward_pid, sig);
  errno = saved;
}

/* SIGTERM and SIGHUP; with `all`, every other signal whose default
 * action ends pisa-char too (SIGINT, SIGQUIT, SIGALRM, SIGPIPE, SIGUSR1,
 * SIGUSR2). */
static void termination_signals(sigset_t *set, int all) {
  static const int Others[] = {SIGINT,  SIGQUIT, SIGALRM,
                               SIGPIPE, SIGUSR1, SIGUSR2};
  sigemptyset(set);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGHUP);
  for (size_t i = 0; all && i < sizeof Others / sizeof *Others; i++)
    sigaddset(set, Others[i]);
}

void child_signals_hold(struct child_signals *s) {
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigset_t hold;
  sigemptyset(&ignore.sa_mask);
  termination_signals(&hold, 0);
  sigprocmask(SIG_BLOCK, &hold, &s->old_mask);
  sigaction(SIGINT, &ignore, &s->old_int);
  sigaction(SIGQUIT, &ignore, &s->old_quit);
}

void child_signals_forward(pid_t pid, struct child_signals *s) {
  struct sigaction forward = {.sa_handler = forward_signal,
                              .sa_flags = SA_RESTART};
  sigemptyset(&forward.sa_mask);
  forward_pid = pid;
  sigaction(SIGTERM, &forward, &s->old_term);
  sigaction(SIGHUP, &forward, &s->old_hup);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL); /* held signals arrive now */
}

void child_signals_release(const struct child_signals *s) {
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGQUIT, &s->old_quit, NULL);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

/* Ends forwarding: every disposition as before child_signals_hold. */
static void stop_forwarding(const struct child_signals *s) {
  forward_pid = 0;
  sigaction(SIGTERM, &s->old_term, NULL);
  sigaction(SIGHUP, &s->old_hup, NULL);
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGQUIT, &s->old_quit, NULL);
}

/* Waits until `pid` ended without reaping it; without a tick in one
 * blocking call, else polling so that the tick runs between naps. */
static void wait_ended(pid_t pid, void (*tick)(void *ctx), void *ctx) {
  siginfo_t info;
  int flags = WEXITED | WNOWAIT | (tick ? WNOHANG : 0);
  const struct timespec nap = {0, (long)(CHILD_TICK_SECONDS * 1e9)};
  for (;;) {
    info.si_pid = 0;
    if (waitid(P_PID, (id_t)pid, &info, flags) != 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    if (info.si_pid == pid)
      return;
    tick(ctx);
    nanosleep(&nap, NULL);
  }
}

int child_wait(pid_t pid, struct child_signals *s, void (*tick)(void *ctx),
               void *ctx) {
  sigset_t hold;
  int status = 0;
  wait_ended(pid, tick, ctx);
  termination_signals(&hold, 1);
  sigprocmask(SIG_BLOCK, &hold, NULL);
  stop_forwarding(s);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

void child_signals_deliver(const struct child_signals *s) {
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

int child_exit_status(int wstatus, int *sig) {
  *sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  return *sig ? 128 + *sig : WEXITSTATUS(wstatus);
}

double child_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- Environments -------------------------------------------------------- */

void child_env_init(struct strvec *env) {
  *env = (struct strvec){0};
  for (char **e = environ; *e; e++)
    strvec_push(env, *e);
}

static size_t name_length(const char *entry) { return strcspn(entry, "="); }

void child_env_set(struct strvec *env, const char *name, const char *value,
                   int overwrite) {
  char *entry = xasprintf("%s=%s", name, value);
  size_t len = strlen(name);
  for (size_t i = 0; i < env->n; i++)
    if (name_length(env->v[i]) == len && !strncmp(env->v[i], name, len)) {
      if (overwrite) {
        free(env->v[i]);
        env->v[i] = entry;
      } else {
        free(entry);
      }
      return;
    }
  strvec_push(env, entry);
  free(entry);
}

static int has_prefix(const char *entry, const char *const *prefixes) {
  for (const char *const *p = prefixes; *p; p++)
    if (!strncmp(entry, *p, strlen(*p)))
      return 1;
  return 0;
}

void child_env_drop(struct strvec *env, const char *const *prefixes) {
  size_t kept = 0;
  for (size_t i = 0; i < env->n; i++) {
    if (has_prefix(env->v[i], prefixes))
      free(env->v[i]);
    else
      env->v[kept++] = env->v[i];
  }
  env->n = kept;
  if (env->v)
    env->v[kept] = NULL;
}
