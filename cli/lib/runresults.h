/* runresults.h: the results of an analysed run: the private directory the
 * runtime writes its raw results (raw.PID.json) to, and the documents made
 * of them: OUTPUT for the started process, OUTPUT-stem.PID.pisa.json for
 * each process it forked, or one merged document for the ranks of an MPI
 * job; each validated and written atomically. */
#ifndef PISA_CLI_RUNRESULTS_H
#define PISA_CLI_RUNRESULTS_H

#include "document.h"

#include <sys/types.h>

#define RUN_FAILED 125 /* the program ran but the analysis failed */

struct run_results {
  const char *output;   /* the started process's document */
  const char *raw_dir;  /* where the runtime wrote its raw results */
  const char *keep_raw; /* NULL, or where to copy the raw results to */
  int force;            /* replace existing documents */
  int quiet;            /* no summary line per document */
  int mpi_ranks;        /* ranks of a --mpi job, else 0 */
  struct pisa_program_run program;
  pid_t pid;     /* the started process */
  int unwritten; /* set by run_results_write: a document could not be
                    written (no room, ...) */
};

/* A new private directory under $TMPDIR (or /tmp) for the raw results;
 * exits with status 2 when it cannot be made. */
char *run_results_dir_create(void);

/* Removes the directory and the files in it (a warning if that fails). */
void run_results_dir_remove(const char *dir);

/* Writes the documents of every raw result, the started process's first;
 * returns the program's exit status, or RUN_FAILED when any analysis
 * result is missing or bad. */
int run_results_write(struct run_results *r);

/* After a document could not be written: describes the run in the raw
 * directory (run.json) and says that it is kept for `pisa-char recover`;
 * 0, or -1 after an error message (the directory can then go). */
int run_results_keep(const struct run_results *r);
/* Describes the run in the raw directory (run.json), without a word; 0 or
 * -1.  Before a run that writes snapshots, with pid 0 (recover then takes
 * the lowest pid of the results: the process pisa-char started). */
int run_results_describe(const struct run_results *r);
/* The run kept in `dir` by run_results_keep, to write its documents again
 * (replacing any written before); 0, or -1 after an error message.  The
 * strings are allocated and live as long as the process. */
int run_results_load(const char *dir, struct run_results *r);

/* --csv FILE: copies the started process's per-set counts to `to`; 0, or
 * -1 after an error message. */
int run_results_copy_csv(const char *raw_dir, pid_t pid, const char *to);

#endif
