/* deriche.c: PolyBench/C 4.2 deriche, written for pisa-char. Deriche's
 * recursive smoothing filter on a W x H float image: causal plus anti-causal
 * passes along each row, then down each column. */
#include <math.h>

#include "pb_support.h"

#if defined(MINI_DATASET)
#define W 64
#define H 64
#elif defined(SMALL_DATASET)
#define W 192
#define H 128
#elif defined(MEDIUM_DATASET)
#define W 720
#define H 480
#else
#define W 4096
#define H 2160
#endif

static void init_arrays(int w, int h, float imgIn[W][H]) {
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++)
      imgIn[i][j] = (float)pb_value(i, j, 1);
}

PB_KERNEL void kernel_deriche(int w, int h, float alpha, float imgIn[W][H],
                              float imgOut[W][H], float y1[W][H],
                              float y2[W][H]) {
  /* The smoothing filter's coefficients (Deriche 1990): a1..a4 along rows,
   * a5..a8 along columns, feedback b1, b2, output scales c1, c2. */
  float e = expf(-alpha);
  float k = (1.0f - e) * (1.0f - e) / (1.0f + 2.0f * alpha * e - e * e);
  float a1 = k, a5 = k;
  float a2 = k * e * (alpha - 1.0f), a6 = a2;
  float a3 = k * e * (alpha + 1.0f), a7 = a3;
  float a4 = -k * e * e, a8 = a4;
  float b1 = 2.0f * e;
  float b2 = -e * e;
  float c1 = 1.0f, c2 = 1.0f;

  for (int i = 0; i < w; i++) {
    float ym1 = 0.0f, ym2 = 0.0f, xm1 = 0.0f;
    for (int j = 0; j < h; j++) {
      y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  for (int i = 0; i < w; i++) {
    float yp1 = 0.0f, yp2 = 0.0f, xp1 = 0.0f, xp2 = 0.0f;
    for (int j = h - 1; j >= 0; j--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++)
      imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);

  for (int j = 0; j < h; j++) {
    float tm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
    for (int i = 0; i < w; i++) {
      y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  for (int j = 0; j < h; j++) {
    float tp1 = 0.0f, tp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
    for (int i = w - 1; i >= 0; i--) {
      y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++)
      imgOut[i][j] = c2 * (y1[i][j] + y2[i][j]);
}

int main(void) {
  float(*imgIn)[H] = pb_alloc(W * H, sizeof(float));
  float(*imgOut)[H] = pb_alloc(W * H, sizeof(float));
  float(*y1)[H] = pb_alloc(W * H, sizeof(float));
  float(*y2)[H] = pb_alloc(W * H, sizeof(float));

  printf("deriche %s W=%d H=%d\n", PB_DATASET, W, H);
  init_arrays(W, H, imgIn);
  PB_ROI_BEGIN();
  kernel_deriche(W, H, 0.25f, imgIn, imgOut, y1, y2);
  PB_ROI_END();
  pb_print_checksum(pb_fold_float(0.0, &imgOut[0][0], (size_t)W * H));
  free(imgIn);
  free(imgOut);
  free(y1);
  free(y2);
  return 0;
}
