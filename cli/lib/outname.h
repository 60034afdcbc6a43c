/* outname.h: the output names of `pisa-char run -o`: the patterns %p (the
 * process id), %h (the host name), %r (the MPI rank), %j (the batch job's
 * id) and %%, as LLVM_PROFILE_FILE has them, and the name of one rank's
 * document next to the job's ("x.json" -> "x.rank3.json"). */
#ifndef PISA_CLI_OUTNAME_H
#define PISA_CLI_OUTNAME_H

#include "launcher.h"

#include <stddef.h>

struct output_name {
  char *path;      /* the name with the patterns expanded */
  int has_rank;    /* %r: every rank names its own document */
  int per_process; /* %p or %h: the name differs between processes */
};

/* Expands `pattern`: %p the pid of this process, %h the host name, %r the
 * rank (`rank`, or 0 outside an MPI job), %j launcher_job_id() (nothing
 * outside a batch job), %% a '%'. 0, or -1 with err naming an unknown
 * pattern. */
int output_name_expand(const char *pattern, const struct launcher_rank *rank,
                       struct output_name *out, char *err, size_t n);

/* The document of rank `rank` next to `path`: ".rankN" before the
 * .pisa.json or .json suffix, else at the end (newly allocated). */
char *output_rank_name(const char *path, long rank);

#endif
