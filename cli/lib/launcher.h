/* launcher.h: MPI and batch launchers (Open MPI's mpirun, MPICH's and
 * Intel MPI's PMI, PMIx, Slurm's srun): which rank of a job pisa-char is,
 * the job's id, their variables in an environment, and the mpirun
 * command line of `pisa-char run --mpi N`. */
#ifndef PISA_CLI_LAUNCHER_H
#define PISA_CLI_LAUNCHER_H

#include "strvec.h"

struct launcher_rank {
  long rank;            /* this process's rank */
  long size;            /* ranks of the job; 0 when the launcher says not */
  const char *variable; /* the variable the rank came from */
};

/* Whether this process is a rank of a launcher's job: 1 with *r filled
 * from the first of OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH,
 * Intel MPI), PMIX_RANK (PMIx) and SLURM_PROCID (srun: only inside a job
 * step, which SLURM_STEP_NUM_TASKS marks; a batch script is no rank), the
 * size from OMPI_COMM_WORLD_SIZE, PMI_SIZE or SLURM_STEP_NUM_TASKS; 0 when
 * not started by a launcher; -1 after an error message naming a variable
 * that holds no rank or size. */
int launcher_rank(struct launcher_rank *r);

/* The batch system's id of the job: SLURM_JOB_ID, PBS_JOBID or LSB_JOBID,
 * or NULL outside a batch job. */
const char *launcher_job_id(void);

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
