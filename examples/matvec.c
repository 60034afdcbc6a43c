/* matvec.c: the bundled example: y = A x for an n x n matrix, repeated,
 * plus a transposed product that walks A by columns (poor locality).
 * Usage: matvec [n]   (default 200) */
#include <stdio.h>
#include <stdlib.h>

static void matvec(int n, const double *a, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += a[(size_t)i * n + j] * x[j];
    y[i] = s;
  }
}

static void matvec_transposed(int n, const double *a, const double *x,
                              double *y) {
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += a[(size_t)i * n + j] * x[i];
    y[j] = s;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  if (n <= 0) {
    fprintf(stderr, "usage: matvec [n > 0]\n");
    return 2;
  }
  double *a = malloc(sizeof *a * n * n), *x = malloc(sizeof *x * n);
  double *y = malloc(sizeof *y * n);
  if (!a || !x || !y) {
    fprintf(stderr, "matvec: out of memory\n");
    return 1;
  }
  for (int i = 0; i < n * n; i++)
    a[i] = (double)(i % 7) - 3.0;
  for (int i = 0; i < n; i++)
    x[i] = 1.0 / (i + 1);
  double checksum = 0;
  for (int r = 0; r < 4; r++) {
    matvec(n, a, x, y);
    matvec_transposed(n, a, y, x);
    for (int i = 0; i < n; i++)
      x[i] /= n;
  }
  for (int i = 0; i < n; i++)
    checksum += x[i];
  printf("matvec n=%d checksum=%.6f\n", n, checksum);
  free(a);
  free(x);
  free(y);
  return 0;
}
