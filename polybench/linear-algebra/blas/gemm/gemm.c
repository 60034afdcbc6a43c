/* gemm.c: PolyBench/C 4.2 gemm, written for pisa-char. General matrix
 * product C = alpha A B + beta C with A NI x NK, B NK x NJ, C NI x NJ, in
 * the row-wise i-k-j order of the published kernel. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define NI 20
#define NJ 25
#define NK 30
#elif defined(SMALL_DATASET)
#define NI 60
#define NJ 70
#define NK 80
#elif defined(MEDIUM_DATASET)
#define NI 200
#define NJ 220
#define NK 240
#else
#define NI 1000
#define NJ 1100
#define NK 1200
#endif

static void init_arrays(int ni, int nj, int nk, double C[NI][NJ],
                        double A[NI][NK], double B[NK][NJ]) {
  pb_fill(&C[0][0], ni, nj, NJ, 1);
  pb_fill(&A[0][0], ni, nk, NK, 2);
  pb_fill(&B[0][0], nk, nj, NJ, 3);
}

PB_KERNEL void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                           double C[NI][NJ], double A[NI][NK],
                           double B[NK][NJ]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

int main(void) {
  double(*C)[NJ] = pb_alloc(NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc(NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc(NK * NJ, sizeof(double));

  printf("gemm %s NI=%d NJ=%d NK=%d\n", PB_DATASET, NI, NJ, NK);
  init_arrays(NI, NJ, NK, C, A, B);
  PB_ROI_BEGIN();
  kernel_gemm(NI, NJ, NK, 1.5, 1.2, C, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &C[0][0], NI * NJ));
  free(C);
  free(A);
  free(B);
  return 0;
}
