/* report.c: what pisa-bench prints and records: the machine and versions, a
 * table per tool (median CPU time and peak RSS and their ratios over native),
 * a summary of all tools, the JSON record, and the change between records. */
#include "bench.h"
#include "jsonpath.h"
#include "strbuf.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Set by bench/CMakeLists.txt: the flags of both builds of the kernels. */
#ifndef PISA_BENCH_CFLAGS
#define PISA_BENCH_CFLAGS "?"
#endif

#define RECORD_FORMAT 2
#define KIB_PER_MIB 1024.0

/* ---- The record's context: date, command, machine, versions -------------- */

static char *cpu_model(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  char *model = NULL;
  while (f && !model && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && !strncmp(line, "model name", 10))
      model = strndup(colon + 2, strcspn(colon + 2, "\n"));
  }
  if (f)
    fclose(f);
  return model ? model : xstrdup("unknown");
}

static long long mem_total_kib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  long long kib = -1;
  if (f && fscanf(f, "MemTotal: %lld kB", &kib) != 1)
    kib = -1;
  if (f)
    fclose(f);
  return kib;
}

static void add_load_average(struct json_object *machine, const char *key) {
  double load[3] = {-1, -1, -1};
  struct json_object *a = json_object_new_array();
  getloadavg(load, 3);
  for (int i = 0; i < 3; i++)
    json_object_array_add(a, json_object_new_double(load[i]));
  json_object_object_add(machine, key, a);
}

static struct json_object *machine_json(void) {
  struct json_object *m = json_object_new_object();
  struct utsname u;
  char *cpu = cpu_model();
  json_object_object_add(m, "cpu", json_object_new_string(cpu));
  json_object_object_add(m, "cpus",
                         json_object_new_int(sysconf(_SC_NPROCESSORS_ONLN)));
  json_object_object_add(m, "mem_kib", json_object_new_int64(mem_total_kib()));
  if (uname(&u) == 0)
    json_object_object_add(m, "kernel", json_object_new_string(u.release));
  add_load_average(m, "load_average_before");
  free(cpu);
  return m;
}

static struct json_object *versions_json(const struct bench *b) {
  struct json_object *v = json_object_new_object();
  char *pisa[] = {(char *)b->pisa_char, "--version", NULL};
  char *valgrind[] = {b->valgrind, "--version", NULL};
  char *line = first_output_line(b->tmpdir, pisa);
  json_object_object_add(v, "pisa-char", json_object_new_string(line));
  free(line);
  if (b->valgrind) {
    line = first_output_line(b->tmpdir, valgrind);
    json_object_object_add(v, "valgrind", json_object_new_string(line));
    free(line);
  }
  json_object_object_add(v, "kernels_cflags",
                         json_object_new_string(PISA_BENCH_CFLAGS));
  return v;
}

/* How pisa-bench was run, for the record (a word with spaces, such as a
 * --preset, quoted so that the line can be run again). */
char *command_line(int argc, char **argv) {
  struct strbuf text = {0};
  sb_puts(&text, "pisa-bench");
  for (int i = 1; i < argc; i++)
    sb_printf(&text, strchr(argv[i], ' ') ? " '%s'" : " %s", argv[i]);
  return text.data;
}

/* The record's first part, which the results are added to. */
struct json_object *record_context(const struct bench *b) {
  struct json_object *info = json_object_new_object();
  char date[64];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&t));
  json_object_object_add(info, "tool", json_object_new_string("pisa-bench"));
  json_object_object_add(info, "date", json_object_new_string(date));
  json_object_object_add(info, "command", json_object_new_string(b->command));
  json_object_object_add(info, "machine", machine_json());
  json_object_object_add(info, "versions", versions_json(b));
  return info;
}

/* The text at path in record; "?" where it is missing. */
static const char *text_at(struct json_object *record, const char *path) {
  const char *text = json_object_get_string(json_at(record, path));
  return text ? text : "?";
}

/* "load average 1.00 2.00 3.00 (1, 5, 15 min)" */
static void print_load(struct json_object *record, const char *when) {
  char *path = xasprintf("machine/%s", when);
  struct json_object *load = json_at(record, path);
  free(path);
  printf("load average");
  for (size_t i = 0; i < json_object_array_length(load); i++)
    printf(" %.2f", json_object_get_double(json_object_array_get_idx(load, i)));
  printf(" (1, 5, 15 min)\n");
}

void print_header(const struct bench *b, struct json_object *record) {
  printf("pisa-bench: %s\n%s\n",
         json_object_get_string(json_at(record, "date")), b->command);
  printf("machine: %s, %d cpus, %.1f GiB, Linux %s, ",
         text_at(record, "machine/cpu"),
         json_object_get_int(json_at(record, "machine/cpus")),
         (double)json_object_get_int64(json_at(record, "machine/mem_kib")) /
             1048576,
         text_at(record, "machine/kernel"));
  print_load(record, "load_average_before");
  printf("tools: %s; %s\n", text_at(record, "versions/pisa-char"),
         b->valgrind ? text_at(record, "versions/valgrind") : "no cachegrind");
  printf("kernels: %s, sizes: %s\nmedians of %d runs, interleaved; CPU time "
         "is user + sys of the whole process tree, RSS its peak\n\n",
         PISA_BENCH_CFLAGS, b->sizes, b->reps);
}

void record_load_after(struct json_object *record) {
  add_load_average(json_at(record, "machine"), "load_average_after");
  printf("\nafter the run: ");
  print_load(record, "load_average_after");
}

/* ---- Tables -------------------------------------------------------------- */

/* A ratio with the digits that matter: 1.04x, 12.3x, 435x. */
static const char *format_ratio(double r, char buf[32]) {
  snprintf(buf, 32, "%.*fx", r < 10 ? 2 : r < 100 ? 1 : 0, r);
  return buf;
}

static void print_ratio(double r, int width, bool valid) {
  char buf[32];
  printf(" %*s", width, valid ? format_ratio(r, buf) : "-");
}

static void print_number(double v, const char *fmt, int width, bool valid) {
  char buf[32];
  snprintf(buf, sizeof buf, fmt, v);
  printf(" %*s", width, valid ? buf : "-");
}

/* The command a tool runs, as the header of its table and in the record. */
static char *tool_command(const struct bench *b, const struct tool *t) {
  struct strbuf text = {0};
  sb_puts(&text, t->kind == TOOL_PISA         ? "pisa-char -q --force "
                 : t->kind == TOOL_CACHEGRIND ? "valgrind "
                                              : "");
  for (int i = 0; t->args[i]; i++)
    sb_printf(&text, "%s ", t->args[i]);
  sb_printf(&text, "%s%s/%s/K", t->kind == TOOL_PISA ? "-o FILE " : "", b->dir,
            t->build);
  return text.data;
}

static void print_native_table(const struct bench *b) {
  char *command = tool_command(b, &b->tools[0]);
  printf("native: %s\n%-15s %-22s %8s %8s %9s %11s\n", command, "kernel",
         "arguments", "CPU s", "wall s", "RSS MiB", "accesses M");
  free(command);
  for (size_t i = 0; i < b->kernel_count; i++) {
    const struct kernel_result *k = &b->kernels[i];
    char args[64] = "";
    for (int a = 0; k->args[a]; a++)
      snprintf(args + strlen(args), sizeof args - strlen(args), "%s%s",
               a ? " " : "", k->args[a]);
    bool ok = complete(b, k, 0);
    printf("%-15s %-22s", k->name, *args ? args : "(default)");
    print_number(median(k, 0, MEASURE_CPU), "%.3f", 8, ok);
    print_number(median(k, 0, MEASURE_WALL), "%.3f", 8, ok);
    print_number(median(k, 0, MEASURE_RSS) / KIB_PER_MIB, "%.1f", 9, ok);
    print_number((double)k->accesses / 1e6, "%.0f", 11, k->accesses >= 0);
    printf("%s\n", ok ? "" : "  FAILED");
  }
}

/* Whether the tool's median peak RSS on the kernel meets its target. */
static bool rss_target_met(const struct bench *b, const struct kernel_result *k,
                           int t) {
  return median(k, t, MEASURE_RSS) <=
         b->tools[t].target.rss_factor * median(k, 0, MEASURE_RSS) +
             RSS_ALLOWANCE_KIB;
}

static void print_rss_target(const struct bench *b, int t) {
  int met = 0, count = 0;
  if (b->tools[t].target.rss_factor <= 0)
    return;
  printf("target: peak RSS <= %gx native + %d MiB: ",
         b->tools[t].target.rss_factor, RSS_ALLOWANCE_KIB / 1024);
  for (size_t i = 0; i < b->kernel_count; i++)
    if (complete(b, &b->kernels[i], t)) {
      bool ok = rss_target_met(b, &b->kernels[i], t);
      met += ok;
      count++;
      if (!ok)
        printf("%s%s", count - met == 1 ? "not on " : ", ", b->kernels[i].name);
    }
  printf("%smet on %d of %d kernels\n", count > met ? "; " : "", met, count);
}

static void print_tool_table(const struct bench *b, int t) {
  char *command = tool_command(b, &b->tools[t]);
  bool wall = b->tools[t].target.wall > 0;
  printf("\n%s: %s\n%-15s %9s %9s %9s %9s %9s%s\n", b->tools[t].name, command,
         "kernel", "CPU s", "CPU x", "RSS MiB", "RSS x", "wall s",
         wall ? "    wall x" : "");
  free(command);
  for (size_t i = 0; i < b->kernel_count; i++) {
    const struct kernel_result *k = &b->kernels[i];
    bool ok = complete(b, k, t);
    printf("%-15s", k->name);
    print_number(median(k, t, MEASURE_CPU), "%.2f", 9, ok);
    print_ratio(ratio(k, t, MEASURE_CPU), 9, ok);
    print_number(median(k, t, MEASURE_RSS) / KIB_PER_MIB, "%.1f", 9, ok);
    print_ratio(ratio(k, t, MEASURE_RSS), 9, ok);
    print_number(median(k, t, MEASURE_WALL), "%.2f", 9, ok);
    if (wall)
      print_ratio(ratio(k, t, MEASURE_WALL), 9, ok);
    printf("%s\n", ok || k->failed[0] ? "" : "  FAILED");
  }
  int n, m, w;
  double cpu = geomean(b, t, MEASURE_CPU, &n),
         rss = geomean(b, t, MEASURE_RSS, &m),
         wall_ratio = geomean(b, t, MEASURE_WALL, &w);
  printf("%-15s %9s", "geomean", "");
  print_ratio(cpu, 9, n > 0);
  printf(" %9s", "");
  print_ratio(rss, 9, m > 0);
  if (wall) {
    printf(" %9s", "");
    print_ratio(wall_ratio, 9, w > 0);
  }
  printf("   (%d kernels)\n", n);
  if (b->tools[t].target.cpu > 0 && n > 0)
    printf("target: geomean CPU ratio <= %gx: %s\n", b->tools[t].target.cpu,
           cpu <= b->tools[t].target.cpu ? "met" : "NOT met");
  if (wall && w > 0)
    printf("target: geomean wall ratio <= %gx: %s\n", b->tools[t].target.wall,
           wall_ratio <= b->tools[t].target.wall ? "met" : "NOT met");
  print_rss_target(b, t);
}

static void print_ratio_pair(double cpu, double rss, bool valid) {
  printf(" ");
  print_ratio(cpu, 8, valid);
  print_ratio(rss, 8, valid);
}

/* A kernel's line of the summary: native's CPU time and RSS, then each
 * tool's CPU and RSS ratios. */
static void print_summary_row(const struct bench *b,
                              const struct kernel_result *k) {
  bool ok = complete(b, k, 0);
  printf("%-15s", k->name);
  print_number(median(k, 0, MEASURE_CPU), "%.3f", 8, ok);
  print_number(median(k, 0, MEASURE_RSS) / KIB_PER_MIB, "%.1f", 8, ok);
  for (int t = 1; t < b->tool_count; t++)
    print_ratio_pair(ratio(k, t, MEASURE_CPU), ratio(k, t, MEASURE_RSS),
                     complete(b, k, t));
  printf("\n");
}

static void print_summary(const struct bench *b) {
  printf("\nsummary: median CPU time (user + sys) and peak RSS, ratios over "
         "native\n%-15s %8s %8s",
         "", "native", "native");
  for (int t = 1; t < b->tool_count; t++)
    printf("  %17.17s", b->tools[t].name);
  printf("\n%-15s %8s %8s", "kernel", "CPU s", "RSS MiB");
  for (int t = 1; t < b->tool_count; t++)
    printf("  %8s %8s", "CPU", "RSS");
  printf("\n");
  for (size_t i = 0; i < b->kernel_count; i++)
    print_summary_row(b, &b->kernels[i]);
  printf("%-15s %8s %8s", "geomean", "", "");
  for (int t = 1; t < b->tool_count; t++) {
    int n;
    double cpu = geomean(b, t, MEASURE_CPU, &n);
    print_ratio_pair(cpu, geomean(b, t, MEASURE_RSS, &n), n > 0);
  }
  printf("\n");
}

void print_results(const struct bench *b) {
  print_native_table(b);
  for (int t = 1; t < b->tool_count; t++)
    print_tool_table(b, t);
  print_summary(b);
}

/* ---- The JSON record ----------------------------------------------------- */

static void add_double(struct json_object *o, const char *key, double v) {
  json_object_object_add(o, key, json_object_new_double(v));
}

static struct json_object *tool_json(const struct bench *b,
                                     const struct kernel_result *k, int t) {
  struct json_object *o = json_object_new_object(),
                     *runs = json_object_new_array();
  for (int i = 0; i < k->done[t]; i++) {
    struct json_object *run = json_object_new_object();
    add_double(run, "wall_seconds", k->runs[t][i].wall);
    add_double(run, "cpu_seconds", k->runs[t][i].cpu);
    json_object_object_add(run, "max_rss_kib",
                           json_object_new_int64(k->runs[t][i].rss_kib));
    json_object_array_add(runs, run);
  }
  json_object_object_add(o, "ok", json_object_new_boolean(complete(b, k, t)));
  json_object_object_add(o, "runs", runs);
  add_double(o, "median_wall_seconds", median(k, t, MEASURE_WALL));
  add_double(o, "median_cpu_seconds", median(k, t, MEASURE_CPU));
  add_double(o, "median_max_rss_kib", median(k, t, MEASURE_RSS));
  if (t > 0 && complete(b, k, t)) {
    add_double(o, "cpu_ratio", ratio(k, t, MEASURE_CPU));
    add_double(o, "rss_ratio", ratio(k, t, MEASURE_RSS));
    add_double(o, "wall_ratio", ratio(k, t, MEASURE_WALL));
    if (b->tools[t].target.rss_factor > 0)
      json_object_object_add(o, "rss_target_met",
                             json_object_new_boolean(rss_target_met(b, k, t)));
  }
  return o;
}

static struct json_object *kernel_json(const struct bench *b,
                                       const struct kernel_result *k) {
  struct json_object *o = json_object_new_object(),
                     *args = json_object_new_array(),
                     *tools = json_object_new_object();
  json_object_object_add(o, "name", json_object_new_string(k->name));
  for (int i = 0; k->args[i]; i++)
    json_object_array_add(args, json_object_new_string(k->args[i]));
  json_object_object_add(o, "arguments", args);
  json_object_object_add(
      o, "checksum", k->checksum ? json_object_new_string(k->checksum) : NULL);
  if (k->instructions >= 0)
    json_object_object_add(o, "instructions",
                           json_object_new_int64(k->instructions));
  if (k->accesses >= 0)
    json_object_object_add(o, "memory_accesses",
                           json_object_new_int64(k->accesses));
  for (int t = 0; t < b->tool_count; t++)
    json_object_object_add(tools, b->tools[t].name, tool_json(b, k, t));
  json_object_object_add(o, "tools", tools);
  return o;
}

static struct json_object *tools_json(const struct bench *b) {
  struct json_object *list = json_object_new_array();
  for (int t = 0; t < b->tool_count; t++) {
    struct json_object *o = json_object_new_object();
    char *command = tool_command(b, &b->tools[t]);
    json_object_object_add(o, "name", json_object_new_string(b->tools[t].name));
    json_object_object_add(o, "command", json_object_new_string(command));
    if (b->tools[t].target.cpu > 0)
      add_double(o, "target_cpu_ratio", b->tools[t].target.cpu);
    if (b->tools[t].target.rss_factor > 0)
      add_double(o, "target_rss_factor", b->tools[t].target.rss_factor);
    if (b->tools[t].target.wall > 0)
      add_double(o, "target_wall_ratio", b->tools[t].target.wall);
    json_object_array_add(list, o);
    free(command);
  }
  return list;
}

static struct json_object *geomean_json(const struct bench *b) {
  struct json_object *all = json_object_new_object();
  for (int t = 1; t < b->tool_count; t++) {
    int n;
    double cpu = geomean(b, t, MEASURE_CPU, &n);
    if (n == 0)
      continue;
    struct json_object *o = json_object_new_object();
    add_double(o, "cpu_ratio", cpu);
    add_double(o, "rss_ratio", geomean(b, t, MEASURE_RSS, &n));
    add_double(o, "wall_ratio", geomean(b, t, MEASURE_WALL, &n));
    json_object_object_add(o, "kernels", json_object_new_int(n));
    json_object_object_add(all, b->tools[t].name, o);
  }
  return all;
}

/* Adds the results to the record doc (which has the date, the command, the
 * machine and the versions). */
void add_results(struct json_object *doc, const struct bench *b) {
  struct json_object *kernels = json_object_new_array();
  json_object_object_add(doc, "format", json_object_new_int(RECORD_FORMAT));
  json_object_object_add(doc, "reps", json_object_new_int(b->reps));
  json_object_object_add(doc, "sizes", json_object_new_string(b->sizes));
  json_object_object_add(doc, "tools", tools_json(b));
  for (size_t i = 0; i < b->kernel_count; i++)
    json_object_array_add(kernels, kernel_json(b, &b->kernels[i]));
  json_object_object_add(doc, "kernels", kernels);
  json_object_object_add(doc, "geomean", geomean_json(b));
}

/* ---- Comparing two records ----------------------------------------------- */

/* A record written by --out; dies when path is not one. */
struct json_object *read_record(const char *path) {
  struct json_object *doc = json_object_from_file(path), *format;
  if (!doc)
    die("%s: cannot read: %s", path, json_util_get_last_err());
  if (!json_object_object_get_ex(doc, "format", &format) ||
      json_object_get_int(format) != RECORD_FORMAT)
    die("%s: not a pisa-bench record of format %d", path, RECORD_FORMAT);
  return doc;
}

static struct json_object *find_kernel(struct json_object *doc,
                                       const char *name) {
  struct json_object *kernels = json_at(doc, "kernels");
  for (size_t i = 0; i < json_object_array_length(kernels); i++) {
    struct json_object *k = json_object_array_get_idx(kernels, i);
    if (!strcmp(json_object_get_string(json_at(k, "name")), name))
      return k;
  }
  return NULL;
}

/* What a comparison row shows: native's seconds and MiB, or a tool's ratios. */
struct compared {
  const char *keys[2]; /* CPU, RSS */
  double rss_scale;
  bool ratios;
};

static const struct compared NativeValues = {
    {"median_cpu_seconds", "median_max_rss_kib"}, KIB_PER_MIB, false};
static const struct compared ToolRatios = {{"cpu_ratio", "rss_ratio"}, 1, true};

/* v[0], v[1]: the old CPU and RSS values of a tool on one kernel; v[2],
 * v[3]: the new ones.  False when a record lacks one. */
static bool compare_kernel(struct json_object *old_k, struct json_object *k,
                           const char *tool, const struct compared *what,
                           double v[4]) {
  for (int i = 0; i < 4; i++) {
    char *path = xasprintf("tools/%s/%s", tool, what->keys[i % 2]);
    struct json_object *value = json_at(i < 2 ? old_k : k, path);
    free(path);
    if (!value)
      return false;
    v[i] = json_object_get_double(value) / (i % 2 ? what->rss_scale : 1);
  }
  return true;
}

static void print_compared(double v, const struct compared *what, bool rss) {
  char buf[32];
  if (what->ratios)
    format_ratio(v, buf);
  else
    snprintf(buf, sizeof buf, rss ? "%.1f" : "%.3f", v);
  printf(" %9s", buf);
}

static void print_change(const char *tool, const char *kernel,
                         const struct compared *what, const double v[4],
                         const char *note) {
  printf("%-15s %-15s", tool, kernel);
  for (int m = 0; m < 2; m++) {
    print_compared(v[m], what, m == 1);
    print_compared(v[m + 2], what, m == 1);
    printf(" %7.2fx", v[m + 2] / v[m]);
  }
  printf("%s\n", note);
}

/* Whether a kernel ran with the same arguments in both records. */
static bool same_sizes(struct json_object *old_k, struct json_object *k) {
  return !strcmp(json_object_to_json_string(json_at(old_k, "arguments")),
                 json_object_to_json_string(json_at(k, "arguments")));
}

/* The kernels of doc that old_doc has too, for one tool; the geomean row is
 * over the kernels both records completed, so it compares like with like.
 * Returns their number. */
static int compare_tool(struct json_object *old_doc, struct json_object *doc,
                        const char *tool) {
  const struct compared *what =
      strcmp(tool, "native") ? &ToolRatios : &NativeValues;
  struct json_object *kernels = json_at(doc, "kernels");
  double logs[4] = {0, 0, 0, 0}, v[4];
  int n = 0;
  for (size_t i = 0; i < json_object_array_length(kernels); i++) {
    struct json_object *k = json_object_array_get_idx(kernels, i);
    const char *name = json_object_get_string(json_at(k, "name"));
    struct json_object *old_k = find_kernel(old_doc, name);
    if (!old_k || !compare_kernel(old_k, k, tool, what, v))
      continue;
    print_change(tool, name, what, v,
                 same_sizes(old_k, k) ? "" : "  (other sizes)");
    for (int j = 0; j < 4; j++)
      logs[j] += log(v[j]);
    n++;
  }
  for (int j = 0; j < 4 && n > 0; j++)
    v[j] = exp(logs[j] / n);
  if (n > 0)
    print_change(tool, "geomean", what, v, "");
  return n;
}

void print_comparison(struct json_object *old_doc, struct json_object *doc,
                      const char *old_name) {
  struct json_object *tools = json_at(doc, "tools");
  printf("\nchange against %s (native: seconds and MiB; tools: ratios over "
         "native)\n%-15s %-15s %9s %9s %8s %9s %9s %8s\n",
         old_name, "tool", "kernel", "CPU old", "CPU new", "new/old", "RSS old",
         "RSS new", "new/old");
  int rows = 0;
  for (size_t t = 0; t < json_object_array_length(tools); t++) {
    struct json_object *tool = json_object_array_get_idx(tools, t);
    rows += compare_tool(old_doc, doc,
                         json_object_get_string(json_at(tool, "name")));
  }
  if (rows == 0)
    printf("(the records have no kernel and tool in common)\n");
}
