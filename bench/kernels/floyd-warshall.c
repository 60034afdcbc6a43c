/* floyd-warshall.c: benchmark kernel, all-pairs shortest paths on a dense
 * N-vertex graph of integer weights (the PolyBench floyd-warshall algorithm).
 * Usage: floyd-warshall [N]; prints a checksum. */
#include "kernel.h"

#define DEFAULT_N 1150
#define NO_EDGE 999

static void init(long n, int *path) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      long s = i + j;
      path[i * n + j] = (int)(i * j % 7 + 1);
      if (s % 13 == 0 || s % 7 == 0 || s % 11 == 0)
        path[i * n + j] = NO_EDGE;
    }
}

static void floyd_warshall(long n, int *path) {
  for (long k = 0; k < n; k++) {
    PISA_ROI_BEGIN("relax");
    for (long i = 0; i < n; i++) {
      int ik = path[i * n + k];
      for (long j = 0; j < n; j++) {
        int via = ik + path[k * n + j];
        path[i * n + j] = via < path[i * n + j] ? via : path[i * n + j];
      }
    }
    PISA_ROI_END("relax");
  }
}

int main(int argc, char **argv) {
  long n = kernel_arg("floyd-warshall", argc, argv, 1, DEFAULT_N);
  int *path = kernel_alloc("floyd-warshall", n * n, sizeof(int));
  init(n, path);
  floyd_warshall(n, path);
  unsigned long long sum = 0;
  for (long i = 0; i < n * n; i++)
    sum += (unsigned long long)path[i] * (unsigned long long)(i % 5 + 1);
  printf("floyd-warshall n=%ld\nchecksum %llu\n", n, sum);
  free(path);
  return 0;
}
