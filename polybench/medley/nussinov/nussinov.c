/* nussinov.c: PolyBench/C 4.2 nussinov, written for pisa-char. Nussinov's
 * dynamic program for RNA folding: the maximum number of complementary base
 * pairs of every subsequence of a length-N sequence, in an int table. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define N 60
#elif defined(SMALL_DATASET)
#define N 180
#elif defined(MEDIUM_DATASET)
#define N 500
#else
#define N 2500
#endif

/* Bases are 0..3 (A, C, G, U); b1 and b2 pair when they add up to 3. */
#define MATCH(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define MAX(a, b) ((a) >= (b) ? (a) : (b))

typedef char base;

static void init_arrays(int n, base seq[N], int table[N][N]) {
  for (int i = 0; i < n; i++)
    seq[i] = (base)(pb_value(i, 0, 1) * 4.0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      table[i][j] = 0;
}

PB_KERNEL void kernel_nussinov(int n, base seq[N], int table[N][N]) {
  for (int i = n - 1; i >= 0; i--)
    for (int j = i + 1; j < n; j++) {
      if (j - 1 >= 0)
        table[i][j] = MAX(table[i][j], table[i][j - 1]);
      if (i + 1 < n)
        table[i][j] = MAX(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < n) {
        if (i < j - 1)
          table[i][j] =
              MAX(table[i][j], table[i + 1][j - 1] + MATCH(seq[i], seq[j]));
        else
          table[i][j] = MAX(table[i][j], table[i + 1][j - 1]);
      }
      for (int k = i + 1; k < j; k++)
        table[i][j] = MAX(table[i][j], table[i][k] + table[k + 1][j]);
    }
}

int main(void) {
  base *seq = pb_alloc(N, sizeof(base));
  int(*table)[N] = pb_alloc(N * N, sizeof(int));

  printf("nussinov %s N=%d\n", PB_DATASET, N);
  init_arrays(N, seq, table);
  PB_ROI_BEGIN();
  kernel_nussinov(N, seq, table);
  PB_ROI_END();
  pb_print_checksum(pb_fold_int(0.0, &table[0][0], (size_t)N * N));
  free(seq);
  free(table);
  return 0;
}
