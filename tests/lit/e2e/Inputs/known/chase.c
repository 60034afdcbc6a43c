/* chase.c: a pointer chase around one random cycle of 64-byte nodes, 32x
 * the modelled host cache: every step a dependent miss, latency-bound. */
#include "common.h"

#define N (32 * 1024)
struct node {
  struct node *next;
  long pad[7];
};
static struct node nodes[N];
static unsigned order[N];

int main(void) {
  for (unsigned i = 0; i < N; i++)
    order[i] = i;
  for (unsigned i = N - 1; i > 0; i--) { /* Fisher-Yates */
    unsigned j = (unsigned)(known_random() % (i + 1)), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  for (unsigned i = 0; i < N; i++)
    nodes[order[i]].next = &nodes[order[(i + 1) % N]];
  struct node *p = &nodes[order[0]];
  long steps = 0;
  for (long s = 0; s < 2L * N; s++, steps++)
    p = p->next;
  return known_sink((double)(p - nodes) + (double)steps);
}
