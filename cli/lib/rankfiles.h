/* rankfiles.h: the documents of an MPI job's ranks, one file each, joined
 * into one document: by `pisa-char merge`, and by rank 0 of a job whose
 * ranks each ran `pisa-char -o NAME` (it waits for the others' files
 * first). */
#ifndef PISA_CLI_RANKFILES_H
#define PISA_CLI_RANKFILES_H

#include "document.h"

#include <stddef.h>

struct rank_files_merge {
  const char *output;  /* the merged document */
  const char *program; /* names the program of raw results, or NULL */
  int size;            /* ranks of the job (missing ones failed), or 0 */
  int force;           /* replace an existing output */
  int quiet;           /* no summary line */
};

/* Merges the documents or raw results of `files` (rankmerge.h), warns
 * about each failed rank, validates and writes the output. Returns 0 when
 * every rank succeeded, 1 when the document is incomplete, 2 after an
 * error message (an input that cannot be read or merged, an output that
 * cannot be written). */
int rank_files_merge(const struct rank_files_merge *m, char *const *files,
                     size_t n);

/* Waits until every file of `files` exists (each is written whole, by a
 * rename), or `timeout` seconds passed; returns how many exist. */
size_t rank_files_wait(char *const *files, size_t n, double timeout);

#endif
