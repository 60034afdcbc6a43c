/* nw.c: Rodinia nw, written for pisa-char. Needleman-Wunsch global
 * alignment of two random protein sequences of LENGTH residues: the score
 * matrix is filled in 16 x 16 blocks along anti-diagonals of blocks, the
 * blocks of one anti-diagonal in parallel (OpenMP), then the alignment is
 * traced back from the last cell. */
#include "rd_support.h"

#define BLOCK 16
#define RESIDUES 24 /* amino-acid codes, as in BLOSUM-style tables */

/* A symmetric substitution table: matching residues score 4..8,
 * mismatches -4..2, from a fixed hash of the pair. */
static void make_table(int table[RESIDUES][RESIDUES]) {
  for (int a = 0; a < RESIDUES; a++)
    for (int b = 0; b <= a; b++) {
      int s = a == b ? 4 + (a * 7) % 5 : (a * 31 + b * 17 + a * b) % 7 - 4;
      table[a][b] = table[b][a] = s;
    }
}

/* Two sequences of random residues; position 0 is unused (the matrix's
 * border). */
static void make_sequences(long n, int *s1, int *s2) {
  struct rd_rng rng = rd_rng_make(3);
  for (long i = 1; i <= n; i++) {
    s1[i] = (int)rd_rng_below(&rng, RESIDUES);
    s2[i] = (int)rd_rng_below(&rng, RESIDUES);
  }
}

static inline int max3(int a, int b, int c) {
  int m = a > b ? a : b;
  return m > c ? m : c;
}

/* Fills block (bi, bj) of score[(n+1)^2] in row-major order; its upper and
 * left neighbours are done. */
static void fill_block(long n, long bi, long bj, const int *s1, const int *s2,
                       int table[RESIDUES][RESIDUES], int penalty, int *score) {
  long w = n + 1;
  for (long i = 1 + bi * BLOCK; i <= (bi + 1) * BLOCK; i++)
    for (long j = 1 + bj * BLOCK; j <= (bj + 1) * BLOCK; j++) {
      int diag = score[(i - 1) * w + j - 1] + table[s1[i]][s2[j]];
      score[i * w + j] = max3(diag, score[(i - 1) * w + j] - penalty,
                              score[i * w + j - 1] - penalty);
    }
}

/* The whole score matrix: borders are gap penalties, then the wavefront
 * of blocks. n is a multiple of BLOCK. */
RD_KERNEL void nw_fill(long n, const int *s1, const int *s2,
                       int table[RESIDUES][RESIDUES], int penalty, int *score) {
  long w = n + 1, blocks = n / BLOCK;
  for (long i = 0; i <= n; i++) {
    score[i * w] = -(int)i * penalty;
    score[i] = -(int)i * penalty;
  }
  for (long d = 0; d < 2 * blocks - 1; d++) {
    long first = d < blocks ? 0 : d - blocks + 1;
    long last = d < blocks ? d : blocks - 1;
#pragma omp parallel for schedule(static)
    for (long bi = first; bi <= last; bi++)
      fill_block(n, bi, d - bi, s1, s2, table, penalty, score);
  }
}

/* Walks back from (n, n) to (0, 0), preferring a match/mismatch step, then
 * a gap in the second sequence, then in the first; counts the aligned
 * pairs, in *pairs, and returns the number of steps. */
RD_KERNEL long nw_traceback(long n, const int *s1, const int *s2,
                            int table[RESIDUES][RESIDUES], int penalty,
                            const int *score, long *pairs) {
  long w = n + 1, i = n, j = n, steps = 0;
  *pairs = 0;
  while (i > 0 || j > 0) {
    int here = score[i * w + j];
    if (i > 0 && j > 0 &&
        here == score[(i - 1) * w + j - 1] + table[s1[i]][s2[j]]) {
      i--, j--, (*pairs)++;
    } else if (i > 0 && here == score[(i - 1) * w + j] - penalty) {
      i--;
    } else {
      j--;
    }
    steps++;
  }
  return steps;
}

int main(int argc, char **argv) {
  long param[2] = {1024, 10}; /* LENGTH PENALTY */
  rd_parse_args(argc, argv, "LENGTH PENALTY", 2, param, 1L << 15);
  long n = param[0];
  int penalty = (int)param[1];
  if (n % BLOCK) {
    fprintf(stderr, "%s: LENGTH must be a multiple of %d\n", argv[0], BLOCK);
    return 2;
  }
  rd_print_params("nw", "LENGTH PENALTY", 2, param);

  int table[RESIDUES][RESIDUES];
  int *s1 = rd_alloc((size_t)n + 1, sizeof(int));
  int *s2 = rd_alloc((size_t)n + 1, sizeof(int));
  int *score = rd_alloc((size_t)((n + 1) * (n + 1)), sizeof(int));
  make_table(table);
  make_sequences(n, s1, s2);
  RD_ROI_BEGIN();
  nw_fill(n, s1, s2, table, penalty, score);
  long pairs, steps = nw_traceback(n, s1, s2, table, penalty, score, &pairs);
  RD_ROI_END();
  printf("nw: score %d, %ld steps, %ld aligned pairs\n",
         score[(n + 1) * (n + 1) - 1], steps, pairs);
  double sum = (double)steps + 3.0 * (double)pairs;
  rd_print_checksum(rd_fold_int(sum, score, (size_t)((n + 1) * (n + 1))));
  free(s1);
  free(s2);
  free(score);
  return 0;
}
