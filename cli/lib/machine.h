/* machine.h: the host and near-memory machines of the ranking model
 * (docs/ranking.md), read from a pisa-machine/1 JSON file (`rank --machine
 * FILE`) or the built-in machines/default.json. */
#ifndef PISA_CLI_MACHINE_H
#define PISA_CLI_MACHINE_H

#include <stddef.h>

/* One side of the comparison: the numbers of schemas/pisa-machine-1. */
struct machine_side {
  double cores, frequency_ghz, issue_width, simd_lanes;
  double llc_bytes, bandwidth_gbs, latency_ns, mlp;
};

struct machine {
  char name[128];
  struct machine_side host, nmc;
};

/* The built-in machine (machines/default.json compiled in). */
void machine_default(struct machine *m);

/* Reads and validates a pisa-machine/1 file; 0, or -1 with one line
 * "FILE: problem" in err. */
int machine_load(struct machine *m, const char *path, char *err, size_t errlen);

/* "host 16 cores, 32.0 MiB cache, 50 GB/s; near-memory 32 cores, 1.0 MiB
 * cache, 320 GB/s" into buf. */
const char *machine_summary(const struct machine *m, char *buf, size_t n);

#endif
