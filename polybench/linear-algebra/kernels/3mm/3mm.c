/* 3mm.c: PolyBench/C 4.2 3mm, written for pisa-char. Three matrix
 * products, G = (A B) (C D): E = A B (NI x NJ), F = C D (NJ x NL), then
 * G = E F (NI x NL). */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define NI 16
#define NJ 18
#define NK 20
#define NL 22
#define NM 24
#elif defined(SMALL_DATASET)
#define NI 40
#define NJ 50
#define NK 60
#define NL 70
#define NM 80
#elif defined(MEDIUM_DATASET)
#define NI 180
#define NJ 190
#define NK 200
#define NL 210
#define NM 220
#else
#define NI 800
#define NJ 900
#define NK 1000
#define NL 1100
#define NM 1200
#endif

static void init_arrays(int ni, int nj, int nk, int nl, int nm,
                        double A[NI][NK], double B[NK][NJ], double C[NJ][NM],
                        double D[NM][NL]) {
  pb_fill(&A[0][0], ni, nk, NK, 1);
  pb_fill(&B[0][0], nk, nj, NJ, 2);
  pb_fill(&C[0][0], nj, nm, NM, 3);
  pb_fill(&D[0][0], nm, nl, NL, 4);
}

PB_KERNEL void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                          double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
                          double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
                          double G[NI][NL]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (int k = 0; k < nk; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (int j = 0; j < nj; j++)
    for (int l = 0; l < nl; l++) {
      F[j][l] = 0.0;
      for (int m = 0; m < nm; m++)
        F[j][l] += C[j][m] * D[m][l];
    }
  for (int i = 0; i < ni; i++)
    for (int l = 0; l < nl; l++) {
      G[i][l] = 0.0;
      for (int j = 0; j < nj; j++)
        G[i][l] += E[i][j] * F[j][l];
    }
}

int main(void) {
  double(*E)[NJ] = pb_alloc(NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc(NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc(NK * NJ, sizeof(double));
  double(*F)[NL] = pb_alloc(NJ * NL, sizeof(double));
  double(*C)[NM] = pb_alloc(NJ * NM, sizeof(double));
  double(*D)[NL] = pb_alloc(NM * NL, sizeof(double));
  double(*G)[NL] = pb_alloc(NI * NL, sizeof(double));

  printf("3mm %s NI=%d NJ=%d NK=%d NL=%d NM=%d\n", PB_DATASET, NI, NJ, NK, NL,
         NM);
  init_arrays(NI, NJ, NK, NL, NM, A, B, C, D);
  PB_ROI_BEGIN();
  kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &G[0][0], NI * NL));
  free(E);
  free(A);
  free(B);
  free(F);
  free(C);
  free(D);
  free(G);
  return 0;
}
