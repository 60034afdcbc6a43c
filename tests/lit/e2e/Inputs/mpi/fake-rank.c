/* fake-rank.c: a rank of an MPI job without MPI, for tests of a simulated
 * Slurm launch (srun): it tells the runtime its rank and the job's size
 * from Slurm's variables, as libpisa_mpi does from MPI_Comm_rank in
 * MPI_Init, with no MPI traffic. Rank R sums R + 1 arrays of 1000 ints. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

void __pisa_mpi_register(json_object *(*report)(void), int rank);

static int rank, size;

static json_object *traffic(void) {
  json_object *t = json_object_new_object();
  json_object_object_add(t, "messages", json_object_new_int(0));
  json_object_object_add(t, "bytes", json_object_new_int(0));
  return t;
}

static json_object *report(void) {
  json_object *o = json_object_new_object(), *c = json_object_new_object();
  json_object_object_add(o, "rank", json_object_new_int(rank));
  json_object_object_add(o, "size", json_object_new_int(size));
  json_object_object_add(o, "calls", json_object_new_object());
  json_object_object_add(o, "sent", traffic());
  json_object_object_add(o, "received", traffic());
  json_object_object_add(o, "peers", json_object_new_array());
  json_object_object_add(c, "calls", json_object_new_int(0));
  json_object_object_add(c, "bytes_sent", json_object_new_int(0));
  json_object_object_add(c, "bytes_received", json_object_new_int(0));
  json_object_object_add(o, "collectives", c);
  return o;
}

static volatile int data[1000];

int main(void) {
  rank = atoi(getenv("SLURM_PROCID"));
  size = atoi(getenv("SLURM_STEP_NUM_TASKS"));
  __pisa_mpi_register(report, rank);
  long sum = 0;
  for (int k = 0; k <= rank; k++)
    for (int i = 0; i < 1000; i++)
      sum += data[i] + i;
  printf("rank %d sum %ld\n", rank, sum);
  return 0;
}
