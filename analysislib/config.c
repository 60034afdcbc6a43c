/* config.c: the environment to settings (config.h), once.  pisa-char
 * validated what it set; a value it would refuse (someone ran the program
 * with PISA_* variables of their own) is named in one line on stderr and
 * the run is not measured: the program runs as it would without pisa-char,
 * with its own output and exit status (docs/reliability.md). */
#include "config.h"
#include "budget.h"
#include "pisa/abi.h"
#include "pisa/live.h"
#include "pisa/vocabulary.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PISA_HIDDEN struct pisa_config pisa_config;
PISA_HIDDEN struct pisa_counter_config pisa_counter_config;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* Set by a value pisa-char would refuse: the run is not measured. */
static int refused;

static void refuse(const char *name, const char *value, const char *expected) {
  errno = 0;
  PISA_ERR("%s=%s: expected %s; not measuring this run", name, value, expected);
  refused = 1;
}

/* A decimal from lo to hi, digits only (no sign, no blanks), up to the
 * first character of `stops` or the end; its end in *end. */
static int parse_number(const char *s, uint64_t lo, uint64_t hi,
                        const char *stops, const char **end, uint64_t *out) {
  if (!(*s >= '0' && *s <= '9'))
    return -1;
  char *after;
  errno = 0;
  unsigned long long v = strtoull(s, &after, 10);
  if (errno || (*after && !strchr(stops, *after)) || v < lo || v > hi)
    return -1;
  *end = after;
  *out = v;
  return 0;
}

/* The variable `name`, a number from lo to hi; fallback when unset or
 * refused. */
static uint64_t env_number(const char *name, uint64_t lo, uint64_t hi,
                           uint64_t fallback) {
  const char *v = getenv(name), *end;
  uint64_t n;
  if (!v || !*v)
    return fallback;
  if (parse_number(v, lo, hi, "", &end, &n) == 0)
    return n;
  char expected[96];
  snprintf(expected, sizeof expected, "a number from %llu to %llu",
           (unsigned long long)lo, (unsigned long long)hi);
  refuse(name, v, expected);
  return fallback;
}

static int is_power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

/* PISA_LINE_SIZES=MIN:MAX, powers of two; default 8:512. */
static void parse_line_sizes(const char *spec) {
  uint64_t lo = 8, hi = 512;
  const char *end = spec;
  if (spec && (parse_number(spec, 1, PISA_MAX_LINE_SIZE, ":", &end, &lo) ||
               *end != ':' ||
               parse_number(end + 1, lo, PISA_MAX_LINE_SIZE, "", &end, &hi) ||
               !is_power_of_two(lo) || !is_power_of_two(hi))) {
    refuse("PISA_LINE_SIZES", spec,
           "MIN:MAX, powers of two from 1 to 1048576 with MIN <= MAX");
    lo = 8;
    hi = 512;
  }
  pisa_config.n_line_sizes = 0;
  for (uint64_t b = lo;
       b <= hi && pisa_config.n_line_sizes < PISA_MAX_LINE_SIZES; b *= 2)
    pisa_config.line_sizes[pisa_config.n_line_sizes++] = b;
}

PISA_HIDDEN const char *const pisa_family_names[PISA_FAMILY_COUNT] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
    PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
};

/* PISA_METRICS=name,name: the families pisa-char enabled; all when unset. */
static void parse_families(const char *spec) {
  pisa_config.families = spec ? 0 : PISA_FAMILIES_ALL;
  for (const char *p = spec; p && *p;) {
    size_t len = strcspn(p, ",");
    unsigned f = 0;
    while (f < PISA_FAMILY_COUNT && (strlen(pisa_family_names[f]) != len ||
                                     strncmp(p, pisa_family_names[f], len)))
      f++;
    if (f == PISA_FAMILY_COUNT) {
      refuse("PISA_METRICS", spec, "metric family names separated by commas");
      break;
    }
    pisa_config.families |= 1u << f;
    p += len + (p[len] == ',');
  }
  if (pisa_config.families & PISA_FAMILY(LOCALITY))
    pisa_config.families |= PISA_FAMILY(REUSE);
}

/* PISA_ILP_WINDOWS=W,W,...: instruction windows of the ILP schedules, 0
 * for unlimited.  Default 0,64. */
static void parse_windows(const char *spec) {
  struct sched_config *c = &pisa_config.sched;
  c->n_windows = 0;
  for (const char *p = spec; p && *p;) {
    uint64_t w;
    if (c->n_windows == PISA_MAX_ILP_WINDOWS ||
        parse_number(p, 0, PISA_MAX_ILP_WINDOW, ",", &p, &w)) {
      refuse("PISA_ILP_WINDOWS", spec,
             "up to 8 comma-separated windows from 0 to 1048576");
      c->n_windows = 0;
      break;
    }
    c->windows[c->n_windows++] = (uint32_t)w;
    p += *p == ',';
  }
  if (!c->n_windows) {
    c->windows[0] = 0;
    c->windows[1] = 64;
    c->n_windows = 2;
  }
  if (!(pisa_config.families & PISA_FAMILY(ILP)))
    c->n_windows = 0;
  c->bblp = (pisa_config.families & PISA_FAMILY(BBLP)) != 0;
  c->max_memory_bytes = pisa_config.memory_limit;
}

/* PISA_MEMORY_LIMIT=BYTES (pisa-char --memory-limit); by default half the
 * machine's memory, beyond which the program itself would be at risk.
 * PISA_SCHED_MEMORY, the schedules' own limit before it (from 1 to the
 * machine's memory, as pisa-char checks it), is taken as the limit when it
 * is the only one set. */
static void parse_memory_limit(void) {
  const char *limit = getenv("PISA_MEMORY_LIMIT");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t memory =
      pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
  pisa_config.memory_limit =
      memory == UINT64_MAX ? UINT64_C(8) << 30 : memory / 2;
  uint64_t old_limit = env_number("PISA_SCHED_MEMORY", 1, memory, 0);
  if (old_limit && (errno = 0) == 0)
    PISA_ERR("PISA_SCHED_MEMORY is replaced by PISA_MEMORY_LIMIT "
             "(pisa-char --memory-limit)%s",
             limit && *limit ? "; ignoring it" : "; using it as the limit");
  if (!limit || !*limit) {
    if (old_limit)
      pisa_config.memory_limit = old_limit;
    return;
  }
  pisa_config.memory_limit =
      env_number("PISA_MEMORY_LIMIT", PISA_MIN_MEMORY_LIMIT, UINT64_MAX, 0);
}

/* The reuse family's windows (docs/metrics-implementation.md "Sampling"):
 * PISA_SAMPLE_REUSE_WINDOW accesses (default 2^13) every window / rate
 * accesses, measured from PISA_SAMPLE_REUSE_THRESHOLD bytes of distinct
 * lines on (default 64 KiB: the 32 KiB miss ratio and a bin more); the
 * defaults are measured in performance.md "Sampled reuse". */
static void parse_reuse_bursts(struct burst_config *b, double rate) {
  b->window = env_number("PISA_SAMPLE_REUSE_WINDOW", 2, UINT64_C(1) << 32,
                         UINT64_C(1) << 13);
  b->threshold_bytes = env_number("PISA_SAMPLE_REUSE_THRESHOLD", 1,
                                  UINT64_C(1) << 40, UINT64_C(64) << 10);
  double period = (double)b->window / rate + 0.5;
  b->period = period < (double)UINT64_MAX ? (uint64_t)period : UINT64_MAX;
}

/* PISA_SAMPLE=RATE, 0.000001 <= RATE <= 1; 1 when unset.  Bursts of 2^12
 * block instances: long enough that window edges are rare, short enough
 * that a run of 10^7 instances gets 20 bursts at 1%. */
static void parse_sampling(const char *spec) {
  struct pisa_sampling_config *c = &pisa_config.sampling;
  char *end = NULL;
  double rate = spec && *spec ? strtod(spec, &end) : 1.0;
  if (end && (*end || !(*spec >= '0' && *spec <= '9') ||
              !(rate >= PISA_MIN_SAMPLE_RATE && rate <= 1))) {
    refuse("PISA_SAMPLE", spec, "a rate from 0.000001 to 1");
    rate = 1.0;
  }
  unsigned line_shift = (unsigned)__builtin_ctzll(
      pisa_config.line_sizes[pisa_config.n_line_sizes - 1]);
  unsigned space_shift = line_shift;
  if ((pisa_config.families & PISA_FAMILY(ENTROPY)) &&
      pisa_config.entropy_bits > space_shift)
    space_shift = pisa_config.entropy_bits;
  sample_filter_init(&c->reuse, rate, line_shift);
  sample_filter_init(&c->space, rate, space_shift);
  sample_filter_units(&c->fine_reuse, &c->reuse,
                      line_shift < PISA_FINE_UNIT_SHIFT ? line_shift
                                                        : PISA_FINE_UNIT_SHIFT);
  c->fine_sizes = 0;
  if (line_shift > PISA_FINE_UNIT_SHIFT)
    while (c->fine_sizes < pisa_config.n_line_sizes &&
           pisa_config.line_sizes[c->fine_sizes] <= UINT64_C(1)
                                                        << PISA_FINE_UNIT_SHIFT)
      c->fine_sizes++;
  c->rate = rate < 1 ? c->reuse.rate : 1.0;
  c->burst_instances = UINT64_C(1) << 12;
  c->burst_period = (uint64_t)((double)c->burst_instances / c->rate + 0.5);
  parse_reuse_bursts(&c->reuse_bursts, c->rate);
}

/* PISA_SAMPLE_SEED=N: each random choice of the sampling from its own
 * hash of N (0: none moved, the default draw). */
static void parse_sample_seed(void) {
  struct pisa_sampling_config *c = &pisa_config.sampling;
  c->seed = env_number("PISA_SAMPLE_SEED", 0, UINT64_MAX, 0);
  if (!c->seed)
    return;
  c->reuse.seed = c->space.seed = c->fine_reuse.seed = sample_hash(c->seed + 1);
  const struct burst_config *w = &c->reuse_bursts;
  c->reuse_bursts.offset =
      sample_hash(c->seed + 2) % (w->period - w->window + 1);
  c->burst_offset =
      sample_hash(c->seed + 3) % (c->burst_period - c->burst_instances + 1);
  c->unit_seed = sample_hash(c->seed + 4);
}

/* PISA_HW_COUNTERS=name,name (pisa-char checked the names against the
 * events it knows; hw.c says which are unavailable). */
static void parse_hw_counters(const char *spec) {
  struct pisa_counter_config *c = &pisa_counter_config;
  for (const char *p = spec; p && *p;) {
    size_t len = strcspn(p, ",");
    if (!len || len >= sizeof c->hw_names[0] ||
        c->n_hw == PISA_MAX_HW_COUNTERS) {
      refuse("PISA_HW_COUNTERS", spec, "up to 8 event names");
      c->n_hw = 0;
      return;
    }
    memcpy(c->hw_names[c->n_hw++], p, len);
    p += len + (p[len] == ',');
  }
}

/* PISA_SNAPSHOT_INTERVAL=auto (or unset), off, or SECONDS. */
static void parse_snapshot_interval(const char *spec) {
  pisa_config.snapshot_seconds = PISA_SNAPSHOT_AUTO;
  if (!spec || !*spec || !strcmp(spec, "auto"))
    return;
  if (!strcmp(spec, "off")) {
    pisa_config.snapshot_seconds = 0;
    return;
  }
  pisa_config.snapshot_seconds = (unsigned)env_number(
      "PISA_SNAPSHOT_INTERVAL", 1, PISA_MAX_SNAPSHOT_INTERVAL, 0);
}

/* PISA_INTERVALS=auto (or unset), off, or INSTRUCTIONS. */
static void parse_intervals(const char *spec) {
  const char *end;
  pisa_config.intervals = PISA_INTERVALS_AUTO;
  if (!spec || !*spec || !strcmp(spec, "auto"))
    return;
  pisa_config.intervals = 0; /* off, or refused */
  if (!strcmp(spec, "off") ||
      parse_number(spec, 1, PISA_MAX_INTERVAL_INSTRUCTIONS, "", &end,
                   &pisa_config.intervals) == 0)
    return;
  refuse("PISA_INTERVALS", spec,
         "auto, off or a number of instructions from 1 to 1125899906842624");
}

static void read_counter_config(void) {
  const char *mode = getenv("PISA_MODE");
  pisa_counter_config.requested = mode && !strcmp(mode, "counter");
  if (mode && *mode && strcmp(mode, "counter") && strcmp(mode, "deep"))
    refuse("PISA_MODE", mode, "deep or counter");
  pisa_counter_config.sample_every =
      env_number("PISA_SAMPLE_EVERY", 1, PISA_MAX_SAMPLE_EVERY, 1);
  pisa_counter_config.interval_ms =
      (unsigned)env_number("PISA_INTERVAL_MS", 1, PISA_MAX_INTERVAL_MS, 0);
  pisa_counter_config.live_ms = (unsigned)env_number(
      PISA_LIVE_MS_ENV, 0, PISA_MAX_INTERVAL_MS, PISA_LIVE_DEFAULT_MS);
  pisa_counter_config.csv = getenv("PISA_CSV") != NULL;
  parse_hw_counters(getenv("PISA_HW_COUNTERS"));
}

/* PISA_ANALYSIS_THREADS=N; by default the CPUs this process may run on,
 * less one for the program's main thread. */
static void parse_analysis_threads(void) {
  cpu_set_t cpus;
  unsigned n = 0;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 1)
    n = (unsigned)CPU_COUNT(&cpus) - 1;
  pisa_config.analysis_threads = (unsigned)env_number(
      "PISA_ANALYSIS_THREADS", 0, PISA_MAX_ANALYSIS_THREADS, n);
}

/* PISA_REGIONS=on|off (pisa-char --no-regions); on when unset. */
static void parse_regions(const char *spec) {
  pisa_config.regions_off = spec && *spec && !strcmp(spec, "off");
  if (spec && *spec && strcmp(spec, "off") && strcmp(spec, "on"))
    refuse("PISA_REGIONS", spec, "on or off");
}

static void read_config(void) {
  const char *dir = getenv("PISA_OUTPUT_DIR");
  parse_line_sizes(getenv("PISA_LINE_SIZES"));
  parse_families(getenv("PISA_METRICS"));
  pisa_config.entropy_bits =
      (unsigned)env_number("PISA_ENTROPY_BITS", 0, PISA_MAX_ENTROPY_BITS, 12);
  parse_memory_limit();
  budget_set_limit(pisa_config.memory_limit);
  parse_windows(getenv("PISA_ILP_WINDOWS"));
  parse_sampling(getenv("PISA_SAMPLE"));
  parse_sample_seed();
  parse_analysis_threads();
  const char *inlined = getenv("PISA_INLINED");
  pisa_config.frames_only = inlined && !strcmp(inlined, "0");
  const char *roi = getenv("PISA_ROI_FUNCTION");
  if (roi && strlen(roi) < sizeof pisa_config.roi_function)
    strcpy(pisa_config.roi_function, roi);
  parse_regions(getenv("PISA_REGIONS"));
  parse_snapshot_interval(getenv("PISA_SNAPSHOT_INTERVAL"));
  pisa_config.objects = (int)env_number("PISA_OBJECTS", 0, 1, 0);
  pisa_config.object_depth = (uint32_t)env_number(
      "PISA_OBJECT_DEPTH", 1, PISA_MAX_HEAP_FRAMES, PISA_DEFAULT_OBJECT_DEPTH);
  pisa_config.loop_metrics = (int)env_number("PISA_LOOP_METRICS", 0, 1, 0);
  parse_intervals(getenv("PISA_INTERVALS"));
  read_counter_config();
  if (!dir || !*dir || refused)
    return;
  if (strlen(dir) >= sizeof pisa_config.output_dir) {
    errno = ENAMETOOLONG;
    PISA_ERR("PISA_OUTPUT_DIR is too long; not analysing");
    return;
  }
  strcpy(pisa_config.output_dir, dir);
  pisa_config.active = 1;
}

PISA_HIDDEN void pisa_config_init(void) {
  pthread_once(&config_once, read_config);
}

PISA_HIDDEN int pisa_counter_mode(void) {
  pisa_config_init();
  return pisa_counter_config.requested;
}

/* pisa.h: whether this run is analysed. */
__attribute__((visibility("default"))) int pisa_active(void) {
  pisa_config_init();
  return pisa_config.active;
}

PISA_HIDDEN unsigned pisa_region_families(void) {
  return pisa_config.sampling.rate < 1
             ? pisa_config.families & ~PISA_BURST_FAMILIES
             : pisa_config.families;
}
