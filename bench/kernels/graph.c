/* graph.c: benchmark kernel, breadth-first searches and PageRank iterations
 * over a power-law graph: R-MAT (Chakrabarti, Zhan and Faloutsos; Graph500's
 * parameters) with 2^SCALE vertices and DEGREE * 2^SCALE undirected edges,
 * in CSR form.  Usage: graph [SCALE [DEGREE]]; prints a checksum. */
#include "kernel.h"
#include <string.h>

#define DEFAULT_SCALE 18
#define DEFAULT_DEGREE 16
#define SEARCHES 8
#define PAGERANK_ITERATIONS 8
#define DAMPING 0.85
/* R-MAT quadrant probabilities a, b, c (d is the rest) in 1/65536 units. */
#define RMAT_A 37355 /* 0.57 */
#define RMAT_B 12452 /* 0.19 */
#define RMAT_C 12452 /* 0.19 */

/* Compressed sparse rows: the neighbours of v are
 * adjacent[first[v] .. first[v + 1]). */
struct graph {
  uint32_t vertices;
  uint64_t *first;
  uint32_t *adjacent;
};

/* One R-MAT vertex pair: each bit of the two ends chooses a quadrant of
 * the adjacency matrix, sixteen random bits per choice. */
static void rmat_edge(int scale, uint64_t *state, uint32_t *from,
                      uint32_t *to) {
  uint32_t u = 0, v = 0;
  uint64_t bits = 0;
  for (int level = 0; level < scale; level++) {
    if (level % 4 == 0)
      bits = splitmix64(state);
    uint32_t q = (uint32_t)(bits & 0xffff);
    bits >>= 16;
    u = u << 1 | (q >= RMAT_A + RMAT_B);
    v = v << 1 |
        ((q >= RMAT_A && q < RMAT_A + RMAT_B) || q >= RMAT_A + RMAT_B + RMAT_C);
  }
  *from = u;
  *to = v;
}

/* A random relabelling (Fisher-Yates), so that a vertex's number says
 * nothing of its degree, as in Graph500. */
static uint32_t *random_labels(uint32_t n, uint64_t *state) {
  uint32_t *label = kernel_alloc("graph", n, sizeof(uint32_t));
  for (uint32_t i = 0; i < n; i++)
    label[i] = i;
  for (uint32_t i = n - 1; i > 0; i--) {
    uint32_t j = (uint32_t)(splitmix64(state) % (i + 1)), t = label[i];
    label[i] = label[j];
    label[j] = t;
  }
  return label;
}

/* The CSR form of the edge list, each edge stored in both directions, by
 * counting sort. */
static struct graph build_csr(uint32_t n, uint64_t m, const uint32_t *ends) {
  struct graph g = {n, kernel_alloc("graph", n + 1, sizeof(uint64_t)),
                    kernel_alloc("graph", 2 * m, sizeof(uint32_t))};
  uint64_t *next = kernel_alloc("graph", n + 1, sizeof(uint64_t));
  memset(next, 0, (n + 1) * sizeof(uint64_t));
  for (uint64_t e = 0; e < 2 * m; e++)
    next[ends[e] + 1]++;
  for (uint32_t v = 0; v < n; v++)
    next[v + 1] += next[v];
  memcpy(g.first, next, (n + 1) * sizeof(uint64_t));
  for (uint64_t e = 0; e < 2 * m; e++)
    g.adjacent[next[ends[e]]++] = ends[e ^ 1];
  free(next);
  return g;
}

static struct graph make_graph(int scale, long degree) {
  uint32_t n = UINT32_C(1) << scale;
  uint64_t m = (uint64_t)degree * n, state = 2024;
  uint32_t *ends = kernel_alloc("graph", 2 * m, sizeof(uint32_t));
  uint32_t *label = random_labels(n, &state);
  for (uint64_t e = 0; e < m; e++) {
    uint32_t u, v;
    rmat_edge(scale, &state, &u, &v);
    ends[2 * e] = label[u];
    ends[2 * e + 1] = label[v];
  }
  free(label);
  struct graph g = build_csr(n, m, ends);
  free(ends);
  return g;
}

/* Breadth-first search from source: depth[v] is -1 until reached.  Returns
 * the sum over reached vertices of depth + 1. */
static uint64_t bfs(const struct graph *g, uint32_t source, int32_t *depth,
                    uint32_t *queue) {
  uint64_t sum = 1, head = 0, tail = 0;
  for (uint32_t v = 0; v < g->vertices; v++)
    depth[v] = -1;
  depth[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    uint32_t u = queue[head++];
    for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
      uint32_t v = g->adjacent[e];
      if (depth[v] < 0) {
        depth[v] = depth[u] + 1;
        sum += (uint64_t)depth[v] + 1;
        queue[tail++] = v;
      }
    }
  }
  return sum;
}

/* One pull iteration: each vertex gathers its neighbours' shares. */
static void pagerank_step(const struct graph *g, const double *rank,
                          double *share, double *next) {
  uint32_t n = g->vertices;
  for (uint32_t v = 0; v < n; v++) {
    uint64_t degree = g->first[v + 1] - g->first[v];
    share[v] = degree ? rank[v] / (double)degree : 0;
  }
  for (uint32_t v = 0; v < n; v++) {
    double sum = 0;
    for (uint64_t e = g->first[v]; e < g->first[v + 1]; e++)
      sum += share[g->adjacent[e]];
    next[v] = (1 - DAMPING) / n + DAMPING * sum;
  }
}

/* The ranks after the iterations, folded to an integer (weights keep the
 * order visible). */
static uint64_t pagerank(const struct graph *g) {
  uint32_t n = g->vertices;
  double *rank[2] = {kernel_alloc("graph", n, sizeof(double)),
                     kernel_alloc("graph", n, sizeof(double))};
  double *share = kernel_alloc("graph", n, sizeof(double)), sum = 0;
  for (uint32_t v = 0; v < n; v++)
    rank[0][v] = 1.0 / n;
  for (int i = 0; i < PAGERANK_ITERATIONS; i++) {
    PISA_ROI_BEGIN("pagerank");
    pagerank_step(g, rank[i % 2], share, rank[(i + 1) % 2]);
    PISA_ROI_END("pagerank");
  }
  for (uint32_t v = 0; v < n; v++)
    sum += rank[PAGERANK_ITERATIONS % 2][v] * (double)(v % 7 + 1);
  free(rank[0]), free(rank[1]), free(share);
  return (uint64_t)(sum * 1e15);
}

int main(int argc, char **argv) {
  long scale = kernel_arg("graph", argc, argv, 1, DEFAULT_SCALE);
  long degree = kernel_arg("graph", argc, argv, 2, DEFAULT_DEGREE);
  if (scale > 31) {
    fprintf(stderr, "graph: SCALE %ld is over 31\n", scale);
    return 2;
  }
  struct graph g = make_graph((int)scale, degree);
  int32_t *depth = kernel_alloc("graph", g.vertices, sizeof(int32_t));
  uint32_t *queue = kernel_alloc("graph", g.vertices, sizeof(uint32_t));
  uint64_t state = 99, reached = 0;
  for (int s = 0; s < SEARCHES; s++) {
    uint32_t source;
    do /* an isolated vertex would make a search of one step */
      source = (uint32_t)(splitmix64(&state) % g.vertices);
    while (g.first[source] == g.first[source + 1]);
    PISA_ROI_BEGIN("bfs");
    reached = reached * 31 + bfs(&g, source, depth, queue);
    PISA_ROI_END("bfs");
  }
  uint64_t ranks = pagerank(&g);
  printf("graph scale=%ld degree=%ld vertices=%u edges=%llu\nchecksum %llu\n",
         scale, degree, g.vertices, (unsigned long long)degree * g.vertices,
         (unsigned long long)(reached ^ ranks));
  free(depth), free(queue), free(g.first), free(g.adjacent);
  return 0;
}
