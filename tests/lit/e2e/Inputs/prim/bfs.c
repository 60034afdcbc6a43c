/* bfs.c: PrIM's BFS on the CPU: breadth-first search of a random graph
 * of 16 Ki vertices of degree 8 in CSR form. */
#include "../known/common.h"

#define V (16 * 1024)
#define DEG 8
static unsigned edges[V * DEG], queue[V];
static int level[V];

int main(void) {
  for (int e = 0; e < V * DEG; e++)
    edges[e] = (unsigned)(known_random() % V);
  for (int v = 0; v < V; v++)
    level[v] = -1;
  unsigned head = 0, tail = 0;
  level[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    unsigned v = queue[head++];
    for (int k = 0; k < DEG; k++) {
      unsigned w = edges[v * DEG + k];
      if (level[w] < 0)
        level[w] = level[v] + 1, queue[tail++] = w;
    }
  }
  return known_sink((double)tail + level[queue[tail - 1]]);
}
