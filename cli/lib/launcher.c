/* launcher.c: the environment of MPI launchers and the mpirun command
 * line of `run --mpi`. */
#include "launcher.h"
#include "child.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *launcher_rank(void) {
  static const char *const RankVars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                         "PMI_RANK"};
  const char *rank = NULL;
  for (size_t i = 0; i < 3 && !rank; i++)
    rank = getenv(RankVars[i]);
  return rank;
}

void launcher_env_drop(struct strvec *env) {
  static const char *const Prefixes[] = {"OMPI_", "PMIX_", "PMI_", NULL};
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
