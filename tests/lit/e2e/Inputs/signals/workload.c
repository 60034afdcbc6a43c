/* workload.c: the program of the fault-injection test: start-up, a run
 * that fills the runtime's buffer a few dozen times (so signals land while
 * it decodes), a line of output and exit 0. */
#include <stdio.h>

#define N (1 << 12)

static double a[N];

__attribute__((noinline)) static double pass(double scale) {
  double sum = 0;
  for (int i = 0; i < N; i++) {
    a[i] = a[i] * scale + i;
    sum += a[i];
  }
  return sum;
}

int main(void) {
  double sum = 0;
  for (int p = 0; p < 8; p++)
    sum += pass(0.5);
  printf("sum %.0f\n", sum);
  return 0;
}
