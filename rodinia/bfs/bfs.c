/* bfs.c: Rodinia bfs, written for pisa-char. Breadth-first search of a
 * random directed graph of NODES nodes (DEGREE edges per node on average,
 * plus an edge to the next node so that all are reachable) from node 0,
 * level by level with frontier masks: each level visits every node of the
 * frontier, then makes the newly found nodes the next frontier, both over
 * all nodes in parallel (OpenMP). The result is each node's level. */
#include "rd_support.h"

/* Compressed adjacency lists: node v's edges are edges[first[v] ..
 * first[v + 1] - 1]. */
struct graph {
  long nodes;
  long *first;
  int *edges;
};

/* Node v gets an edge to v + 1 (mod nodes) and 0 .. 2 * DEGREE - 2 more to
 * random nodes. */
static struct graph make_graph(long nodes, long degree) {
  struct rd_rng rng = rd_rng_make(1);
  struct graph g = {nodes, rd_alloc((size_t)nodes + 1, sizeof(long)), NULL};
  for (long v = 0; v < nodes; v++)
    g.first[v + 1] =
        g.first[v] + 1 + (long)rd_rng_below(&rng, (uint32_t)(2 * degree - 1));
  g.edges = rd_alloc((size_t)g.first[nodes], sizeof(int));
  for (long v = 0; v < nodes; v++) {
    g.edges[g.first[v]] = (int)((v + 1) % nodes);
    for (long e = g.first[v] + 1; e < g.first[v + 1]; e++)
      g.edges[e] = (int)rd_rng_below(&rng, (uint32_t)nodes);
  }
  return g;
}

/* Marks the unvisited successors of the frontier as found, at the next
 * level. Several frontier nodes may find the same node: they store the same
 * values, atomically. */
static void expand_frontier(const struct graph *g, char *frontier, char *found,
                            const char *visited, int *level) {
#pragma omp parallel for schedule(static)
  for (long v = 0; v < g->nodes; v++) {
    if (!frontier[v])
      continue;
    frontier[v] = 0;
    for (long e = g->first[v]; e < g->first[v + 1]; e++) {
      int w = g->edges[e];
      if (visited[w])
        continue;
#pragma omp atomic write
      level[w] = level[v] + 1;
#pragma omp atomic write
      found[w] = 1;
    }
  }
}

/* The found nodes become the frontier; returns whether there are any. */
static int advance_frontier(long nodes, char *frontier, char *found,
                            char *visited) {
  int any = 0;
#pragma omp parallel for schedule(static) reduction(| : any)
  for (long v = 0; v < nodes; v++) {
    if (!found[v])
      continue;
    found[v] = 0;
    frontier[v] = visited[v] = 1;
    any = 1;
  }
  return any;
}

/* level[v]: the number of edges on a shortest path from source, -1 when
 * there is none. */
RD_KERNEL void bfs(const struct graph *g, long source, int *level) {
  char *frontier = rd_alloc((size_t)g->nodes, 1);
  char *found = rd_alloc((size_t)g->nodes, 1);
  char *visited = rd_alloc((size_t)g->nodes, 1);
  for (long v = 0; v < g->nodes; v++)
    level[v] = -1;
  level[source] = 0;
  frontier[source] = visited[source] = 1;
  do
    expand_frontier(g, frontier, found, visited, level);
  while (advance_frontier(g->nodes, frontier, found, visited));
  free(frontier);
  free(found);
  free(visited);
}

int main(int argc, char **argv) {
  long param[2] = {65536, 6}; /* NODES DEGREE */
  rd_parse_args(argc, argv, "NODES DEGREE", 2, param, 1L << 30);
  long nodes = param[0], degree = param[1];
  rd_print_params("bfs", "NODES DEGREE", 2, param);

  struct graph g = make_graph(nodes, degree);
  int *level = rd_alloc((size_t)nodes, sizeof(int));
  RD_ROI_BEGIN();
  bfs(&g, 0, level);
  RD_ROI_END();
  int deepest = 0;
  for (long v = 0; v < nodes; v++)
    deepest = level[v] > deepest ? level[v] : deepest;
  printf("bfs: %ld edges, deepest level %d\n", g.first[nodes], deepest);
  rd_print_checksum(rd_fold_int((double)deepest, level, (size_t)nodes));
  free(g.first);
  free(g.edges);
  free(level);
  return 0;
}
