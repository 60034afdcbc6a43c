/* fail.c: rank 1 exits with status 3 after an allreduce; the other ranks
 * wait in a barrier until mpirun terminates them. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  double x, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  x = rank;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 1)
    exit(3);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
