/* rawdoc.h: the raw result document that both modes write (rawdoc.c): its
 * header, where it goes, its atomic write, and the MPI rank that
 * libpisa_mpi registers.  The reports fill the rest. */
#ifndef PISA_RAWDOC_H
#define PISA_RAWDOC_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

struct json_object;

/* A raw document's header: schema, pid, ppid, complete, signal, mode, and
 * when known the exit status and the MPI rank's "mpi" object. */
PISA_HIDDEN struct json_object *pisa_raw_document(int complete, int signal,
                                                  const char *mode);
/* Writes a raw document (either mode's) atomically into PISA_OUTPUT_DIR as
 * STEM.PID.json (PISA_RESULT_STEM, or PISA_SNAPSHOT_STEM for a snapshot of
 * a running process) and releases it; 0 on success. */
#define PISA_RESULT_STEM "raw"
#define PISA_SNAPSHOT_STEM "snapshot"
PISA_HIDDEN int pisa_write_raw(struct json_object *doc, const char *stem);
/* The same, with the array `key` added as the document's last member, its
 * elements written by `stream` (comma separated, -1 on a write error)
 * rather than held as json-c objects: for an array too large to build
 * whole beside the analysis state.  `key` must not be in doc. */
PISA_HIDDEN int pisa_write_raw_streamed(struct json_object *doc,
                                        const char *stem, const char *key,
                                        int (*stream)(FILE *));

/* At start-up: the result of an earlier image of this process (written
 * before it exec'd this one) becomes exec.PID.N.json, N = 0, 1, ... in
 * order, so that this image's result does not replace it: pisa-char merges
 * them (cli/lib/runresults.c). */
PISA_HIDDEN void pisa_keep_earlier_image(void);

/* PISA_OUTPUT_DIR/STEM.PID.EXT, the name of one of the process's outputs,
 * in a buffer of PISA_OUTPUT_PATH_MAX bytes. */
#define PISA_OUTPUT_PATH_MAX (sizeof pisa_config.output_dir + 64)
PISA_HIDDEN void pisa_output_path(char *path, const char *stem,
                                  const char *ext);

/* What libpisa_mpi registered in MPI_Init (__pisa_mpi_register): the rank,
 * 0 without; the process's "mpi" object, NULL without. */
PISA_HIDDEN int pisa_mpi_rank(void);
/* Whether libpisa_mpi registered (MPI_Init ran). */
PISA_HIDDEN int pisa_mpi_active(void);
PISA_HIDDEN struct json_object *pisa_mpi_json(void);

#endif
