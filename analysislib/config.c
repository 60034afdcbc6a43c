/* config.c: the environment to settings (config.h), once.  pisa-char
 * validated what it set; anything malformed is reported and replaced by
 * the default, never fatal. */
#include "config.h"
#include "entropy.h"
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

/* PISA_LINE_SIZES=MIN:MAX, powers of two; pisa-char validated it. */
static void parse_line_sizes(const char *spec) {
  unsigned long long lo = 8, hi = 512;
  if (spec && (sscanf(spec, "%llu:%llu", &lo, &hi) != 2 || !lo || lo > hi ||
               (lo & (lo - 1)) || (hi & (hi - 1)) || hi > (1ull << 30))) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_LINE_SIZES=%s", spec);
    lo = 8;
    hi = 512;
  }
  pisa_config.n_line_sizes = 0;
  for (unsigned long long b = lo;
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
    if (f < PISA_FAMILY_COUNT)
      pisa_config.families |= 1u << f;
    else if ((errno = 0) == 0)
      PISA_ERR("ignoring unknown metric family '%.*s' in PISA_METRICS",
               (int)len, p);
    p += len + (p[len] == ',');
  }
  if (pisa_config.families & PISA_FAMILY(LOCALITY))
    pisa_config.families |= PISA_FAMILY(REUSE);
}

/* PISA_ILP_WINDOWS=W,W,...: instruction windows of the ILP schedules, 0
 * for unlimited; pisa-char validated them.  Default 0,64. */
static void parse_windows(const char *spec) {
  struct sched_config *c = &pisa_config.sched;
  c->n_windows = 0;
  for (const char *p = spec; p && *p && c->n_windows < SCHED_MAX_WINDOWS;) {
    char *end;
    unsigned long w = strtoul(p, &end, 10);
    if (end == p || (*end && *end != ',') || w > UINT32_MAX) {
      errno = 0;
      PISA_ERR("ignoring malformed PISA_ILP_WINDOWS=%s", spec);
      c->n_windows = 0;
      break;
    }
    c->windows[c->n_windows++] = (uint32_t)w;
    p = *end ? end + 1 : end;
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
 * PISA_SCHED_MEMORY, the schedules' own limit before it, is taken as the
 * limit when it is the only one set. */
static void parse_memory_limit(void) {
  const char *limit = getenv("PISA_MEMORY_LIMIT");
  const char *old = getenv("PISA_SCHED_MEMORY");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  pisa_config.memory_limit = pages > 0 && page > 0
                                 ? (uint64_t)pages * (uint64_t)page / 2
                                 : UINT64_C(8) << 30;
  if (old && *old && (errno = 0) == 0)
    PISA_ERR("PISA_SCHED_MEMORY is replaced by PISA_MEMORY_LIMIT "
             "(pisa-char --memory-limit)%s",
             limit && *limit ? "; ignoring it" : "; using it as the limit");
  if (!limit || !*limit)
    limit = old;
  if (!limit || !*limit)
    return;
  char *end;
  unsigned long long v = strtoull(limit, &end, 10);
  if (*end || !v) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_MEMORY_LIMIT=%s", limit);
    return;
  }
  pisa_config.memory_limit = v;
}

/* PISA_SAMPLE=RATE, 0 < RATE <= 1 (pisa-char validated it); 1 when unset.
 * Bursts of 2^12 block instances: long enough that window edges are
 * rare, short enough that a run of 10^7 instances gets 20 bursts at 1%. */
static void parse_sampling(const char *spec) {
  struct pisa_sampling_config *c = &pisa_config.sampling;
  char *end = NULL;
  double rate = spec && *spec ? strtod(spec, &end) : 1.0;
  if (end && (*end || !(rate > 0 && rate <= 1))) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_SAMPLE=%s", spec);
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
  c->rate = rate < 1 ? c->reuse.rate : 1.0;
  c->burst_instances = UINT64_C(1) << 12;
  c->burst_period = (uint64_t)((double)c->burst_instances / c->rate + 0.5);
}

static void parse_entropy_bits(const char *spec) {
  unsigned bits = 12;
  if (spec && (sscanf(spec, "%u", &bits) != 1 || bits > ENTROPY_MAX_SHIFT)) {
    errno = 0;
    PISA_ERR("ignoring malformed PISA_ENTROPY_BITS=%s", spec);
    bits = 12;
  }
  pisa_config.entropy_bits = bits;
}

static unsigned long env_number(const char *name, unsigned long fallback) {
  const char *v = getenv(name);
  char *end;
  if (!v || !*v)
    return fallback;
  unsigned long n = strtoul(v, &end, 10);
  if (*end || n == 0) {
    errno = 0;
    PISA_ERR("ignoring malformed %s=%s", name, v);
    return fallback;
  }
  return n;
}

/* PISA_HW_COUNTERS=name,name (pisa-char checked the names). */
static void parse_hw_counters(const char *spec) {
  struct pisa_counter_config *c = &pisa_counter_config;
  for (const char *p = spec; p && *p && c->n_hw < PISA_MAX_HW_COUNTERS;) {
    size_t len = strcspn(p, ",");
    if (len && len < sizeof c->hw_names[0])
      memcpy(c->hw_names[c->n_hw++], p, len);
    p += len + (p[len] == ',');
  }
}

static void read_counter_config(void) {
  const char *mode = getenv("PISA_MODE");
  pisa_counter_config.requested = mode && !strcmp(mode, "counter");
  pisa_counter_config.sample_every = env_number("PISA_SAMPLE_EVERY", 1);
  pisa_counter_config.interval_ms = (unsigned)env_number("PISA_INTERVAL_MS", 0);
  pisa_counter_config.csv = getenv("PISA_CSV") != NULL;
  parse_hw_counters(getenv("PISA_HW_COUNTERS"));
}

/* PISA_ANALYSIS_THREADS=N (pisa-char checked it); by default the CPUs this
 * process may run on, less one for the program's main thread. */
static void parse_analysis_threads(void) {
  cpu_set_t cpus;
  unsigned n = 0;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 1)
    n = (unsigned)CPU_COUNT(&cpus) - 1;
  const char *v = getenv("PISA_ANALYSIS_THREADS");
  char *end;
  if (v && *v) {
    unsigned long k = strtoul(v, &end, 10);
    if (*end || k > 64) {
      errno = 0;
      PISA_ERR("ignoring malformed PISA_ANALYSIS_THREADS=%s", v);
    } else {
      n = (unsigned)k;
    }
  }
  pisa_config.analysis_threads = n;
}

static void read_config(void) {
  const char *dir = getenv("PISA_OUTPUT_DIR");
  parse_line_sizes(getenv("PISA_LINE_SIZES"));
  parse_families(getenv("PISA_METRICS"));
  parse_entropy_bits(getenv("PISA_ENTROPY_BITS"));
  parse_memory_limit();
  parse_windows(getenv("PISA_ILP_WINDOWS"));
  parse_sampling(getenv("PISA_SAMPLE"));
  parse_analysis_threads();
  const char *inlined = getenv("PISA_INLINED");
  pisa_config.frames_only = inlined && !strcmp(inlined, "0");
  const char *roi = getenv("PISA_ROI_FUNCTION");
  if (roi && strlen(roi) < sizeof pisa_config.roi_function)
    strcpy(pisa_config.roi_function, roi);
  read_counter_config();
  if (!dir || !*dir)
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
