/* sweep.h: the engine of `pisa-char sweep`: a suite's benchmarks built
 * with pisa-cc and run under `pisa-char run`, N at a time, each stage in a
 * process group of its own (timeouts, Ctrl-C), judged, and the summary
 * (sweep_summary.h) rewritten after every benchmark so that a re-run
 * resumes where it stopped. Failures to set up are one line and exit 2. */
#ifndef PISA_CLI_SWEEP_H
#define PISA_CLI_SWEEP_H

#include "manifest.h"
#include "strvec.h"

#include <json-c/json.h>
#include <regex.h>
#include <stddef.h>
#include <sys/types.h>

struct sweep_options {
  const char *suite; /* name or manifest path */
  const char *size;
  unsigned jobs;
  const char *mode; /* "deep" or "counter" */
  const char *out;
  double timeout; /* seconds; 0: none */
  const char *metrics;
  unsigned shard_index, shard_count; /* 1-based K of N; N = 0: no shard */
  const char *root;
  int quiet;
};

enum sweep_stage { STAGE_BUILD, STAGE_RUN };

/* A running benchmark (pid 0: a free slot). */
struct sweep_job {
  size_t bench; /* index into suite.benchmarks */
  enum sweep_stage stage;
  pid_t pid;      /* also its process group */
  double started; /* of the current stage */
  double build_seconds;
  int timed_out;
  double kill_at; /* when SIGKILL follows SIGTERM; 0: not signalled */
};

struct sweep {
  struct sweep_options opt;
  struct suite suite;
  char *out;  /* absolute output directory */
  char *base; /* DIR/summary or DIR/summary.shard-K-of-N, no suffix */
  char *pisa_char, *compiler;
  struct strvec env; /* of the builds and runs: no MPI launcher's */
  regex_t checksum;
  int has_checksum;
  json_object *summary;
  json_object **rows; /* per suite benchmark; NULL: not finished */
  size_t *todo, ntodo, next;
  size_t nselected, nskipped;
  struct sweep_job *jobs;
  unsigned running;
  int stopping, tty, write_failed;
  double start, last_progress;
  size_t done, failed;
};

/* ---- Setting up (sweep_setup.c) ---- */

/* Loads the suite, finds the tools, makes the output directories, reads
 * an earlier summary of the same sweep and plans what to run: every
 * selected benchmark that did not end ok with a valid result before. */
void sweep_setup(struct sweep *sw);

int sweep_counter_mode(const struct sweep_options *opt);

/* mkdir, an existing directory being fine. */
void sweep_make_dir(const char *path);

/* Whether the benchmark is in this shard. */
int sweep_is_selected(const struct sweep *sw, size_t bench);

/* DIR/results/NAME.pisa.json, and its document if it exists and is valid
 * (else NULL). */
char *sweep_result_path(const struct sweep *sw, size_t bench);
json_object *sweep_read_result(const struct sweep *sw, size_t bench);

/* Rewrites the summary with the rows so far (an error sets write_failed). */
void sweep_write_summary(struct sweep *sw);

void sweep_free(struct sweep *sw);

/* ---- Building, running and judging one benchmark (sweep_jobs.c) ---- */

/* Starts the compiler, or `pisa-char run`, of the benchmark; its pid (its
 * process group), or -1 when it cannot be started. */
pid_t sweep_start_build(struct sweep *sw, size_t bench);
pid_t sweep_start_run(struct sweep *sw, size_t bench);

/* The summary row of a benchmark whose build or run ended with `wstatus`
 * after `seconds`. */
json_object *sweep_build_failed_row(struct sweep *sw,
                                    const struct sweep_job *job, int wstatus,
                                    double seconds);
json_object *sweep_run_row(struct sweep *sw, const struct sweep_job *job,
                           int wstatus, double seconds);

/* ---- Scheduling (sweep_schedule.c) ---- */

/* Runs the planned benchmarks, jobs at a time, until all ended or a
 * SIGINT, SIGTERM or SIGHUP stopped the sweep (the finished results are
 * kept; a second signal kills what runs). A progress line on stderr when
 * it is a terminal (sets tty). */
void sweep_schedule(struct sweep *sw);

/* The signal that stopped the sweep, or 0. */
int sweep_stop_signal(void);

#endif
