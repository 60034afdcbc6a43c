/* ring.c: the MPI program of mpi-ring.test.  Rank r sends (r + 1) * 100
 * doubles to r + 1 (Irecv + Send + Wait), 10 ints to r - 1 (Sendrecv, the
 * status ignored), then all ranks allreduce 16 doubles and rank 0
 * broadcasts 5 ints. */
#include <mpi.h>
#include <stdio.h>

static double out[400 * 100], in[400 * 100];

int main(int argc, char **argv) {
  int rank, size, ints[10] = {0}, back[10], five[5] = {1, 2, 3, 4, 5};
  double mine[16], all[16];
  MPI_Request request;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < (rank + 1) * 100; i++)
    out[i] = rank;
  MPI_Irecv(in, 400 * 100, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &request);
  MPI_Send(out, (rank + 1) * 100, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Sendrecv(ints, 10, MPI_INT, prev, 2, back, 10, MPI_INT, next, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 16; i++)
    mine[i] = rank;
  MPI_Allreduce(mine, all, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(five, 5, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("sum %.0f from %.0f\n", all[0], in[0]);
  MPI_Finalize();
  return 0;
}
