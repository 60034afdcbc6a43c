/* pointer-chase.c: benchmark kernel, a linked list laid out in an array as
 * one random cyclic permutation (Sattolo's algorithm) of N nodes, followed
 * for STEPS steps: every load depends on the previous one and misses caches.
 * Usage: pointer-chase [N [STEPS]]; prints a checksum. */
#include <pisa.h> /* regions of interest; nothing without pisa-cc */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N (1L << 20)
#define DEFAULT_STEPS (1L << 22)

struct node {
  uint64_t next; /* index of the successor */
  uint64_t value;
};

static long arg_or(int argc, char **argv, int i, long fallback) {
  if (argc <= i)
    return fallback;
  long v = strtol(argv[i], NULL, 10);
  if (v <= 0) {
    fprintf(stderr, "pointer-chase: bad argument '%s'\n", argv[i]);
    exit(2);
  }
  return v;
}

/* splitmix64: a fixed seed keeps the permutation deterministic. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Sattolo's algorithm: a uniformly random permutation with one cycle, so
 * the walk visits every node before it comes back. */
static void make_cycle(long n, struct node *nodes) {
  uint64_t *order = malloc(n * sizeof(uint64_t));
  uint64_t state = 42;
  if (!order) {
    fprintf(stderr, "pointer-chase: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < n; i++)
    order[i] = (uint64_t)i;
  for (long i = n - 1; i > 0; i--) {
    long j = (long)(next_random(&state) % (uint64_t)i);
    uint64_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (long i = 0; i < n; i++) {
    nodes[order[i]].next = order[(i + 1) % n];
    nodes[i].value = (uint64_t)i * 2654435761u;
  }
  free(order);
}

static uint64_t chase(const struct node *nodes, long steps) {
  uint64_t at = 0, sum = 0;
  for (long s = 0; s < steps; s++) {
    sum += nodes[at].value ^ (uint64_t)s;
    at = nodes[at].next;
  }
  return sum + at;
}

int main(int argc, char **argv) {
  long n = arg_or(argc, argv, 1, DEFAULT_N);
  long steps = arg_or(argc, argv, 2, DEFAULT_STEPS);
  struct node *nodes = malloc(n * sizeof(struct node));
  if (!nodes) {
    fprintf(stderr, "pointer-chase: out of memory\n");
    return 1;
  }
  make_cycle(n, nodes);
  PISA_ROI_BEGIN("chase");
  uint64_t sum = chase(nodes, steps);
  PISA_ROI_END("chase");
  printf("pointer-chase n=%ld steps=%ld\nchecksum %llu\n", n, steps,
         (unsigned long long)sum);
  free(nodes);
  return 0;
}
