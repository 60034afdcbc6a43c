/* histo.c: a histogram of random keys over a table of 128 Ki counters,
 * 8x the modelled host cache: random read-modify-write (PrIM's HST). */
#include "common.h"

#define BINS (128 * 1024)
#define KEYS (128 * 1024)
static unsigned bins[BINS];

int main(void) {
  for (int k = 0; k < KEYS; k++)
    bins[known_random() % BINS]++;
  unsigned most = 0;
  for (int i = 0; i < BINS; i++)
    most = bins[i] > most ? bins[i] : most;
  return known_sink(most);
}
