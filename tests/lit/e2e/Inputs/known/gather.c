/* gather.c: sum of table[idx[i]] for random indices into a table 8x the
 * modelled host cache: an irregular gather. */
#include "common.h"

#define TABLE (64 * 1024)
#define N (64 * 1024)
static double table[TABLE];
static unsigned idx[N];

int main(void) {
  for (int i = 0; i < TABLE; i++)
    table[i] = i;
  for (int i = 0; i < N; i++)
    idx[i] = (unsigned)(known_random() % TABLE);
  double sum = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      sum += table[idx[i]];
  return known_sink(sum);
}
