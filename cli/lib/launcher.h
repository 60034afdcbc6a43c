/* launcher.h: MPI launchers (Open MPI's mpirun, PMIx, PMI): which rank of
 * a job pisa-char is, their variables in an environment, and the mpirun
 * command line of `pisa-char run --mpi N`. */
#ifndef PISA_CLI_LAUNCHER_H
#define PISA_CLI_LAUNCHER_H

#include "strvec.h"

/* The rank of this process as its launcher set it (OMPI_COMM_WORLD_RANK,
 * PMIX_RANK or PMI_RANK), or NULL when not started by one. */
const char *launcher_rank(void);

/* Removes the launchers' variables, so that programs started from a rank
 * run as programs of their own, not as ranks of its job. */
void launcher_env_drop(struct strvec *env);

/* The command line that starts `argv` (argv[0] replaced by `file`) as an
 * MPI job of `ranks` ranks: $PISA_MPIRUN or mpirun, -np N, with
 * --allow-run-as-root when run as root, --oversubscribe when asked, and
 * -x NAME for every PISA_ variable of `env`, so that every rank gets the
 * runtime's settings. Sets Open MPI's SIGKILL delay in `env` unless set. */
void launcher_mpirun(struct strvec *cmd, struct strvec *env, const char *file,
                     char *const *argv, int ranks, int oversubscribe);

#endif
