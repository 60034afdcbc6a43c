/* runsettings.c: parsing and checking the settings of an analysed run, and
 * the environment variables that pass them to the runtime. */
#include "runsettings.h"
#include "child.h"
#include "numbers.h"
#include "pisa/vocabulary.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE_SIZE (1u << 20)
#define MAX_ENTROPY_BITS 40u
#define MAX_WINDOWS 8
#define MAX_WINDOW 1048576

void run_settings_init(struct run_settings *s) {
  *s = (struct run_settings){.line_min = 8,
                             .line_max = 512,
                             .entropy_bits = 12,
                             .families = PISA_FAMILIES_ALL};
}

void run_parse_mode(const char *arg, struct run_settings *s) {
  if (strcmp(arg, "deep") && strcmp(arg, "counter"))
    die("unknown mode '%s' (expected deep or counter)", arg);
  s->counter = !strcmp(arg, "counter");
}

static int is_power_of_two(unsigned long v) { return v && !(v & (v - 1)); }

void run_parse_line_sizes(const char *arg, struct run_settings *s) {
  unsigned long min, max;
  char *end;
  if (!parse_decimal(arg, &end, &min) || *end != ':' ||
      !parse_decimal(end + 1, &end, &max) || *end || !is_power_of_two(min) ||
      !is_power_of_two(max) || max > MAX_LINE_SIZE || min > max)
    die("--line-sizes %s: expected MIN:MAX, powers of two from 1 to %u with "
        "MIN <= MAX",
        arg, MAX_LINE_SIZE);
  s->line_min = (unsigned)min;
  s->line_max = (unsigned)max;
}

void run_parse_entropy_bits(const char *arg, struct run_settings *s) {
  unsigned long k;
  if (parse_unsigned(arg, 0, MAX_ENTROPY_BITS, &k))
    die("--entropy-bits %s: expected a number from 0 to %u", arg,
        MAX_ENTROPY_BITS);
  s->entropy_bits = (unsigned)k;
}

/* ---- Metric families ----------------------------------------------------- */

static const char *const FamilyNames[] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
    PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
};

static unsigned family_bit(const char *name, size_t len) {
  if (len == 3 && !strncmp(name, "all", 3))
    return PISA_FAMILIES_ALL;
  if (len == 4 && !strncmp(name, "none", 4))
    return 0;
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (strlen(FamilyNames[f]) == len && !strncmp(name, FamilyNames[f], len))
      return 1u << f;
  die("--metrics: unknown family '%.*s' (expected footprint, entropy, reuse, "
      "locality, classes, branch, all or none)",
      (int)len, name);
}

/* "a,b" selects a and b; "-a" removes a from all; "all,-a" likewise. */
void run_parse_metrics(const char *arg, struct run_settings *s) {
  unsigned families = arg[0] == '-' ? PISA_FAMILIES_ALL : 0;
  for (const char *p = arg; *p;) {
    int remove = *p == '-';
    const char *name = p + remove;
    size_t len = strcspn(name, ",");
    if (!len)
      die("--metrics %s: empty family name", arg);
    unsigned bits = family_bit(name, len);
    if (remove && (bits & PISA_FAMILY(REUSE)))
      bits |= PISA_FAMILY(LOCALITY); /* locality is computed from reuse */
    if (!strncmp(name, "none", len) && len == 4)
      families = 0;
    families = remove ? families & ~bits : families | bits;
    p = name + len + (name[len] == ',');
  }
  if (families & PISA_FAMILY(LOCALITY))
    families |= PISA_FAMILY(REUSE);
  s->families = families;
  s->metrics_given = 1;
}

/* The enabled families as PISA_METRICS expects them: "name,name". */
static void families_env(unsigned families, char *buf, size_t n) {
  buf[0] = '\0';
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (families & (1u << f))
      snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "",
               FamilyNames[f]);
}

/* ---- Schedules, counter mode and MPI ------------------------------------- */

/* --ilp-windows W,W,...: up to 8 distinct windows, 0 for unlimited. */
void run_parse_windows(const char *arg, struct run_settings *s) {
  unsigned long seen[MAX_WINDOWS];
  size_t n = 0, len = 0;
  for (const char *p = arg;;) {
    char *end;
    errno = 0;
    unsigned long w = strtoul(p, &end, 10);
    if (end == p || *p == '-' || (*end && *end != ',') || errno ||
        w > MAX_WINDOW || n == MAX_WINDOWS)
      die("--ilp-windows %s: expected up to 8 comma-separated windows "
          "from 0 (unlimited) to 1048576",
          arg);
    for (size_t i = 0; i < n; i++)
      if (seen[i] == w)
        die("--ilp-windows %s: window %lu is listed twice", arg, w);
    seen[n++] = w;
    len += (size_t)snprintf(s->windows + len, sizeof s->windows - len, "%s%lu",
                            len ? "," : "", w);
    if (!*end)
      break;
    p = end + 1;
  }
}

/* --hw-counters: up to 8 perf event names the runtime knows. */
void run_parse_hw_counters(const char *arg, struct run_settings *s) {
  static const char Known[] =
      ",instructions,cycles,cache-misses,cache-references,branches,"
      "branch-misses,l1d-read-misses,llc-read-misses,task-clock,page-faults,"
      "context-switches,cpu-migrations,";
  int n = 0;
  for (const char *p = arg;; n++) {
    size_t len = strcspn(p, ",");
    char *word = xasprintf(",%.*s,", (int)len, p);
    if (!len || !strstr(Known, word) || n == 8)
      die("--hw-counters %s: expected up to 8 comma-separated events of "
          "instructions, cycles, cache-misses, cache-references, branches, "
          "branch-misses, l1d-read-misses, llc-read-misses, task-clock, "
          "page-faults, context-switches, cpu-migrations",
          arg);
    free(word);
    if (!p[len])
      break;
    p += len + 1;
  }
  s->hw_counters = arg;
}

/* A positive decimal no larger than max, for option `name`. */
static unsigned long parse_positive(const char *name, const char *arg,
                                    unsigned long max) {
  unsigned long v;
  if (parse_unsigned(arg, 1, max, &v))
    die("%s %s: expected a number from 1 to %lu", name, arg, max);
  return v;
}

void run_parse_sample_every(const char *arg, struct run_settings *s) {
  s->sample_every = parse_positive("--sample-every", arg, 1u << 30);
}

void run_parse_interval_ms(const char *arg, struct run_settings *s) {
  s->interval_ms = parse_positive("--interval-ms", arg, 3600000);
}

void run_parse_mpi_ranks(const char *arg, struct run_settings *s) {
  unsigned long n;
  if (parse_unsigned(arg, 1, 4096, &n))
    die("--mpi %s: expected a number of ranks from 1 to 4096", arg);
  s->mpi_ranks = (int)n;
}

/* The runtime keeps the glob in a 256-byte buffer (analysislib/config.h). */
void run_parse_roi_function(const char *arg, struct run_settings *s) {
  if (!*arg || strlen(arg) > 255)
    die("--roi-function '%s': expected a function name or glob of 1 to 255 "
        "characters",
        arg);
  s->roi_function = arg;
}

void run_check_mode(const struct run_settings *s) {
  if (!s->counter &&
      (s->sample_every || s->hw_counters || s->interval_ms || s->csv))
    die("--sample-every, --hw-counters, --interval-ms and --csv need "
        "--mode counter");
  if (s->counter && s->roi_function)
    die("--roi-function needs deep mode; a counter run has the regions its "
        "PISA_ROI markers make");
  if (s->counter && s->metrics_given)
    die("--metrics selects deep-mode families; a counter run computes the "
        "instruction mix, bytes and regions");
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
  child_env_set(env, "PISA_ILP_WINDOWS", s->windows[0] ? s->windows : "0,64",
                1);
}
