/* 2mm.c: PolyBench/C 4.2 2mm, written for pisa-char. Two chained matrix
 * products, D = alpha A B C + beta D: tmp = alpha A B (NI x NJ), then
 * D = beta D + tmp C (NI x NL). */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define NI 16
#define NJ 18
#define NK 22
#define NL 24
#elif defined(SMALL_DATASET)
#define NI 40
#define NJ 50
#define NK 70
#define NL 80
#elif defined(MEDIUM_DATASET)
#define NI 180
#define NJ 190
#define NK 210
#define NL 220
#else
#define NI 800
#define NJ 900
#define NK 1100
#define NL 1200
#endif

static void init_arrays(int ni, int nj, int nk, int nl, double A[NI][NK],
                        double B[NK][NJ], double C[NJ][NL], double D[NI][NL]) {
  pb_fill(&A[0][0], ni, nk, NK, 1);
  pb_fill(&B[0][0], nk, nj, NJ, 2);
  pb_fill(&C[0][0], nj, nl, NL, 3);
  pb_fill(&D[0][0], ni, nl, NL, 4);
}

PB_KERNEL void kernel_2mm(int ni, int nj, int nk, int nl, double alpha,
                          double beta, double tmp[NI][NJ], double A[NI][NK],
                          double B[NK][NJ], double C[NJ][NL],
                          double D[NI][NL]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (int k = 0; k < nk; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (int i = 0; i < ni; i++)
    for (int l = 0; l < nl; l++) {
      D[i][l] *= beta;
      for (int j = 0; j < nj; j++)
        D[i][l] += tmp[i][j] * C[j][l];
    }
}

int main(void) {
  double(*tmp)[NJ] = pb_alloc(NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc(NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc(NK * NJ, sizeof(double));
  double(*C)[NL] = pb_alloc(NJ * NL, sizeof(double));
  double(*D)[NL] = pb_alloc(NI * NL, sizeof(double));

  printf("2mm %s NI=%d NJ=%d NK=%d NL=%d\n", PB_DATASET, NI, NJ, NK, NL);
  init_arrays(NI, NJ, NK, NL, A, B, C, D);
  PB_ROI_BEGIN();
  kernel_2mm(NI, NJ, NK, NL, 1.5, 1.2, tmp, A, B, C, D);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &D[0][0], NI * NL));
  free(tmp);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
