/* ts.c: PrIM's TS on the CPU: the distance of a 64-point query to every
 * window of an 8 Ki-point time series (the matrix profile's inner loop). */
#include "../known/common.h"

#define N (8 * 1024)
#define M 64
static double series[N + M], query[M], profile[N];

int main(void) {
  for (int i = 0; i < N + M; i++)
    series[i] = (double)(known_random() & 255);
  for (int j = 0; j < M; j++)
    query[j] = series[1000 + j];
  for (int i = 0; i < N; i++) {
    double d = 0;
    for (int j = 0; j < M; j++) {
      double e = series[i + j] - query[j];
      d += e * e;
    }
    profile[i] = d;
  }
  double best = profile[0];
  for (int i = 1; i < N; i++)
    best = profile[i] < best ? profile[i] : best;
  return known_sink(best);
}
