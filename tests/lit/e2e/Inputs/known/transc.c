/* transc.c: a loop of transcendental functions (exp and sin by range
 * reduction and polynomials, written here so that the work is
 * instrumented rather than hidden in the C library): compute-bound. */
#include "common.h"

#define N (8 * 1024)

/* exp(x) for x in [-1, 0] by its Taylor polynomial of degree 10. */
static double poly_exp(double x) {
  double term = 1, sum = 1;
  for (int k = 1; k <= 10; k++)
    term *= x / k, sum += term;
  return sum;
}

/* sin(x) for x in [0, 1] by its Taylor polynomial of degree 11. */
static double poly_sin(double x) {
  double term = x, sum = x;
  for (int k = 1; k <= 5; k++)
    term *= -x * x / ((2 * k) * (2 * k + 1)), sum += term;
  return sum;
}

int main(void) {
  double acc = 0;
  for (int i = 0; i < N; i++) {
    double x = (double)i / N;
    acc += poly_sin(x) * poly_exp(-x);
  }
  return known_sink(acc);
}
