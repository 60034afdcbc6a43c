/* config.h: the runtime's settings, read once from the environment that
 * pisa-char sets (PISA_OUTPUT_DIR, PISA_METRICS, PISA_MODE, ...).  Reading
 * them does nothing else: what start-up does with them is lifecycle.c's. */
#ifndef PISA_CONFIG_H
#define PISA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pisa/vocabulary.h"
#include "reuse_burst.h"
#include "sample.h"
#include "schedule.h"

#define PISA_MAX_LINE_SIZES 24
/* Sampled reuse: the unit of the fine stream (64-byte blocks), which the
 * 8- to 64-byte engines see (pisa_sampling_config.fine_reuse). */
#define PISA_FINE_UNIT_SHIFT 6
#define PISA_DEFAULT_OBJECT_DEPTH 2

/* Sampled deep mode (PISA_SAMPLE=RATE, docs/metrics-implementation.md
 * "Sampling"): blocks sampled by hash for the reuse, footprint and entropy
 * families; bursts of consecutive block instances, one every period, for
 * the branch and schedule families. */
struct pisa_sampling_config {
  double rate;                /* 1: exact */
  struct sample_filter reuse; /* blocks of the largest line size */
  /* The engines of the line sizes [0, fine_sizes) (those up to 64 bytes,
   * when the largest is above: else 0, one stream) see the 64-byte units
   * fine_reuse samples from reuse's hash of their block (sample.h units):
   * largest / 64 times the units (8 at 512 bytes), so that SHARDS's
   * scaled distances at those sizes are that much less noisy. */
  struct sample_filter fine_reuse;
  size_t fine_sizes;
  /* Blocks that also hold a whole entropy cut: footprint and entropy. */
  struct sample_filter space;
  uint64_t burst_instances, burst_period;
  /* The reuse family's short distances: exact windows of consecutive
   * accesses (reuse_burst.h), PISA_SAMPLE_REUSE_WINDOW and
   * PISA_SAMPLE_REUSE_THRESHOLD. */
  struct burst_config reuse_bursts;
  /* PISA_SAMPLE_SEED (--sample-seed): 0, the default draw; any other
   * value draws other blocks (the filters' seed), starts the reuse
   * windows (reuse_bursts.offset) and the bursts (burst_offset: the first
   * at this instance of a thread) elsewhere in the period, and draws the
   * units' temporal sample (unit_seed) from another start. */
  uint64_t seed, burst_offset, unit_seed;
};

/* Both modes, and deep mode's analysis. */
struct pisa_config {
  int active;        /* PISA_OUTPUT_DIR set: analyse and write a result */
  unsigned families; /* PISA_FAMILY() bits from PISA_METRICS */
  unsigned entropy_bits;
  char output_dir[4096];
  uint64_t line_sizes[PISA_MAX_LINE_SIZES];
  size_t n_line_sizes;
  struct sched_config sched; /* ILP windows (PISA_ILP_WINDOWS), BBLP */
  /* PISA_MEMORY_LIMIT: bytes all analysis state may hold together;
   * default half the physical memory. */
  uint64_t memory_limit;
  struct pisa_sampling_config sampling;
  /* PISA_ANALYSIS_THREADS: workers for the consumer groups (workers.c);
   * default the CPUs the process may use less one, 0 on one CPU. */
  unsigned analysis_threads;
  /* PISA_ROI_FUNCTION: the calls of functions whose name matches this
   * glob form a region of that name; empty: none. */
  char roi_function[256];
  /* PISA_REGIONS=off: deep mode ignores the program's regions of interest
   * (PISA_ROI markers), which double the analysis while one is open. */
  int regions_off;
  /* PISA_INLINED=0: inlined code counts for the function it was inlined
   * into, as in counter mode, instead of its own (pisa_block.source). */
  int frames_only;
  /* PISA_SNAPSHOT_INTERVAL: seconds between snapshots (snapshot.c), 0 for
   * none (`off`), PISA_SNAPSHOT_AUTO (unset or `auto`, the default) for an
   * interval that keeps their cost under 1% of the program's CPU time. */
  unsigned snapshot_seconds;
  /* PISA_OBJECTS=1: data objects (objects.c); PISA_OBJECT_DEPTH: the
   * frames of a heap allocation site that tell its objects apart. */
  int objects;
  uint32_t object_depth;
  /* PISA_LOOP_METRICS=1: footprint, entropy and the schedules per loop
   * (consume.c), which cost about 20% more instructions with every
   * family (docs/performance.md). */
  int loop_metrics;
  /* PISA_INTERVALS: instructions per interval (deep_intervals.h), 0 for
   * none (`off`), PISA_INTERVALS_AUTO (unset or `auto`, the default) for
   * a length that adapts to keep 500 to 1000 intervals. */
  uint64_t intervals;
};
#define PISA_INTERVALS_AUTO UINT64_MAX
PISA_HIDDEN extern struct pisa_config pisa_config;
/* The names of the families in PISA_METRICS, by PISA_FAMILY() bit. */
PISA_HIDDEN extern const char *const pisa_family_names[];
/* The families a sampled run measures over bursts of block instances. */
#define PISA_BURST_FAMILIES                                                    \
  (PISA_FAMILY(BRANCH) | PISA_FAMILY(ILP) | PISA_FAMILY(BBLP))
/* The families a region of interest carries: the run's, less, in a sampled
 * run, those measured over bursts (the bursts are not aligned with the
 * region's markers). */
PISA_HIDDEN unsigned pisa_region_families(void);

/* Counter mode (docs/counter-mode.md). */
struct pisa_counter_config {
  int requested;         /* PISA_MODE=counter */
  uint64_t sample_every; /* PISA_SAMPLE_EVERY, 1 = every execution */
  unsigned interval_ms;  /* PISA_INTERVAL_MS, 0 = no time series */
  unsigned live_ms;      /* PISA_LIVE_MS (pisa/live.h), 0 = no live view */
  int csv;               /* PISA_CSV=1: write sets.<pid>.csv */
  unsigned n_hw;         /* PISA_HW_COUNTERS */
  char hw_names[PISA_MAX_HW_COUNTERS][32];
};
PISA_HIDDEN extern struct pisa_counter_config pisa_counter_config;

/* Fills both from the environment, once: idempotent and thread-safe, so
 * whichever runtime entry comes first (a constructor, a thread's first
 * record, a module's registration) may call it. */
PISA_HIDDEN void pisa_config_init(void);
/* Whether this process runs in counter mode (pisa-char --mode counter). */
PISA_HIDDEN int pisa_counter_mode(void);

#endif
