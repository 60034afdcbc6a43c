// Sampled memory entropy and footprint with every unit counted
// (spatial+units): half the accesses go to six counters in one 4 KiB
// unit, skewed (counter c takes about 2^-(c+1) of them), the other half
// to random 16-byte slots of a 16 MiB table (4096 units).  At 1% the hash
// samples about 41 of the table's units and the counters' unit only by
// chance (a 1% chance): a Horvitz-Thompson estimate over the hashed units
// alone missed it, or weighted it by 100, and was bits off (hashtable,
// docs/performance.md).  Here the counters' unit is found hot and held,
// and every H_k comes within 0.1 bit of the exact run's; the table and
// the counters are static, so their offsets within pages, and so every
// H_k up to 4 KiB, are the same in both runs.  The footprint is the
// table's 16 MiB plus the counters' unit; memset's pieces count in the
// units they cover, not only in the first: within 3% of the exact run's
// (every unit is touched whole, so the ratio of the hashed units is
// exact but for the first and last).
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --metrics=footprint,entropy -o %t.exact.json %t
// RUN: %pisa-char -q --force --metrics=footprint,entropy --sample 1%% -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['families']['entropy']['method'] == 'spatial+units'" \
// RUN:   "d['config']['sampling']['families']['footprint']['method'] == 'spatial+units'" \
// RUN:   "d['config']['sampling']['families']['entropy']['units'] >= 4096" \
// RUN:   "d['config']['sampling']['families']['entropy']['held_units'] >= 1 or d['config']['sampling']['families']['entropy']['sampled_units'] > 60" \
// RUN:   "d['config']['sampling']['families']['entropy']['error'] < 0.1" \
// RUN:   "max(abs(a - b) for a, b in zip(d['totals']['memory_entropy'], load('%t.exact.json')['totals']['memory_entropy'])) < 0.1" \
// RUN:   "max(abs(a - b) for a, b in zip(fn('work')['memory_entropy'], [f for f in load('%t.exact.json')['functions'] if f['name'] == 'work'][0]['memory_entropy'])) < 0.1" \
// RUN:   "abs(d['totals']['footprint']['bytes'] / load('%t.exact.json')['totals']['footprint']['bytes'] - 1) < 0.03"
#include <stdint.h>
#include <string.h>

#define SLOTS (1 << 20)

static struct slot {
  uint64_t key, value;
} table[SLOTS];
static volatile uint64_t counters[6];

__attribute__((noinline)) void clear(void) { memset(table, 1, sizeof table); }

__attribute__((noinline)) uint64_t work(long n) {
  uint64_t x = 88172645463325252u, sum = 0;
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    unsigned c = 0;
    while (c < 5 && (x >> (40 + c) & 1))
      c++;
    counters[c] = counters[c] + 1;
    sum += table[x % SLOTS].value;
  }
  return sum;
}

int main(void) {
  clear();
  return work(4000000) == 0;
}
