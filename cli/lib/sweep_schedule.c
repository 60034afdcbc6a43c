/* sweep_schedule.c: running a sweep's benchmarks N at a time: starting
 * the next, reaping the ended, enforcing timeouts, stopping on a signal,
 * and the progress line and per-benchmark messages on stderr. */
#include "child.h"
#include "statusline.h"
#include "sweep.h"
#include "sweep_summary.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_SECONDS 2.0 /* SIGTERM, then SIGKILL after this */
#define POLL_NANOSECONDS 50000000L

static volatile sig_atomic_t stop_signal, stop_requests;

static void on_stop_signal(int sig) {
  stop_signal = sig;
  stop_requests++;
}

static void on_child(int sig) { (void)sig; }

int sweep_stop_signal(void) { return stop_requests ? stop_signal : 0; }

/* ---- Progress ------------------------------------------------------------ */

/* "3/30 done, 1 failed, 0:00:05 elapsed, about 0:00:45 left" */
static void progress_text(const struct sweep *sw, char *buf, size_t n) {
  double elapsed = child_clock() - sw->start;
  char spent[32], left[32] = "?";
  statusline_duration(spent, sizeof spent, elapsed);
  if (sw->done)
    statusline_duration(left, sizeof left,
                        elapsed / sw->done * (sw->ntodo - sw->done));
  snprintf(buf, n, "%zu/%zu done, %zu failed, %s elapsed, about %s left",
           sw->done, sw->ntodo, sw->failed, spent, left);
}

static void progress_line(struct sweep *sw) {
  if (sw->opt.quiet || !sw->tty)
    return;
  char text[256];
  progress_text(sw, text, sizeof text);
  statusline_show("sweep: %s", text);
  sw->last_progress = child_clock();
}

/* One line per finished benchmark (failures also at a terminal). */
static void report_finished(struct sweep *sw, size_t bench, json_object *row) {
  const char *status =
      json_object_get_string(json_object_object_get(row, "status"));
  int ok = sweep_row_ok(row);
  if (sw->opt.quiet || (sw->tty && ok)) {
    progress_line(sw);
    return;
  }
  char text[256];
  progress_text(sw, text, sizeof text);
  const char *why =
      json_object_get_string(json_object_object_get(row, "error"));
  fprintf(
      stderr, "%s%s: sweep: %s: %s%s%s (%.1f s); %s\n",
      sw->tty ? "\r\033[K" : "", pisa_progname,
      sw->suite.benchmarks[bench].name, status, why ? ": " : "", why ? why : "",
      json_object_get_double(json_object_object_get(row, "seconds")) +
          json_object_get_double(json_object_object_get(row, "build_seconds")),
      text);
  progress_line(sw);
}

/* ---- The scheduler ------------------------------------------------------- */

static void signal_job(struct sweep_job *job, int sig) {
  kill(-job->pid, sig);
  if (sig == SIGTERM)
    job->kill_at = child_clock() + KILL_GRACE_SECONDS;
}

static void record(struct sweep *sw, size_t bench, json_object *row) {
  json_object_put(sw->rows[bench]);
  sw->rows[bench] = row;
  sw->done++;
  if (!sweep_row_ok(row))
    sw->failed++;
  sweep_write_summary(sw);
  report_finished(sw, bench, row);
}

/* A stage of `job` ended with `wstatus`: go on to the run, or record. */
static void stage_ended(struct sweep *sw, struct sweep_job *job, int wstatus) {
  double seconds = child_clock() - job->started;
  if (job->timed_out || job->kill_at)
    kill(-job->pid, SIGKILL); /* whatever else of the group is left */
  job->pid = 0;
  if (sw->stopping) {
    sw->running--;
    return; /* interrupted: not finished, a re-run does it again */
  }
  int sig;
  if (job->stage == STAGE_BUILD && child_exit_status(wstatus, &sig) == 0) {
    job->build_seconds = seconds;
    job->stage = STAGE_RUN;
    job->started = child_clock();
    job->pid = sweep_start_run(sw, job->bench);
    if (job->pid > 0)
      return;
    wstatus = 127 << 8;
  }
  sw->running--;
  record(sw, job->bench,
         job->stage == STAGE_BUILD
             ? sweep_build_failed_row(sw, job, wstatus, seconds)
             : sweep_run_row(sw, job, wstatus, seconds));
}

static void start_next(struct sweep *sw, struct sweep_job *job) {
  size_t bench = sw->todo[sw->next++];
  memset(job, 0, sizeof *job);
  job->bench = bench;
  job->stage = STAGE_BUILD;
  job->started = child_clock();
  job->pid = sweep_start_build(sw, bench);
  if (job->pid < 0)
    die_status(1, "sweep: cannot start a process: %s", strerror(errno));
  sw->running++;
}

static struct sweep_job *job_of(struct sweep *sw, pid_t pid) {
  for (unsigned i = 0; i < sw->opt.jobs; i++)
    if (sw->jobs[i].pid == pid)
      return &sw->jobs[i];
  return NULL;
}

static int reap(struct sweep *sw) {
  int wstatus, reaped = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
    struct sweep_job *job = job_of(sw, pid);
    if (job) {
      stage_ended(sw, job, wstatus);
      reaped = 1;
    }
  }
  return reaped;
}

static void enforce_deadlines(struct sweep *sw) {
  double now = child_clock();
  for (unsigned i = 0; i < sw->opt.jobs; i++) {
    struct sweep_job *job = &sw->jobs[i];
    if (!job->pid)
      continue;
    if (job->kill_at && now >= job->kill_at) {
      kill(-job->pid, SIGKILL);
      job->kill_at = now + 3600; /* once */
    } else if (job->stage == STAGE_RUN && sw->opt.timeout && !job->timed_out &&
               now - job->started >= sw->opt.timeout) {
      job->timed_out = 1;
      signal_job(job, SIGTERM);
    }
  }
}

static void stop_all(struct sweep *sw) {
  int hard = stop_requests > 1;
  if (!sw->stopping) {
    sw->stopping = 1;
    if (sw->tty)
      fputc('\n', stderr);
    error("sweep: stopping (signal %d); finished results are kept",
          (int)stop_signal);
  }
  for (unsigned i = 0; i < sw->opt.jobs; i++) {
    struct sweep_job *job = &sw->jobs[i];
    if (job->pid && (hard || !job->kill_at))
      signal_job(job, hard ? SIGKILL : SIGTERM);
  }
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_stop_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_child; /* wakes the sleep below when a child ends */
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);
}

void sweep_schedule(struct sweep *sw) {
  sw->tty = isatty(STDERR_FILENO);
  sw->start = child_clock();
  sw->jobs = xcalloc(sw->opt.jobs, sizeof *sw->jobs);
  install_handlers();
  while (sw->running || (!sw->stopping && sw->next < sw->ntodo)) {
    if (stop_requests && (!sw->stopping || stop_requests > 1))
      stop_all(sw);
    for (unsigned i = 0; i < sw->opt.jobs && !sw->stopping; i++)
      if (!sw->jobs[i].pid && sw->next < sw->ntodo)
        start_next(sw, &sw->jobs[i]);
    int reaped = reap(sw);
    enforce_deadlines(sw);
    if (sw->tty && child_clock() - sw->last_progress >= 1)
      progress_line(sw);
    if (!reaped) {
      struct timespec nap = {0, POLL_NANOSECONDS};
      nanosleep(&nap, NULL);
    }
  }
}
