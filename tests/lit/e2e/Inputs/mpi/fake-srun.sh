#!/bin/sh
# Runs a command as the tasks of a Slurm job step, as srun would start
# them, without Slurm: each task with SLURM_PROCID and the step's variables.
# Usage: fake-srun.sh NTASKS "RANKS TO START" COMMAND [ARGS...]
# (starting fewer ranks than NTASKS simulates ranks that never write)
ntasks=$1 ranks=$2
shift 2
export SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=$ntasks
pids=
for r in $ranks; do
  SLURM_PROCID=$r "$@" > "task$r.out" 2> "task$r.err" &
  pids="$pids $!"
done
status=0
for p in $pids; do
  wait "$p" || status=$?
done
cat task*.err >&2
exit $status
