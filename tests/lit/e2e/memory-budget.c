// The memory budget (--memory-limit, docs/metrics-implementation.md "Memory
// budget"): a pointer chase through N nodes of 256 bytes in one random
// cycle (set up by uninstrumented code), followed twice.  By hand: chase
// loads each node's first word twice, 2N loads; in the second pass every
// 64-byte line comes back after the other N - 1, so at N = 3 * 2^17 (96
// MiB of nodes) the distance 393215 is above the 2^14 lines of 1 MiB and
// below the 2^19 of 32 MiB: miss ratios 1, 1 and 1/2 (the first pass is
// cold); H_0 = log2 N (N addresses, two loads each), H_12 = log2(N / 16)
// (16 nodes to a 4 KiB page); footprint 8N bytes, for chase and for its
// loop (line 99, its only one; --loop-metrics), which reports none once
// the space family is sampled (a loop's are exact or absent).  The same holds at
// N = 3 * 2^15, analysed exactly with a generous limit (identical to the
// default's document).  With --memory-limit 16M the analysis state of the
// large run (hundreds of MB exact) passes half the limit: the families
// switch to sampling, the document says where and why, the values stay
// within 4 of the standard errors it gives of the values by hand (ILP
// within 5% of the exact run's, the loop being the same), the counts stay
// exact, and the peak RSS stays within the run's without analysis state
// (--metrics=none) plus the limit plus 32 MiB: the growth of one batch
// before the budget is looked at, the transient copies of a switch, and
// the fixed state outside the budget (docs/metrics-implementation.md).
// An interval of the chase after the last step (rate 1/4 or less, 512
// loads or more) counts its sampled accesses only, about that share of
// its loads: its bins are those of the sampled stream, not of the whole
// batch.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --loop-metrics -o %t.exact.json %t 98304
// RUN: %pisa-char -q --force --loop-metrics --memory-limit 4G -o %t.generous.json %t 98304
// RUN: %same-metrics %t.exact.json %t.generous.json
// RUN: %jcheck %t.generous.json "'sampling' not in d['config']" \
// RUN:   "[m['ratio'] for m in fn('chase')['miss_ratio']] == [1, 1, 0.5]" \
// RUN:   "abs(fn('chase')['memory_entropy'][0] - 16.5849625007212) < 1e-9" \
// RUN:   "abs(fn('chase')['memory_entropy'][12] - 12.5849625007212) < 1e-9" \
// RUN:   "fn('chase')['footprint']['bytes'] == 8 * 98304" \
// RUN:   "loop(99)['footprint']['bytes'] == 8 * 98304" \
// RUN:   "abs(loop(99)['memory_entropy'][0] - 16.5849625007212) < 1e-9"
// RUN: %peak-rss %t.none.rss %pisa-char -q --force --metrics=none -o %t.none.json %t
// RUN: %peak-rss %t.rss %pisa-char -q --force --loop-metrics --memory-limit 16M -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['rate'] == 1" \
// RUN:   "all(f in d['config']['sampling']['families'] for f in ('reuse', 'footprint', 'entropy', 'ilp'))" \
// RUN:   "all(0 < s['switched_at'] < d['totals']['instructions'] for s in d['config']['sampling']['families'].values())" \
// RUN:   "all('memory limit of 16777216 bytes' in s['reason'] for s in d['config']['sampling']['families'].values())" \
// RUN:   "all(s['steps'][0]['instruction'] == s['switched_at'] and s['steps'][-1]['rate'] == s['rate'] for s in d['config']['sampling']['families'].values())" \
// RUN:   "fn('chase')['memory_accesses']['loads'] == 2 * 393216" \
// RUN:   "fn('chase')['instructions'] == [f for f in load('%t.none.json')['functions'] if f['name'] == 'chase'][0]['instructions']" \
// RUN:   "all(abs(m['ratio'] - want) < 4 * d['config']['sampling']['families']['reuse']['error'] for m, want in zip(fn('chase')['miss_ratio'], [1, 1, 0.5]))" \
// RUN:   "abs(fn('chase')['memory_entropy'][0] - 18.5849625007212) < 4 * d['config']['sampling']['families']['entropy']['error']" \
// RUN:   "abs(fn('chase')['memory_entropy'][12] - 14.5849625007212) < 4 * d['config']['sampling']['families']['entropy']['error']" \
// RUN:   "abs(fn('chase')['footprint']['bytes'] / (8 * 393216) - 1) < 4 * d['config']['sampling']['families']['footprint']['error']" \
// RUN:   "abs(fn('chase')['ilp'][0]['ilp'] / [f for f in load('%t.exact.json')['functions'] if f['name'] == 'chase'][0]['ilp'][0]['ilp'] - 1) < 0.05" \
// RUN:   "load('%t.rss')['peak_rss_bytes'] <= load('%t.none.rss')['peak_rss_bytes'] + (16 << 20) + (32 << 20)" \
// RUN:   "loop(99)['memory_accesses']['loads'] == 2 * 393216" \
// RUN:   "all('footprint' not in l and 'memory_entropy' not in l for l in d['loops'])" \
// RUN:   "(lambda last, late: last['rate'] <= 0.25 and len(late) > 100 and all(sum(i['reuse_distance'][0]['bins']) + i['reuse_distance'][0]['cold'] <= i['memory_accesses']['loads'] / 2 for i in late))(d['config']['sampling']['families']['reuse']['steps'][-1], [i for i in d['intervals'] if 'reuse_distance' in i and i['memory_accesses']['loads'] >= 512 and i['first_instruction'] > d['config']['sampling']['families']['reuse']['steps'][-1]['instruction'] + 65536])"
// RUN: %pisa-char show %t.json | FileCheck %s --check-prefix=SHOW
// SHOW: sampling  over the memory limit: {{.*}}reuse{{.*}} are estimates, sampled from instruction {{[1-9][0-9]*}} on
// RUN: %pisa-char rank --format csv %t.json | FileCheck %s --check-prefix=RANK
// RUN: %pisa-char report --force -o %t.html %t.json
// RUN: grep -q 'over the memory limit: .* are estimates' %t.html
// RANK: ,estimated,
// RUN: not %pisa-char --memory-limit 1023K %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not %pisa-char --memory-limit -16M %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not %pisa-char --memory-limit 16MB %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: pisa-char run: --memory-limit {{.*}}: expected a size of at least 1M, in bytes or with K, M, G or T
#include <stdint.h>
#include <stdlib.h>

struct node {
  struct node *next;
  char pad[248];
};

/* Sattolo's shuffle: the nodes in one cycle, in random order.  Not
 * instrumented: only chase is measured. */
__attribute__((noinline, disable_sanitizer_instrumentation)) static struct node *
build(size_t n) {
  struct node *nodes = calloc(n, sizeof *nodes);
  uint32_t *order = malloc(n * sizeof *order);
  uint64_t x = 88172645463325252u;
  if (!nodes || !order)
    exit(2);
  for (size_t i = 0; i < n; i++)
    order[i] = (uint32_t)i;
  for (size_t i = n - 1; i > 0; i--) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t j = x % i;
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; i++)
    nodes[order[i]].next = &nodes[order[(i + 1) % n]];
  free(order);
  return nodes;
}

__attribute__((noinline)) struct node *chase(struct node *p, size_t steps) {
  for (size_t i = 0; i < steps; i++)
    p = p->next;
  return p;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3 << 17;
  struct node *nodes = build(n);
  int ok = chase(nodes, 2 * n) == nodes;
  free(nodes);
  return ok ? 0 : 1;
}
