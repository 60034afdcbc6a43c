/* objects.c: the MPI program of mpi-objects.test.  Every rank allocates
 * (rank + 1) * 512 doubles at one site (line 41) and writes and reads each
 * once; rank 0 allocates 64 longs at line 29, rank 1 128 longs at line 33,
 * each written once; every rank writes the global `counts` (16 ints) once.
 * Each array is released before MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>

int counts[16];

__attribute__((noinline)) void fill(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) double sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) void fill_longs(long *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) long *longs_of_rank0(void) {
  return malloc(64 * sizeof(long));
}

__attribute__((noinline)) long *longs_of_rank1(void) {
  return malloc(128 * sizeof(long));
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = (rank + 1) * 512;
  double *a = malloc(n * sizeof *a);
  fill(a, n);
  double s = sum(a, n);
  long *b = rank == 0 ? longs_of_rank0() : longs_of_rank1();
  fill_longs(b, rank == 0 ? 64 : 128);
  for (int i = 0; i < 16; i++)
    counts[i] = rank + i;
  free(b);
  free(a);
  MPI_Finalize();
  return s < 0;
}
