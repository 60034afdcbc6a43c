/* spmv.c: y = A x for a random sparse matrix in CSR, 16 Ki rows of 8
 * non-zeros, twice: matrix streams, x is gathered (PrIM's SpMV). */
#include "common.h"

#define ROWS (16 * 1024)
#define PER_ROW 8
#define NNZ (ROWS * PER_ROW)
static double val[NNZ], x[ROWS], y[ROWS];
static unsigned col[NNZ], start[ROWS + 1];

int main(void) {
  for (int r = 0; r <= ROWS; r++)
    start[r] = (unsigned)(r * PER_ROW);
  for (int k = 0; k < NNZ; k++)
    col[k] = (unsigned)(known_random() % ROWS), val[k] = 1.0 / (k + 1);
  for (int i = 0; i < ROWS; i++)
    x[i] = i;
  for (int pass = 0; pass < 2; pass++)
    for (int r = 0; r < ROWS; r++) {
      double sum = 0;
      for (unsigned k = start[r]; k < start[r + 1]; k++)
        sum += val[k] * x[col[k]];
      y[r] = sum;
    }
  return known_sink(y[ROWS / 2]);
}
