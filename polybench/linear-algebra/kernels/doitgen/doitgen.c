/* doitgen.c: PolyBench/C 4.2 doitgen, written for pisa-char. The
 * multi-resolution kernel of MADNESS: every length-NP vector A[r][q][:] of
 * an NR x NQ x NP tensor is replaced by its product with C4 (NP x NP). */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define NQ 8
#define NR 10
#define NP 12
#elif defined(SMALL_DATASET)
#define NQ 20
#define NR 25
#define NP 30
#elif defined(MEDIUM_DATASET)
#define NQ 40
#define NR 50
#define NP 60
#else
#define NQ 140
#define NR 150
#define NP 160
#endif

static void init_arrays(int nr, int nq, int np, double A[NR][NQ][NP],
                        double C4[NP][NP]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++)
      for (int p = 0; p < np; p++)
        A[r][q][p] = pb_value(r * nq + q, p, 1);
  pb_fill(&C4[0][0], np, np, NP, 2);
}

PB_KERNEL void kernel_doitgen(int nr, int nq, int np, double A[NR][NQ][NP],
                              double C4[NP][NP], double sum[NP]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

int main(void) {
  double(*A)[NQ][NP] = pb_alloc(NR * NQ * NP, sizeof(double));
  double(*C4)[NP] = pb_alloc(NP * NP, sizeof(double));
  double *sum = pb_alloc(NP, sizeof(double));

  printf("doitgen %s NQ=%d NR=%d NP=%d\n", PB_DATASET, NQ, NR, NP);
  init_arrays(NR, NQ, NP, A, C4);
  PB_ROI_BEGIN();
  kernel_doitgen(NR, NQ, NP, A, C4, sum);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0][0], NR * NQ * NP));
  free(A);
  free(C4);
  free(sum);
  return 0;
}
