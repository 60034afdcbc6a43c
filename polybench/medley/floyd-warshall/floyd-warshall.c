/* floyd-warshall.c: PolyBench/C 4.2 floyd-warshall, written for pisa-char.
 * All-pairs shortest path lengths of a directed graph of N nodes, in place
 * on an integer distance matrix, as in PolyBench. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define N 60
#elif defined(SMALL_DATASET)
#define N 180
#elif defined(MEDIUM_DATASET)
#define N 500
#else
#define N 2800
#endif

/* Far more than any path's length, yet no sum of two overflows an int. */
#define NO_EDGE 1000000

/* About half of the possible edges, with lengths 1 to 100. */
static void init_arrays(int n, int path[N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i == j)
        path[i][j] = 0;
      else if (pb_value(i, j, 1) < 0.5)
        path[i][j] = 1 + (int)(pb_value(i, j, 2) * 100.0);
      else
        path[i][j] = NO_EDGE;
    }
}

PB_KERNEL void kernel_floyd_warshall(int n, int path[N][N]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                         ? path[i][j]
                         : path[i][k] + path[k][j];
}

int main(void) {
  int(*path)[N] = pb_alloc(N * N, sizeof(int));

  printf("floyd-warshall %s N=%d\n", PB_DATASET, N);
  init_arrays(N, path);
  PB_ROI_BEGIN();
  kernel_floyd_warshall(N, path);
  PB_ROI_END();
  pb_print_checksum(pb_fold_int(0.0, &path[0][0], (size_t)N * N));
  free(path);
  return 0;
}
