/* pointer-chase.c: benchmark kernel, a linked list laid out in an array as
 * one random cyclic permutation (Sattolo's algorithm) of N nodes, followed
 * for STEPS steps: every load depends on the previous one and misses caches.
 * Usage: pointer-chase [N [STEPS]]; prints a checksum. */
#include "kernel.h"

#define DEFAULT_N (1L << 20)
#define DEFAULT_STEPS (1L << 22)

struct node {
  uint64_t next; /* index of the successor */
  uint64_t value;
};

/* Sattolo's algorithm: a uniformly random permutation with one cycle, so
 * the walk visits every node before it comes back. */
static void make_cycle(long n, struct node *nodes) {
  uint64_t *order = kernel_alloc("pointer-chase", n, sizeof(uint64_t));
  uint64_t state = 42;
  for (long i = 0; i < n; i++)
    order[i] = (uint64_t)i;
  for (long i = n - 1; i > 0; i--) {
    long j = (long)(splitmix64(&state) % (uint64_t)i);
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
  long n = kernel_arg("pointer-chase", argc, argv, 1, DEFAULT_N);
  long steps = kernel_arg("pointer-chase", argc, argv, 2, DEFAULT_STEPS);
  struct node *nodes = kernel_alloc("pointer-chase", n, sizeof(struct node));
  make_cycle(n, nodes);
  PISA_ROI_BEGIN("chase");
  uint64_t sum = chase(nodes, steps);
  PISA_ROI_END("chase");
  printf("pointer-chase n=%ld steps=%ld\nchecksum %llu\n", n, steps,
         (unsigned long long)sum);
  free(nodes);
  return 0;
}
