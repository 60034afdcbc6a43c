/* A counter-mode program for top.test: work(n) loads n doubles, four
 * times in the region "step", so its bytes loaded are 4 * 8 * n; then it
 * writes DIR/ready.PID and waits (polling, without calling work) until
 * DIR/go exists. With -DWITH_MPI, each rank of an MPI job does the same. */
#include <pisa.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

double a[1 << 16];

__attribute__((noinline)) double work(long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i & 0xffff];
  return s;
}

int main(int argc, char **argv) {
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  if (argc != 3)
    return 2;
  long n = atol(argv[1]);
  for (long i = 0; i < (1 << 16); i++)
    a[i] = (double)(i % 7);
  double s = 0;
  for (int r = 0; r < 4; r++) {
    PISA_ROI_BEGIN("step");
    s += work(n);
    PISA_ROI_END("step");
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/ready.%ld", argv[2], (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f)
    return 3;
  fclose(f);
  snprintf(path, sizeof path, "%s/go", argv[2]);
  while (access(path, F_OK) != 0)
    usleep(10000);
  printf("sum %.0f\n", s);
#ifdef WITH_MPI
  MPI_Finalize();
#endif
  return 0;
}
