/* launcher.c: the environment of MPI launchers and the mpirun command
 * line of `run --mpi`. */
#include "launcher.h"
#include "child.h"
#include "numbers.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each launcher's rank variable and the variable of its size (NULL:
 * none); Slurm's are those of a job step. */
static const struct {
  const char *rank, *size;
} Launchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"PMIX_RANK", NULL},
    {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},
};

static int is_slurm_step(void) {
  return getenv("SLURM_STEP_NUM_TASKS") != NULL;
}

/* A whole number in [min, 2^30] from variable `name`, or -1 after an
 * error message. */
static long number_of(const char *name, const char *value, long min) {
  long v;
  if (parse_long(value, min, 1l << 30, &v)) {
    error("%s is '%s', not a %s", name, value,
          min ? "number of ranks" : "rank");
    return -1;
  }
  return v;
}

/* The job size from the first size variable set, or 0. */
static long job_size(void) {
  for (size_t i = 0; i < sizeof Launchers / sizeof *Launchers; i++) {
    const char *name = Launchers[i].size;
    const char *value = name ? getenv(name) : NULL;
    if (value)
      return number_of(name, value, 1);
  }
  return 0;
}

int launcher_rank(struct launcher_rank *r) {
  for (size_t i = 0; i < sizeof Launchers / sizeof *Launchers; i++) {
    const char *name = Launchers[i].rank, *value = getenv(name);
    if (!value || (!strcmp(name, "SLURM_PROCID") && !is_slurm_step()))
      continue;
    r->variable = name;
    r->rank = number_of(name, value, 0);
    r->size = r->rank < 0 ? -1 : job_size();
    return r->rank < 0 || r->size < 0 ? -1 : 1;
  }
  return 0;
}

const char *launcher_job_id(void) {
  static const char *const JobVars[] = {"SLURM_JOB_ID", "PBS_JOBID",
                                        "LSB_JOBID"};
  for (size_t i = 0; i < sizeof JobVars / sizeof *JobVars; i++) {
    const char *id = getenv(JobVars[i]);
    if (id && *id)
      return id;
  }
  return NULL;
}

void launcher_env_drop(struct strvec *env) {
  static const char *const Prefixes[] = {
      "OMPI_", "PMIX_", "PMI_", "SLURM_PROCID=", "SLURM_STEP_NUM_TASKS=", NULL};
  child_env_drop(env, Prefixes);
}

void launcher_mpirun(struct strvec *cmd, struct strvec *env, const char *file,
                     char *const *argv, int ranks, int oversubscribe) {
  const char *mpirun = getenv("PISA_MPIRUN");
  char np[16];
  snprintf(np, sizeof np, "%d", ranks);
  strvec_push(cmd, mpirun && *mpirun ? mpirun : "mpirun");
  strvec_push(cmd, "-np");
  strvec_push(cmd, np);
  if (geteuid() == 0)
    strvec_push(cmd, "--allow-run-as-root");
  if (oversubscribe)
    strvec_push(cmd, "--oversubscribe");
  for (size_t i = 0; i < env->n; i++)
    if (!strncmp(env->v[i], "PISA_", 5)) {
      char *name = xasprintf("%.*s", (int)strcspn(env->v[i], "="), env->v[i]);
      strvec_push(cmd, "-x");
      strvec_push(cmd, name);
      free(name);
    }
  strvec_push(cmd, file);
  for (size_t i = 1; argv[i]; i++)
    strvec_push(cmd, argv[i]);
  /* OpenMPI kills the other ranks of a failed job with SIGTERM and 1 s
   * later SIGKILL; give their runtimes time to write their results. */
  child_env_set(env, "OMPI_MCA_odls_base_sigkill_timeout", "10", 0);
}
