/* runoutput.h: where the documents of `pisa-char run` go: the default
 * PROGRAM.pisa.json, or -o NAME with its patterns (outname.h); under an MPI
 * launcher's job of several ranks, a NAME without %r is the job's: each
 * rank writes its own document next to it (NAME.rankR.json) and rank 0
 * merges them into NAME once every rank wrote (or a timeout passed). The
 * checks before anything runs, and that merge. */
#ifndef PISA_CLI_RUNOUTPUT_H
#define PISA_CLI_RUNOUTPUT_H

#include "cmdline.h"

#define RUN_MERGE_TIMEOUT 300 /* seconds; PISA_MERGE_TIMEOUT overrides */

struct run_output {
  char *document; /* this process's document */
  char *job;      /* rank 0: the job's merged document; else NULL */
  char **ranks;   /* with job: every rank's document, by rank */
  long nranks;
};

/* The names for `program` run with -o `pattern` (NULL: none given); 0, or
 * 2 after a usage error (an unknown pattern) or a malformed launcher
 * variable. */
int run_output_plan(const struct command_line *cl, const char *pattern,
                    const char *program, struct run_output *out);

/* Before the program runs (one line and exit status 2 on a problem): no
 * document is a directory, the `program` file itself or, without `force`,
 * exists, and their directories take new files. Rank 0 checks the other
 * ranks' documents too, and with `force` removes them, so that it never
 * merges an old one. */
void run_output_check(const struct run_output *out, int force, char *program);

/* Rank 0 of a job, after writing its own document: waits for the other
 * ranks' documents and merges them into the job's, unless the program is
 * no MPI program (the rank documents then stay as they are). Returns
 * `status`, or 125 when the job's document could not be written. */
int run_output_merge(const struct run_output *out, int status, int force,
                     int quiet);

void run_output_free(struct run_output *out);

#endif
