/* pathfinder.c: Rodinia pathfinder, written for pisa-char. Dynamic
 * programming over a ROWS x COLS grid of weights: the cheapest path from the
 * top row to each cell of the bottom row, moving down one row at a time
 * straight or diagonally. Rows in sequence, the columns of a row in
 * parallel (OpenMP). */
#include "rd_support.h"

/* The grid of weights 0..9, one random digit per cell. */
static int *make_wall(long rows, long cols) {
  int *wall = rd_alloc((size_t)(rows * cols), sizeof(int));
  struct rd_rng rng = rd_rng_make(7);
  for (long i = 0; i < rows * cols; i++)
    wall[i] = (int)rd_rng_below(&rng, 10);
  return wall;
}

static inline int min3(int a, int b, int c) {
  int m = a < b ? a : b;
  return m < c ? m : c;
}

/* next[c] = row[c] + the cheapest of prev[c-1], prev[c], prev[c+1] (the
 * ones that exist). */
static void relax_row(const int *prev, const int *row, int *next, long cols) {
#pragma omp parallel for schedule(static)
  for (long c = 0; c < cols; c++) {
    int left = prev[c > 0 ? c - 1 : c];
    int right = prev[c + 1 < cols ? c + 1 : c];
    next[c] = row[c] + min3(left, prev[c], right);
  }
}

/* The cost of the cheapest path to each bottom cell, into result[cols];
 * scratch is another cols ints. Returns the array holding the result. */
RD_KERNEL int *pathfinder(const int *wall, long rows, long cols, int *result,
                          int *scratch) {
  int *prev = result, *next = scratch;
  memcpy(prev, wall, (size_t)cols * sizeof(int));
  for (long r = 1; r < rows; r++) {
    relax_row(prev, wall + r * cols, next, cols);
    int *t = prev;
    prev = next;
    next = t;
  }
  return prev;
}

int main(int argc, char **argv) {
  long param[2] = {20000, 100}; /* COLS ROWS */
  rd_parse_args(argc, argv, "COLS ROWS", 2, param, 1L << 28);
  long cols = param[0], rows = param[1];
  rd_print_params("pathfinder", "COLS ROWS", 2, param);

  int *wall = make_wall(rows, cols);
  int *a = rd_alloc((size_t)cols, sizeof(int));
  int *b = rd_alloc((size_t)cols, sizeof(int));
  RD_ROI_BEGIN();
  int *cost = pathfinder(wall, rows, cols, a, b);
  RD_ROI_END();
  int best = cost[0];
  for (long c = 1; c < cols; c++)
    best = cost[c] < best ? cost[c] : best;
  printf("pathfinder: cheapest path %d\n", best);
  rd_print_checksum(rd_fold_int((double)best, cost, (size_t)cols));
  free(wall);
  free(a);
  free(b);
  return 0;
}
