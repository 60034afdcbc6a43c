/* runsettings.c: parsing and checking the settings of an analysed run, and
 * the environment variables that pass them to the runtime. */
#include "runsettings.h"
#include "child.h"
#include "numbers.h"
#include "pisa/live.h"
#include "pisa/vocabulary.h"
#include "rankmerge.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINE_SIZE PISA_MAX_LINE_SIZE
#define MAX_ENTROPY_BITS PISA_MAX_ENTROPY_BITS
#define MAX_WINDOWS PISA_MAX_ILP_WINDOWS
#define MAX_WINDOW PISA_MAX_ILP_WINDOW
#define MAX_HW_COUNTERS PISA_MAX_HW_COUNTERS

void run_settings_init(struct run_settings *s) {
  *s = (struct run_settings){.line_min = 8,
                             .line_max = 512,
                             .entropy_bits = 12,
                             .families = PISA_FAMILIES_ALL,
                             .analysis_threads = -1};
}

/* ---- The valid values ---------------------------------------------------- */

static const char *const ModeNames[] = {
#define PISA_MODE_NAME(Id, Name) Name,
    PISA_MODES(PISA_MODE_NAME)
#undef PISA_MODE_NAME
};

/* The families, then the two words that stand for all of them and none. */
static const char *const MetricNames[] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
    PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
        "all",
    "none",
};
#define ALL_FAMILIES PISA_FAMILY_COUNT /* index of "all" */

static const char *const HwCounterNames[] = {
#define PISA_HW_NAME(Name, ...) Name,
    PISA_HW_EVENTS(PISA_HW_NAME, PISA_HW_NAME)
#undef PISA_HW_NAME
};

const struct name_table run_mode_names = NAME_TABLE_INIT(ModeNames);
const struct name_table run_metric_names = NAME_TABLE_INIT(MetricNames);
const struct name_table run_hw_counter_names = NAME_TABLE_INIT(HwCounterNames);

int run_parse_mode(const struct command_line *cl, const char *arg,
                   struct run_settings *s) {
  size_t mode;
  int status = cmdline_choose(cl, "mode", arg, &mode);
  /* a footprint build runs in counter mode */
  s->footprint = !status && !strcmp(ModeNames[mode], "footprint");
  s->counter = !status && (s->footprint || !strcmp(ModeNames[mode], "counter"));
  return status;
}

static int is_power_of_two(unsigned long v) { return v && !(v & (v - 1)); }

int run_parse_line_sizes(const struct command_line *cl, const char *arg,
                         struct run_settings *s) {
  unsigned long min, max;
  char *end;
  if (!parse_decimal(arg, &end, &min) || *end != ':' ||
      !parse_decimal(end + 1, &end, &max) || *end || !is_power_of_two(min) ||
      !is_power_of_two(max) || max > MAX_LINE_SIZE || min > max)
    return usage_error(cl,
                       "--line-sizes %s: expected MIN:MAX, powers of two from "
                       "1 to %u with MIN <= MAX",
                       arg, MAX_LINE_SIZE);
  s->line_min = (unsigned)min;
  s->line_max = (unsigned)max;
  return 0;
}

int run_parse_entropy_bits(const struct command_line *cl, const char *arg,
                           struct run_settings *s) {
  unsigned long k;
  if (parse_unsigned(arg, 0, MAX_ENTROPY_BITS, &k))
    return usage_error(cl, "--entropy-bits %s: expected a number from 0 to %u",
                       arg, MAX_ENTROPY_BITS);
  s->entropy_bits = (unsigned)k;
  return 0;
}

/* ---- Metric families ----------------------------------------------------- */

/* The families a word of --metrics stands for, or -1 after the usage
 * error that names the known words. */
static long family_bits(const struct command_line *cl, const char *word) {
  size_t i;
  if (cmdline_choose(cl, "metrics", word, &i))
    return -1;
  return i < ALL_FAMILIES    ? 1l << i
         : i == ALL_FAMILIES ? (long)PISA_FAMILIES_ALL
                             : 0;
}

/* "a,b" selects a and b; "-a" removes a from all; "all,-a" likewise. */
int run_parse_metrics(const struct command_line *cl, const char *arg,
                      struct run_settings *s) {
  unsigned families = arg[0] == '-' ? PISA_FAMILIES_ALL : 0;
  for (const char *p = arg; *p;) {
    int remove = *p == '-';
    const char *name = p + remove;
    size_t len = strcspn(name, ",");
    if (!len)
      return usage_error(cl, "--metrics %s: empty family name", arg);
    char *word = xasprintf("%.*s", (int)len, name);
    long bits = family_bits(cl, word);
    int none = !strcmp(word, "none");
    free(word);
    if (bits < 0)
      return 2;
    if (remove && (bits & PISA_FAMILY(REUSE)))
      bits |= PISA_FAMILY(LOCALITY); /* locality is computed from reuse */
    if (none)
      families = 0;
    families = remove ? families & ~(unsigned)bits : families | (unsigned)bits;
    p = name + len + (name[len] == ',');
  }
  if (families & PISA_FAMILY(LOCALITY))
    families |= PISA_FAMILY(REUSE);
  s->families = families;
  s->metrics_given = 1;
  return 0;
}

/* The enabled families as PISA_METRICS expects them: "name,name". */
static void families_env(unsigned families, char *buf, size_t n) {
  buf[0] = '\0';
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (families & (1u << f))
      snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "",
               MetricNames[f]);
}

/* ---- Schedules, counter mode and MPI ------------------------------------- */

/* --ilp-windows W,W,...: up to 8 distinct windows, 0 for unlimited. */
int run_parse_windows(const struct command_line *cl, const char *arg,
                      struct run_settings *s) {
  unsigned long seen[MAX_WINDOWS];
  size_t n = 0, len = 0;
  for (const char *p = arg;;) {
    char *end;
    errno = 0;
    unsigned long w = strtoul(p, &end, 10);
    if (end == p || *p == '-' || (*end && *end != ',') || errno ||
        w > MAX_WINDOW || n == MAX_WINDOWS)
      return usage_error(cl,
                         "--ilp-windows %s: expected up to %d comma-separated "
                         "windows from 0 (unlimited) to %d",
                         arg, MAX_WINDOWS, MAX_WINDOW);
    for (size_t i = 0; i < n; i++)
      if (seen[i] == w)
        return usage_error(cl, "--ilp-windows %s: window %lu is listed twice",
                           arg, w);
    seen[n++] = w;
    len += (size_t)snprintf(s->windows + len, sizeof s->windows - len, "%s%lu",
                            len ? "," : "", w);
    if (!*end)
      return 0;
    p = end + 1;
  }
}

/* --hw-counters: up to 8 perf event names the runtime knows. */
int run_parse_hw_counters(const struct command_line *cl, const char *arg,
                          struct run_settings *s) {
  int n = 0;
  for (const char *p = arg;; n++) {
    size_t len = strcspn(p, ",");
    char *word = xasprintf("%.*s", (int)len, p);
    size_t index;
    int status = n == MAX_HW_COUNTERS
                     ? usage_error(cl, "--hw-counters %s: more than %d events",
                                   arg, MAX_HW_COUNTERS)
                     : cmdline_choose(cl, "hw-counters", word, &index);
    free(word);
    if (status)
      return status;
    if (!p[len])
      break;
    p += len + 1;
  }
  s->hw_counters = arg;
  return 0;
}

/* A positive decimal no larger than max, for option `name`. */
static int parse_positive(const struct command_line *cl, const char *name,
                          const char *arg, unsigned long max,
                          unsigned long *out) {
  if (parse_unsigned(arg, 1, max, out))
    return usage_error(cl, "%s %s: expected a number from 1 to %lu", name, arg,
                       max);
  return 0;
}

int run_parse_sample_every(const struct command_line *cl, const char *arg,
                           struct run_settings *s) {
  return parse_positive(cl, "--sample-every", arg, PISA_MAX_SAMPLE_EVERY,
                        &s->sample_every);
}

int run_parse_interval_ms(const struct command_line *cl, const char *arg,
                          struct run_settings *s) {
  return parse_positive(cl, "--interval-ms", arg, PISA_MAX_INTERVAL_MS,
                        &s->interval_ms);
}

int run_parse_mpi_ranks(const struct command_line *cl, const char *arg,
                        struct run_settings *s) {
  unsigned long n;
  if (parse_unsigned(arg, 1, PISA_MAX_RANKS, &n))
    return usage_error(cl, "--mpi %s: expected a number of ranks from 1 to %d",
                       arg, PISA_MAX_RANKS);
  s->mpi_ranks = (int)n;
  return 0;
}

/* The runtime keeps the glob in a 256-byte buffer (analysislib/config.h). */
int run_parse_roi_function(const struct command_line *cl, const char *arg,
                           struct run_settings *s) {
  if (!*arg || strlen(arg) > 255)
    return usage_error(cl,
                       "--roi-function '%s': expected a function name or glob "
                       "of 1 to 255 characters",
                       arg);
  s->roi_function = arg;
  return 0;
}

/* The runtime keeps at most 8 frames of a heap site (pisa/abi.h); 2 is
 * its default (analysislib/config.h). */
int run_parse_object_depth(const struct command_line *cl, const char *arg,
                           struct run_settings *s) {
  if (!arg) {
    s->object_depth = s->object_depth ? s->object_depth : 2;
    return 0;
  }
  return parse_positive(cl, "--object-depth", arg, 8, &s->object_depth);
}

int run_parse_intervals(const struct command_line *cl, const char *arg,
                        struct run_settings *s) {
  unsigned long n;
  if (strcmp(arg, "auto") && strcmp(arg, "off") &&
      parse_unsigned(arg, 1, PISA_MAX_INTERVAL_INSTRUCTIONS, &n))
    return usage_error(cl,
                       "--intervals %s: expected a number of instructions "
                       "from 1 to %llu, auto or off",
                       arg, PISA_MAX_INTERVAL_INSTRUCTIONS);
  s->intervals = arg;
  return 0;
}

/* ---- Sampling and the memory budget ------------------------------------- */

int run_parse_sample(const struct command_line *cl, const char *arg,
                     struct run_settings *s) {
  char *end;
  errno = 0;
  double rate = strtod(arg, &end);
  if (end != arg && *end == '%' && !end[1])
    rate /= 100, end++;
  if (end == arg || *end || errno ||
      !(rate >= PISA_MIN_SAMPLE_RATE && rate <= 1) ||
      !(arg[0] >= '0' && arg[0] <= '9'))
    return usage_error(cl,
                       "--sample %s: expected a rate from 0.000001 to 1, or a "
                       "percentage such as 1%%",
                       arg);
  s->sample_rate = rate;
  return 0;
}

int run_parse_sample_seed(const struct command_line *cl, const char *arg,
                          struct run_settings *s) {
  if (parse_unsigned(arg, 0, ULONG_MAX, &s->sample_seed))
    return usage_error(cl, "--sample-seed %s: expected a number from 0 to %lu",
                       arg, ULONG_MAX);
  s->sample_seed_given = 1;
  return 0;
}

int run_parse_memory_limit(const struct command_line *cl, const char *arg,
                           struct run_settings *s) {
  uint64_t bytes;
  if (parse_size(arg, PISA_MIN_MEMORY_LIMIT, 0x1p63, &bytes))
    return usage_error(cl,
                       "--memory-limit %s: expected a size of at least 1M, in "
                       "bytes or with K, M, G or T",
                       arg);
  s->memory_limit = bytes;
  return 0;
}

int run_parse_analysis_threads(const struct command_line *cl, const char *arg,
                               struct run_settings *s) {
  unsigned long n;
  if (parse_unsigned(arg, 0, PISA_MAX_ANALYSIS_THREADS, &n))
    return usage_error(cl,
                       "--analysis-threads %s: expected a number from 0 "
                       "to 64",
                       arg);
  s->analysis_threads = (int)n;
  return 0;
}

int run_check_mode(const struct command_line *cl,
                   const struct run_settings *s) {
  if (s->counter &&
      (s->sample_rate || s->memory_limit || s->analysis_threads >= 0))
    return usage_error(cl, "--sample, --memory-limit and --analysis-threads "
                           "belong to deep mode");
  if (!s->counter &&
      (s->sample_every || s->hw_counters || s->interval_ms || s->csv))
    return usage_error(cl, "--sample-every, --hw-counters, --interval-ms and "
                           "--csv need --mode counter");
  if (s->counter && s->intervals)
    return usage_error(cl, "--intervals needs deep mode; a counter run has "
                           "--interval-ms");
  if (s->sample_seed_given && !s->sample_rate)
    return usage_error(cl, "--sample-seed needs --sample");
  if (s->sample_rate && s->intervals && strcmp(s->intervals, "off"))
    return usage_error(cl, "--intervals needs an exact run; a sampled run "
                           "(--sample) keeps no intervals");
  if (s->no_regions && (s->counter || s->roi_function))
    return usage_error(cl, "--no-regions ignores deep mode's regions of "
                           "interest; it goes with neither --mode counter nor "
                           "--roi-function");
  if (s->counter && s->object_depth)
    return usage_error(cl, "--objects and --object-depth need deep mode");
  if (s->counter && s->loop_metrics)
    return usage_error(cl, "--loop-metrics needs deep mode");
  if (s->counter && s->roi_function)
    return usage_error(cl, "--roi-function needs deep mode; a counter run has "
                           "the regions its PISA_ROI markers make");
  if (s->counter && s->metrics_given)
    return usage_error(cl, "--metrics selects deep-mode families; a counter "
                           "run computes the instruction mix, bytes and "
                           "regions");
  return 0;
}

void run_check_environment(void) {
  const char *snapshot = getenv("PISA_SNAPSHOT_INTERVAL");
  unsigned long seconds;
  if (snapshot && strcmp(snapshot, "auto") && strcmp(snapshot, "off") &&
      parse_unsigned(snapshot, 1, PISA_MAX_SNAPSHOT_INTERVAL, &seconds))
    die("PISA_SNAPSHOT_INTERVAL=%s: expected a number of seconds from 1 to "
        "%u, auto or off",
        snapshot, PISA_MAX_SNAPSHOT_INTERVAL);
  const char *intervals = getenv("PISA_INTERVALS");
  unsigned long instructions;
  if (intervals && strcmp(intervals, "auto") && strcmp(intervals, "off") &&
      parse_unsigned(intervals, 1, PISA_MAX_INTERVAL_INSTRUCTIONS,
                     &instructions))
    die("PISA_INTERVALS=%s: expected a number of instructions from 1 to "
        "%llu, auto or off",
        intervals, PISA_MAX_INTERVAL_INSTRUCTIONS);
  const char *live = getenv(PISA_LIVE_MS_ENV);
  unsigned long ms;
  if (live && *live && parse_unsigned(live, 0, PISA_MAX_INTERVAL_MS, &ms))
    die(PISA_LIVE_MS_ENV "=%s: expected milliseconds from 0 (no live view) to "
                         "%u",
        live, PISA_MAX_INTERVAL_MS);
  const char *regions = getenv("PISA_REGIONS");
  if (regions && *regions && strcmp(regions, "on") && strcmp(regions, "off"))
    die("PISA_REGIONS=%s: expected on or off", regions);
  const char *limit = getenv("PISA_SCHED_MEMORY");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  unsigned long memory =
      pages > 0 && page > 0 ? (unsigned long)pages * (unsigned long)page : ~0ul;
  unsigned long v;
  if (limit && parse_unsigned(limit, 1, memory, &v))
    die("PISA_SCHED_MEMORY=%s: expected a number of bytes from 1 to %lu (the "
        "machine's memory)",
        limit, memory);
}

/* ---- The runtime's environment ------------------------------------------- */

/* The runtime's counter-mode variables (analysislib/config.c, counter/). */
static void counter_env(const struct run_settings *s, struct strvec *env) {
  char number[32];
  child_env_set(env, "PISA_MODE", s->counter ? "counter" : "deep", 1);
  if (!s->counter)
    return;
  snprintf(number, sizeof number, "%lu", s->sample_every ? s->sample_every : 1);
  child_env_set(env, "PISA_SAMPLE_EVERY", number, 1);
  if (s->interval_ms) {
    snprintf(number, sizeof number, "%lu", s->interval_ms);
    child_env_set(env, "PISA_INTERVAL_MS", number, 1);
  }
  if (s->hw_counters)
    child_env_set(env, "PISA_HW_COUNTERS", s->hw_counters, 1);
  if (s->csv)
    child_env_set(env, "PISA_CSV", "1", 1);
}

/* PISA_SAMPLE, PISA_SAMPLE_SEED, PISA_MEMORY_LIMIT and
 * PISA_ANALYSIS_THREADS, when given. */
static void sampling_env(const struct run_settings *s, struct strvec *env) {
  char number[32];
  if (s->analysis_threads >= 0) {
    snprintf(number, sizeof number, "%d", s->analysis_threads);
    child_env_set(env, "PISA_ANALYSIS_THREADS", number, 1);
  }
  if (s->sample_rate) {
    snprintf(number, sizeof number, "%.9g", s->sample_rate);
    child_env_set(env, "PISA_SAMPLE", number, 1);
  }
  if (s->sample_seed_given) {
    snprintf(number, sizeof number, "%lu", s->sample_seed);
    child_env_set(env, "PISA_SAMPLE_SEED", number, 1);
  }
  if (s->memory_limit) {
    snprintf(number, sizeof number, "%llu", s->memory_limit);
    child_env_set(env, "PISA_MEMORY_LIMIT", number, 1);
  }
}

void run_settings_env(const struct run_settings *s, const char *raw_dir,
                      struct strvec *env) {
  char sizes[32], bits[16], families[128];
  snprintf(sizes, sizeof sizes, "%u:%u", s->line_min, s->line_max);
  snprintf(bits, sizeof bits, "%u", s->entropy_bits);
  families_env(s->families, families, sizeof families);
  child_env_set(env, "PISA_OUTPUT_DIR", raw_dir, 1);
  child_env_set(env, "PISA_LINE_SIZES", sizes, 1);
  child_env_set(env, "PISA_ENTROPY_BITS", bits, 1);
  child_env_set(env, "PISA_METRICS", families, 1);
  counter_env(s, env);
  if (s->roi_function)
    child_env_set(env, "PISA_ROI_FUNCTION", s->roi_function, 1);
  if (s->intervals)
    child_env_set(env, "PISA_INTERVALS", s->intervals, 1);
  if (s->no_regions)
    child_env_set(env, "PISA_REGIONS", "off", 1);
  if (s->loop_metrics)
    child_env_set(env, "PISA_LOOP_METRICS", "1", 1);
  if (s->object_depth) {
    char depth[24];
    snprintf(depth, sizeof depth, "%lu", s->object_depth);
    child_env_set(env, "PISA_OBJECTS", "1", 1);
    child_env_set(env, "PISA_OBJECT_DEPTH", depth, 1);
  }
  child_env_set(env, "PISA_ILP_WINDOWS", s->windows[0] ? s->windows : "0,64",
                1);
  sampling_env(s, env);
}
