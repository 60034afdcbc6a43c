// Hardware counters around regions: every requested event is either
// available, with a count in each region, or listed as unavailable with the
// reason (this VM has no PMU: the hardware events are unavailable, the
// software ones work); the run succeeds either way and never reports a
// silent zero.  Also the time series and the per-set CSV.
// RUN: %pisa-cc -O2 --mode=counter -o %t %s
// RUN: %pisa-char -q --force --mode counter --hw-counters instructions,cycles,task-clock --interval-ms 20 --csv %t.csv -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "[h['name'] for h in d['counter']['hw_counters']] == ['instructions', 'cycles', 'task-clock']" \
// RUN:   "all(h['available'] == (h['reason'] is None) for h in d['counter']['hw_counters'])" \
// RUN:   "all(h['available'] or len(h['reason']) > 0 for h in d['counter']['hw_counters'])" \
// RUN:   "all(set(r['hw_counters']) == {h['name'] for h in d['counter']['hw_counters'] if h['available']} for r in d['regions'])" \
// RUN:   "all(v > 0 for r in d['regions'] for v in r['hw_counters'].values())" \
// RUN:   "[h for h in d['counter']['hw_counters'] if h['name'] == 'task-clock'][0]['available']" \
// RUN:   "d['counter']['interval_ms'] == 20 and len(d['intervals']) >= 2" \
// RUN:   "sum(i['bytes_loaded'] for i in d['intervals']) == d['totals']['instruction_mix']['bytes_loaded']" \
// RUN:   "sum(i['instructions'] for i in d['intervals']) == d['totals']['instructions']"
// RUN: %python -c "import csv,json,sys; rows=list(csv.DictReader(open(sys.argv[1]))); d=json.load(open(sys.argv[2])); assert sum(int(r['bytes_loaded']) for r in rows) == d['totals']['instruction_mix']['bytes_loaded'], rows; assert sum(int(r['instructions']) for r in rows) == d['totals']['instructions']" %t.csv %t.json
// CHECK: done
#include <pisa.h>
#include <stdio.h>
#include <time.h>

static double x[1 << 16];

int main(void) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do { /* about 100 ms of work: a few intervals */
    PISA_ROI_BEGIN("sweep");
    for (int i = 0; i < (1 << 16); i++)
      x[i] = x[i] * 0.5 + 1.0;
    PISA_ROI_END("sweep");
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L +
               (now.tv_nsec - start.tv_nsec) < 100000000L);
  printf("done %g\n", x[7]);
  return 0;
}
