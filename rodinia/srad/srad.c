/* srad.c: Rodinia srad, written for pisa-char. Speckle Reducing
 * Anisotropic Diffusion (Yu and Acton, 2002) of a ROWS x COLS ultrasound-
 * like image for ITERATIONS steps: each step measures the speckle in a
 * homogeneous region of interest, computes every pixel's diffusion
 * coefficient from its local gradient and Laplacian, then diffuses. Both
 * pixel passes run their rows in parallel (OpenMP). */
#include "rd_support.h"

#include <math.h>

#define LAMBDA 0.5f
#define LOOKS 4 /* speckle: the mean of this many exponential samples */

/* A phantom (dark background, a bright disc, a mid-grey bar) times
 * multiplicative speckle noise of mean 1. */
static void make_image(long rows, long cols, float *image) {
  struct rd_rng rng = rd_rng_make(5);
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < cols; j++) {
      double y = (double)i / rows - 0.5, x = (double)j / cols - 0.6;
      double tissue = 0.3;
      if (x * x + y * y < 0.06)
        tissue = 0.9;
      else if (j > cols / 8 && j < cols / 4 && i > rows / 3)
        tissue = 0.6;
      double speckle = 0.0;
      for (int k = 0; k < LOOKS; k++)
        speckle -= log(1.0 - rd_rng_uniform(&rng));
      image[i * cols + j] = (float)(tissue * speckle / LOOKS + 1e-3);
    }
}

/* The squared coefficient of variation of the region of interest, the top
 * left eighth by eighth of the image (background only): the speckle scale
 * the coefficients compare against. A sequential sum. */
static float speckle_scale(const float *image, long rows, long cols) {
  double sum = 0.0, sum2 = 0.0;
  long roi_rows = rows / 8 > 0 ? rows / 8 : 1;
  long roi_cols = cols / 8 > 0 ? cols / 8 : 1;
  for (long i = 0; i < roi_rows; i++)
    for (long j = 0; j < roi_cols; j++) {
      double v = image[i * cols + j];
      sum += v;
      sum2 += v * v;
    }
  double count = (double)(roi_rows * roi_cols), mean = sum / count;
  return (float)((sum2 / count - mean * mean) / (mean * mean));
}

/* Pass 1: the four differences to the neighbours (an edge pixel is its own
 * missing neighbour) and the diffusion coefficient, clamped to [0, 1]. */
static void coefficients(const float *image, long rows, long cols, float q0,
                         float *dn, float *ds, float *dw, float *de, float *c) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < rows; i++) {
    long up = i > 0 ? i - 1 : i, down = i + 1 < rows ? i + 1 : i;
    for (long j = 0; j < cols; j++) {
      long k = i * cols + j;
      long left = j > 0 ? j - 1 : j, right = j + 1 < cols ? j + 1 : j;
      float here = image[k];
      dn[k] = image[up * cols + j] - here;
      ds[k] = image[down * cols + j] - here;
      dw[k] = image[i * cols + left] - here;
      de[k] = image[i * cols + right] - here;
      float g2 =
          (dn[k] * dn[k] + ds[k] * ds[k] + dw[k] * dw[k] + de[k] * de[k]) /
          (here * here);
      float lap = (dn[k] + ds[k] + dw[k] + de[k]) / here;
      float num = 0.5f * g2 - 0.0625f * lap * lap;
      float den = 1.0f + 0.25f * lap;
      float q = num / (den * den);
      float coef = 1.0f / (1.0f + (q - q0) / (q0 * (1.0f + q0)));
      c[k] = coef < 0.0f ? 0.0f : coef > 1.0f ? 1.0f : coef;
    }
  }
}

/* Pass 2: the divergence of c times the gradient (north and west faces use
 * the pixel's own coefficient, south and east the neighbour's), added with
 * step LAMBDA / 4. */
static void diffuse(float *image, long rows, long cols, const float *dn,
                    const float *ds, const float *dw, const float *de,
                    const float *c) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < rows; i++) {
    long down = i + 1 < rows ? i + 1 : i;
    for (long j = 0; j < cols; j++) {
      long k = i * cols + j, right = j + 1 < cols ? j + 1 : j;
      float div = c[k] * dn[k] + c[down * cols + j] * ds[k] + c[k] * dw[k] +
                  c[i * cols + right] * de[k];
      image[k] += 0.25f * LAMBDA * div;
    }
  }
}

RD_KERNEL void srad(float *image, long rows, long cols, long iterations,
                    float *scratch) {
  size_t n = (size_t)(rows * cols);
  float *dn = scratch, *ds = dn + n, *dw = ds + n, *de = dw + n, *c = de + n;
  for (long it = 0; it < iterations; it++) {
    float q0 = speckle_scale(image, rows, cols);
    coefficients(image, rows, cols, q0, dn, ds, dw, de, c);
    diffuse(image, rows, cols, dn, ds, dw, de, c);
  }
}

int main(int argc, char **argv) {
  long param[3] = {256, 256, 10}; /* ROWS COLS ITERATIONS */
  rd_parse_args(argc, argv, "ROWS COLS ITERATIONS", 3, param, 1L << 16);
  long rows = param[0], cols = param[1], iterations = param[2];
  rd_print_params("srad", "ROWS COLS ITERATIONS", 3, param);

  float *image = rd_alloc((size_t)(rows * cols), sizeof(float));
  float *scratch = rd_alloc(5 * (size_t)(rows * cols), sizeof(float));
  make_image(rows, cols, image);
  RD_ROI_BEGIN();
  srad(image, rows, cols, iterations, scratch);
  RD_ROI_END();
  printf("srad: speckle scale after %ld steps %.6f\n", iterations,
         (double)speckle_scale(image, rows, cols));
  rd_print_checksum(rd_fold_float(0.0, image, (size_t)(rows * cols)));
  free(image);
  free(scratch);
  return 0;
}
