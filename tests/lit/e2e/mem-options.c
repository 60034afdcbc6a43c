// The memory metric options: --line-sizes sets the histograms and the
// footprint's block sizes, --entropy-bits the entropy list, --metrics
// switches families off (absent, never zero-filled), and a scalar global
// is a constant access.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.all.json %t
// RUN: %validate %t.all.json
// RUN: %jcheck %t.all.json "d['config']['line_sizes'] == [8, 16, 32, 64, 128, 256, 512]" \
// RUN:   "len(d['totals']['memory_entropy']) == 13" \
// RUN:   "[h['line_bytes'] for h in d['totals']['reuse_distance']] == d['config']['line_sizes']" \
// RUN:   "[m['cache_bytes'] for m in d['totals']['miss_ratio']] == [32768, 1048576, 33554432]" \
// RUN:   "len(d['totals']['spatial_locality']['pairs']) == 6" \
// RUN:   "fn('bump')['access_classes']['constant']['accesses'] == 100" \
// RUN:   "fn('bump')['access_classes']['constant']['footprint_bytes'] == 4" \
// RUN:   "fn('bump')['access_classes']['constant_fraction'] == 1" \
// RUN:   "sorted(d['config']['metrics']) == ['bblp', 'branch', 'classes', 'entropy', 'footprint', 'ilp', 'locality', 'reuse']"
// RUN: %pisa-char -q --force --line-sizes 16:64 --entropy-bits 4 -o %t.some.json %t
// RUN: %validate %t.some.json
// RUN: %jcheck %t.some.json "d['config']['line_sizes'] == [16, 32, 64]" \
// RUN:   "len(d['totals']['memory_entropy']) == 5" \
// RUN:   "sorted(d['totals']['footprint']['blocks']) == ['16', '32', '64']" \
// RUN:   "[p['line_bytes'] for p in d['totals']['spatial_locality']['pairs']] == [16, 32]"
// RUN: %pisa-char -q --force --metrics=-reuse,-entropy -o %t.off.json %t
// RUN: %validate %t.off.json
// RUN: %jcheck %t.off.json "'reuse_distance' not in d['totals'] and 'miss_ratio' not in d['totals']" \
// RUN:   "'spatial_locality' not in d['totals'] and 'memory_entropy' not in d['totals']" \
// RUN:   "'footprint' in d['totals'] and 'access_classes' in fn('bump')" \
// RUN:   "sorted(d['config']['metrics']) == ['bblp', 'branch', 'classes', 'footprint', 'ilp']"
// RUN: %pisa-char -q --force --metrics=locality -o %t.loc.json %t
// RUN: %jcheck %t.loc.json "'spatial_locality' in d['totals'] and 'reuse_distance' in d['totals']" \
// RUN:   "'footprint' not in d['totals'] and 'memory_entropy' not in d['totals']"
// RUN: not %pisa-char --metrics=bogus %t 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: pisa-char run: --metrics 'bogus': expected footprint, entropy, reuse, locality, classes, branch, ilp, bblp, all or none
// RUN: not %pisa-char --entropy-bits 41 %t 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: pisa-char run: --entropy-bits 41: expected a number from 0 to 40
int counter;

__attribute__((noinline)) void bump(int times) {
  for (int i = 0; i < times; i++)
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

int main(void) {
  bump(100);
  return counter == 100 ? 0 : 1;
}
