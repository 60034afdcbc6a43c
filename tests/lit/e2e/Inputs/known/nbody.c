/* nbody.c: one all-pairs force step over 256 bodies (14 KiB): about 20
 * floating-point operations per pair on data that stays in cache. */
#include "common.h"

#include <math.h>

#define N 256
static double px[N], py[N], pz[N], m[N], ax[N], ay[N], az[N];

int main(void) {
  for (int i = 0; i < N; i++)
    px[i] = i % 17, py[i] = i % 13, pz[i] = i % 11, m[i] = 1 + i % 3;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
      double d2 = dx * dx + dy * dy + dz * dz + 0.01;
      double inv = 1.0 / (d2 * sqrt(d2));
      ax[i] += m[j] * dx * inv;
      ay[i] += m[j] * dy * inv;
      az[i] += m[j] * dz * inv;
    }
  return known_sink(ax[7] + ay[8] + az[9]);
}
