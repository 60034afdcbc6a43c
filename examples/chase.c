/* chase.c: a tutorial example: a walk along one random cycle through n
 * nodes (Sattolo's shuffle): every load depends on the one before and
 * lands on an unpredictable cache line.  Usage: chase [n] [steps]
 * (default 262144 400000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* SplitMix64: a fixed sequence, so every run walks the same cycle. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 262144;
  long steps = argc > 2 ? atol(argv[2]) : 400000;
  if (n <= 1 || steps <= 0) {
    fprintf(stderr, "usage: chase [n > 1] [steps > 0]\n");
    return 2;
  }
  long *next = malloc(sizeof *next * n);
  if (!next) {
    fprintf(stderr, "chase: out of memory\n");
    return 1;
  }
  for (long i = 0; i < n; i++)
    next[i] = i;
  uint64_t seed = 42;
  for (long i = n - 1; i > 0; i--) { /* Sattolo: one cycle through all */
    long j = (long)(next_random(&seed) % (uint64_t)i);
    long t = next[i];
    next[i] = next[j];
    next[j] = t;
  }
  long p = 0, sum = 0;
  for (long s = 0; s < steps; s++) {
    p = next[p];
    sum += p;
  }
  printf("chase n=%ld checksum=%ld\n", n, sum);
  free(next);
  return 0;
}
