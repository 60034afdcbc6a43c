// Sampled deep mode (--sample): a 4 MiB array of doubles read and written
// twice in order.  By hand: every address is accessed 4 times (a load and a
// store per pass), so H_0 = log2(2^19 addresses) = 19 bits; at 64-byte
// lines one access in 16 starts a line (8 doubles, a load and a store
// each), and a line comes back only after the other 65535 (more than the
// 512 lines of 32 KiB and the 2^14 of 1 MiB, fewer than the 2^19 of
// 32 MiB), so the miss ratios are 1/16, 1/16 and 1/32 (the first pass
// only).  The counts stay exact (equal
// to an exact run's).  At 50%, about 512 of the 1024 4 KiB units are
// hashed for footprint and entropy, and a temporal sample counts every
// unit's accesses (spatial+units): the footprint is within 4 of the
// standard errors the document gives (sqrt(0.5 / units), relative), below
// 0.05, and H_0 within 0.01 bit of 19 (every unit alike: the hashed ones'
// mean is exact); the miss ratios (at 64-byte lines, from about 32768
// sampled 64-byte units: sample-fine-units.c) within 0.005.  The loop is the same in every
// burst, so ILP and BBLP from bursts are within 5% of the exact run's.
// A program this small never fills a branch table: the histories of 12
// and 16 outcomes keep every context (history_rates 1).
// config.sampling names the families and their methods.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.exact.json %t
// RUN: %pisa-char -q --force --sample 50%% -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['rate'] == 0.5" \
// RUN:   "sorted(d['config']['sampling']['families']) == sorted(d['config']['metrics'])" \
// RUN:   "[d['config']['sampling']['families'][f]['method'] for f in ('footprint', 'entropy', 'classes')] == ['spatial+units'] * 3" \
// RUN:   "d['config']['sampling']['families']['locality']['method'] == 'spatial'" \
// RUN:   "d['config']['sampling']['families']['entropy']['units'] in (1024, 1025)" \
// RUN:   "d['config']['sampling']['families']['reuse']['method'] == 'spatial+bursts'" \
// RUN:   "[d['config']['sampling']['families'][f]['method'] for f in ('branch', 'ilp', 'bblp')] == ['temporal'] * 3" \
// RUN:   "d['config']['sampling']['families']['footprint']['unit_bytes'] == 4096" \
// RUN:   "d['config']['sampling']['families']['reuse']['unit_bytes'] == 512" \
// RUN:   "d['config']['sampling']['families']['branch']['history_rates'] == [{'history': 12, 'rate': 1}, {'history': 16, 'rate': 1}]" \
// RUN:   "d['totals']['instruction_mix'] == load('%t.exact.json')['totals']['instruction_mix']" \
// RUN:   "d['totals']['memory_accesses'] == load('%t.exact.json')['totals']['memory_accesses']" \
// RUN:   "fn('twice')['instruction_mix'] == [f for f in load('%t.exact.json')['functions'] if f['name'] == 'twice'][0]['instruction_mix']" \
// RUN:   "d['config']['sampling']['families']['entropy']['error'] < 0.05" \
// RUN:   "abs(fn('twice')['memory_entropy'][0] - 19) < 0.01" \
// RUN:   "abs(fn('twice')['miss_ratio'][0]['ratio'] - 1 / 16) < 0.005" \
// RUN:   "abs(fn('twice')['miss_ratio'][1]['ratio'] - 1 / 16) < 0.005" \
// RUN:   "abs(fn('twice')['miss_ratio'][2]['ratio'] - 1 / 32) < 0.005" \
// RUN:   "abs(d['totals']['footprint']['bytes'] / load('%t.exact.json')['totals']['footprint']['bytes'] - 1) < 4 * d['config']['sampling']['families']['footprint']['error']" \
// RUN:   "abs(d['totals']['ilp'][1]['ilp'] / load('%t.exact.json')['totals']['ilp'][1]['ilp'] - 1) < 0.05" \
// RUN:   "abs(d['totals']['bblp']['bblp'] / load('%t.exact.json')['totals']['bblp']['bblp'] - 1) < 0.05"
// Another draw (--sample-seed): other sampled units, the same exact counts,
// and estimates as close to the by-hand values (every unit alike).
// RUN: %pisa-char -q --force --sample 50%% --sample-seed 7 -o %t.seed.json %t
// RUN: %validate %t.seed.json
// RUN: %jcheck %t.seed.json "d['config']['sampling']['seed'] == 7" \
// RUN:   "load('%t.json')['config']['sampling']['seed'] == 0" \
// RUN:   "d['totals']['memory_accesses'] == load('%t.exact.json')['totals']['memory_accesses']" \
// RUN:   "d['config']['sampling']['families']['reuse']['sampled_units'] != load('%t.json')['config']['sampling']['families']['reuse']['sampled_units']" \
// RUN:   "abs(fn('twice')['miss_ratio'][0]['ratio'] - 1 / 16) < 0.005" \
// RUN:   "abs(fn('twice')['miss_ratio'][2]['ratio'] - 1 / 32) < 0.005" \
// RUN:   "abs(fn('twice')['memory_entropy'][0] - 19) < 0.01"
// RUN: %pisa-char show %t.seed.json | FileCheck %s --check-prefix=SEEDSHOW
// SEEDSHOW: sampling  sampled at 50% (seed 7): {{.*}}reuse{{.*}} are estimates
// RUN: not %pisa-char --sample 1%% --sample-seed x %t 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not %pisa-char --sample 1%% --sample-seed -1 %t 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: pisa-char run: --sample-seed {{.*}}: expected a number from 0 to 18446744073709551615
// RUN: not %pisa-char --sample-seed 3 %t 2>&1 | FileCheck %s --check-prefix=SEEDLESS
// SEEDLESS: pisa-char run: --sample-seed needs --sample
// RUN: %pisa-char show %t.json | FileCheck %s --check-prefix=SHOW
// SHOW: sampling  sampled at 50%: {{.*}}reuse{{.*}} are estimates
// RUN: not %pisa-char --sample 0 %t 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %pisa-char --sample 1.5 %t 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %pisa-char --sample 150%% %t 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %pisa-char --sample x %t 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: pisa-char run: --sample {{.*}}: expected a rate from 0.000001 to 1, or a percentage such as 1%
// RUN: not %pisa-char --memory-limit 0 %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not %pisa-char --memory-limit 12Q %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not %pisa-char --memory-limit 1000 %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: pisa-char run: --memory-limit {{.*}}: expected a size of at least 1M, in bytes or with K, M, G or T
// RUN: not %pisa-char --mode counter --sample 1%% %t 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: pisa-char run: --sample, --memory-limit and --analysis-threads belong to deep mode
// RUN: env PISA_SCHED_MEMORY=100000000 %pisa-char -q --force -o %t.old.json %t 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: PISA_SCHED_MEMORY is replaced by PISA_MEMORY_LIMIT (pisa-char --memory-limit); using it as the limit
#include <stdlib.h>

#define N (1 << 19)

__attribute__((noinline)) void twice(double *a) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 0.5 + 1.0;
}

int main(void) {
  double *a = calloc(N, sizeof *a);
  if (!a)
    return 1;
  twice(a);
  int ok = a[N - 1] == 1.5;
  free(a);
  return ok ? 0 : 1;
}
