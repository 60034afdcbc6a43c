/* stream.c: a tutorial example: the STREAM triad a = b + s * c over three
 * arrays of n doubles, repeated: streaming access, no reuse a cache could
 * keep.  Usage: stream [n] [reps]   (default 200000 2) */
#include <stdio.h>
#include <stdlib.h>

static void triad(long n, double *a, const double *b, const double *c,
                  double s) {
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int reps = argc > 2 ? atoi(argv[2]) : 2;
  if (n <= 0 || reps <= 0) {
    fprintf(stderr, "usage: stream [n > 0] [reps > 0]\n");
    return 2;
  }
  double *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
  double *c = malloc(sizeof *c * n);
  if (!a || !b || !c) {
    fprintf(stderr, "stream: out of memory\n");
    return 1;
  }
  for (long i = 0; i < n; i++) {
    b[i] = (double)(i % 11);
    c[i] = 1.0 / (double)(i % 13 + 1);
  }
  for (int r = 0; r < reps; r++)
    triad(n, a, b, c, 0.5 + r);
  double checksum = 0;
  for (long i = 0; i < n; i += 97)
    checksum += a[i];
  printf("stream n=%ld checksum=%.6f\n", n, checksum);
  free(a);
  free(b);
  free(c);
  return 0;
}
