/* fdtd-2d.c: PolyBench/C 4.2 fdtd-2d, written for pisa-char. 2-D finite
 * difference time domain on an NX x NY grid: each of TMAX steps updates Ey
 * (its first row driven by a source), Ex, then Hz. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TMAX 20
#define NX 20
#define NY 30
#elif defined(SMALL_DATASET)
#define TMAX 40
#define NX 60
#define NY 80
#elif defined(MEDIUM_DATASET)
#define TMAX 100
#define NX 200
#define NY 240
#else
#define TMAX 500
#define NX 1000
#define NY 1200
#endif

static void init_arrays(int tmax, int nx, int ny, double ex[NX][NY],
                        double ey[NX][NY], double hz[NX][NY],
                        double source[TMAX]) {
  for (int t = 0; t < tmax; t++)
    source[t] = (double)t / (double)tmax;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      ex[i][j] = pb_value(i, j, 1);
      ey[i][j] = pb_value(i, j, 2);
      hz[i][j] = pb_value(i, j, 3);
    }
}

PB_KERNEL void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
                              double ey[NX][NY], double hz[NX][NY],
                              double source[TMAX]) {
  for (int t = 0; t < tmax; t++) {
    for (int j = 0; j < ny; j++)
      ey[0][j] = source[t];
    for (int i = 1; i < nx; i++)
      for (int j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < nx; i++)
      for (int j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] -
                   0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}

int main(void) {
  double(*ex)[NY] = pb_alloc(NX * NY, sizeof(double));
  double(*ey)[NY] = pb_alloc(NX * NY, sizeof(double));
  double(*hz)[NY] = pb_alloc(NX * NY, sizeof(double));
  double *source = pb_alloc(TMAX, sizeof(double));

  printf("fdtd-2d %s TMAX=%d NX=%d NY=%d\n", PB_DATASET, TMAX, NX, NY);
  init_arrays(TMAX, NX, NY, ex, ey, hz, source);
  PB_ROI_BEGIN();
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, source);
  PB_ROI_END();
  pb_print_checksum(
      pb_fold(pb_fold(pb_fold(0.0, &ex[0][0], NX * NY), &ey[0][0], NX * NY),
              &hz[0][0], NX * NY));
  free(ex);
  free(ey);
  free(hz);
  free(source);
  return 0;
}
