/* omp_triad.c: the OpenMP kernel of bench/threads.sh: a STREAM-like triad
 * over three arrays, repeated, in chunks of 16384 elements handed out
 * dynamically, so that a thread slowed by other load on the machine does
 * not hold the others back (threads share no data but chunk boundaries). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double *c = malloc(n * sizeof *c);
  if (!a || !b || !c)
    return 1;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = (double)i;
    c[i] = (double)(n - i);
  }
  for (int r = 0; r < reps; r++) {
#pragma omp parallel for schedule(dynamic, 16384)
    for (long i = 0; i < n; i++)
      a[i] += b[i] + 0.5 * c[i];
  }
  double sum = 0;
  for (long i = 0; i < n; i += 4096)
    sum += a[i];
  printf("checksum %.6e\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
