/* cmd_show.c: `pisa-char show FILE`, a summary of one result document for
 * the terminal or, with --json, for scripts: both are printed from the one
 * view of the document that docview.h builds, so they never disagree. */
#include "cmdline.h"
#include "commands.h"
#include "docset.h"
#include "docview.h"
#include "jsonpath.h"
#include "numbers.h"
#include "pisa/vocabulary.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char show [--top N] FILE\n"
    "       pisa-char show --json [--top N] FILE\n"
    "\n"
    "Prints a summary of one pisa-char result document: the program and how\n"
    "it ended, the instruction count and mix, bytes loaded and stored, the\n"
    "footprint, memory entropy, spatial locality, reuse distances, miss\n"
    "ratios, access classes, branch predictability, ILP, DLP and BBLP,\n"
    "OpenMP activity and external calls; then the threads, the top\n"
    "functions by instructions and by memory accesses with their source\n"
    "location, the regions with their time and bandwidth, the counter-mode\n"
    "intervals, the MPI ranks and job. A metric the document does not hold\n"
    "is shown as n/a; names are never shortened.\n"
    "\n"
    "  --top N        entries of each list (default 5, 0 for none)\n"
    "  --loops        also the top loops by instructions (deep mode), with\n"
    "                 their footprint, entropy of byte addresses, ILP (first\n"
    "                 window), function and file:line range\n"
    "  --lines        also the top source lines by instructions (deep mode)\n"
    "  --objects      also the top data objects by accesses (deep mode run\n"
    "                 with --objects): kind, name and allocation site or\n"
    "                 declaration, footprint, size and 32 KiB miss ratio\n"
    "  --intervals    also every interval of deep mode's time series: its\n"
    "                 instructions, new and total 64-byte lines, miss ratio\n"
    "                 at the first cache, entropy, ILP and phase\n"
    "  --phases       also the phases of deep mode, with their share and\n"
    "                 metrics\n"
    "  --format FMT   one of {format} (default text)\n"
    "  --json         the same as --format json: the summary as one JSON\n"
    "                 object with stable keys (docs/pisa-char.md), absent\n"
    "                 metrics as null\n"
    "  -h, --help     show this help\n"
    "\n"
    "Exit status: 0 on success, 2 on bad usage or an unreadable, malformed\n"
    "or invalid document.\n";

#define LABEL_WIDTH 18

enum {
  OPT_TOP = 't',
  OPT_FORMAT = 256,
  OPT_JSON,
  OPT_LOOPS,
  OPT_LINES,
  OPT_OBJECTS,
  OPT_INTERVALS,
  OPT_PHASES
};

static const struct option ShowOptions[] = {
    {"top", required_argument, NULL, OPT_TOP},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"json", no_argument, NULL, OPT_JSON},
    {"loops", no_argument, NULL, OPT_LOOPS},
    {"lines", no_argument, NULL, OPT_LINES},
    {"objects", no_argument, NULL, OPT_OBJECTS},
    {"intervals", no_argument, NULL, OPT_INTERVALS},
    {"phases", no_argument, NULL, OPT_PHASES},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

enum format { FORMAT_TEXT, FORMAT_JSON };
static const char *const FormatNames[] = {"text", "json"};
static const struct name_table Formats = NAME_TABLE_INIT(FormatNames);
static const struct cmdline_values ShowValues[] = {
    {"format", &Formats},
    {NULL, NULL},
};

const struct command_line show_line = {
    .name = "show",
    .usage = usage_text,
    .short_options = ":h",
    .options = ShowOptions,
    .values = ShowValues,
};

/* ---- Reading the view ---------------------------------------------------- */

static double num(json_object *o, const char *path) {
  return json_count_at(o, path);
}

static const char *str(json_object *o, const char *path) {
  return json_object_get_string(json_at(o, path));
}

static int has(json_object *o, const char *path) {
  json_object *v = json_at(o, path);
  return v && !json_object_is_type(v, json_type_null);
}

static size_t length(json_object *o, const char *path) {
  json_object *a = json_at(o, path);
  return a ? json_object_array_length(a) : 0;
}

static json_object *item(json_object *o, const char *path, size_t i) {
  return json_object_array_get_idx(json_at(o, path), i);
}

static void print_label(const char *label) {
  printf("  %-*s", LABEL_WIDTH, label);
}

static const char *count_text(char *buf, size_t n, json_object *o,
                              const char *path) {
  return format_count(buf, n, num(o, path));
}

static const char *bytes_text(char *buf, size_t n, json_object *o,
                              const char *path) {
  return format_bytes(buf, n, num(o, path));
}

/* The count or byte size at `path`, or "n/a" when the view has none. */
static const char *count_or_na(char *buf, size_t n, json_object *o,
                               const char *path) {
  return has(o, path) ? count_text(buf, n, o, path) : "n/a";
}

static const char *bytes_or_na(char *buf, size_t n, json_object *o,
                               const char *path) {
  return has(o, path) ? bytes_text(buf, n, o, path) : "n/a";
}

/* ---- The run and the totals ---------------------------------------------- */

static void show_run(json_object *v) {
  json_object *p = json_at(v, "program"), *args = json_at(p, "args");
  printf("program   %s", str(p, "path"));
  for (size_t i = 0; args && i < json_object_array_length(args); i++)
    printf(" %s", json_object_get_string(json_object_array_get_idx(args, i)));
  printf("\nstatus    exit %d", (int)num(p, "exit_status"));
  if (has(p, "signal"))
    printf(" (signal %d)", (int)num(p, "signal"));
  printf(", %s, %s mode, %.2f s wall\n",
         json_object_get_boolean(json_at(p, "complete"))
             ? "complete"
             : "INCOMPLETE (the run was cut short)",
         str(p, "mode"), num(p, "wall_seconds"));
  printf("document  %s\n", str(v, "document"));
  if (has(v, "sampling"))
    printf("sampling  %s\n", str(v, "sampling"));
}

static void show_mix(json_object *t) {
  json_object *mix = json_at(t, "mix_percent");
  size_t i = 0;
  json_object_object_foreach(mix, name, share) {
    if (i % 5 == 0)
      print_label(i == 0 ? "mix (% of instr.)" : "");
    printf(" %s %.1f%%", name, json_object_get_double(share));
    if (i % 5 == 4 || i + 1 == (size_t)json_object_object_length(mix))
      putchar('\n');
    i++;
  }
}

static void show_bytes(json_object *t) {
  char a[32], b[32];
  print_label("bytes");
  printf(" loaded %s, stored %s\n", bytes_text(a, sizeof a, t, "bytes_loaded"),
         bytes_text(b, sizeof b, t, "bytes_stored"));
  print_label("memory accesses");
  printf(" %s\n", count_text(a, sizeof a, t, "memory_accesses"));
  print_label("footprint");
  if (has(t, "footprint_bytes"))
    printf(" %s\n", bytes_text(a, sizeof a, t, "footprint_bytes"));
  else
    puts(" n/a");
}

static void show_entropy(json_object *t) {
  print_label("memory entropy");
  if (has(t, "entropy/bytes"))
    printf(" %.2f bits (byte addresses)", num(t, "entropy/bytes"));
  else
    printf(" n/a");
  if (has(t, "entropy/lines_64"))
    printf(", %.2f bits with 6 bits cut (64 B lines)",
           num(t, "entropy/lines_64"));
  putchar('\n');
  print_label("spatial locality");
  if (has(t, "spatial_locality"))
    printf(" SLQ %.3f, strict %.3f\n", num(t, "spatial_locality/score"),
           num(t, "spatial_locality/strict"));
  else
    puts(" n/a");
}

/* LABEL and each entry of the list at `key`, " n/a" when it is empty. */
static void show_list(json_object *t, const char *key, const char *label,
                      void (*show_entry)(json_object *e, const char *sep)) {
  size_t n = length(t, key);
  print_label(label);
  if (n == 0)
    printf(" n/a");
  for (size_t i = 0; i < n; i++)
    show_entry(item(t, key, i), i ? "," : "");
  putchar('\n');
}

/* LABEL and each entry of the list at `key` on a line of its own, " n/a"
 * when it is empty and `empty` is set, else nothing. */
static void show_rows(json_object *t, const char *key, const char *label,
                      int empty, void (*show_entry)(json_object *e)) {
  size_t n = length(t, key);
  if (n == 0 && empty) {
    print_label(label);
    puts(" n/a");
  }
  for (size_t i = 0; i < n; i++) {
    print_label(i ? "" : label);
    show_entry(item(t, key, i));
    putchar('\n');
  }
}

static void show_reuse(json_object *e) {
  char cold[32], reuses[32];
  printf(" %3.0f B lines: %s cold, %s reuses", num(e, "line_bytes"),
         count_text(cold, sizeof cold, e, "cold"),
         count_text(reuses, sizeof reuses, e, "reuses"));
  if (has(e, "median_from"))
    printf(", median distance in [%.0f, %.0f) lines", num(e, "median_from"),
           num(e, "median_to"));
}

static void show_miss_ratio(json_object *e, const char *sep) {
  char size[32];
  printf("%s %s/%.0f B %.2f%%", sep,
         bytes_text(size, sizeof size, e, "cache_bytes"), num(e, "line_bytes"),
         100 * num(e, "ratio"));
}

static void show_classes(json_object *t) {
  static const char *const Classes[] = PISA_ACCESS_CLASS_SHOWN;
  char n[32];
  print_label("access classes");
  if (!has(t, "access_classes")) {
    puts(" n/a");
    return;
  }
  json_object *c = json_at(t, "access_classes");
  for (size_t i = 0; i < PISA_ACCESS_CLASS_COUNT; i++) {
    json_object *k = json_at(c, Classes[i]);
    printf("%s %s %s", i ? "," : "", Classes[i],
           count_text(n, sizeof n, k, "accesses"));
  }
  putchar('\n');
  print_label("");
  printf(" constant fraction %.3f, %.3f new B per access\n",
         num(c, "constant_fraction"), num(c, "footprint_growth"));
}

static void show_history(json_object *e, const char *sep) {
  printf("%s %.0f: %.2f%%", sep, num(e, "history"), 100 * num(e, "miss_rate"));
}

static void show_branch(json_object *t) {
  char n[32];
  print_label("branches");
  if (!has(t, "branch")) {
    puts(" n/a");
    return;
  }
  json_object *b = json_at(t, "branch");
  printf(" %s executed, entropy %.3f\n", count_text(n, sizeof n, b, "executed"),
         num(b, "entropy"));
  show_list(b, "global", "  miss, global hist", show_history);
  show_list(b, "local", "  miss, local hist", show_history);
}

/* The ILP of one schedule (instruction window). */
static void show_ilp(json_object *e, const char *sep) {
  if (num(e, "window") == 0)
    printf("%s unlimited window %.2f", sep, num(e, "ilp"));
  else
    printf("%s window %.0f %.2f", sep, num(e, "window"), num(e, "ilp"));
}

static void show_parallelism(json_object *t) {
  static const char *const Names[][2] = {
      {"DLP1", "dlp1"},   {"DLP2", "dlp2"},
      {"BBLP", "bblp"},   {"smart BBLP", "bblp_smart"},
      {"PBBLP", "pbblp"},
  };
  int shown = 0;
  show_list(t, "ilp", "ILP", show_ilp); /* in the document's order */
  print_label("DLP, BBLP, PBBLP");
  for (size_t i = 0; i < sizeof Names / sizeof *Names; i++)
    if (has(t, Names[i][1]))
      printf("%s %s %.2f", shown++ ? "," : "", Names[i][0],
             num(t, Names[i][1]));
  puts(shown ? "" : " n/a");
}

static void show_external(json_object *e) {
  char n[32];
  printf(" %15s %5.1f%%  %s", count_text(n, sizeof n, e, "calls"),
         100 * num(e, "share"), str(e, "name"));
}

/* OpenMP activity and external calls: present only when there were any. */
static void show_calls(json_object *t) {
  char n[32];
  size_t i = 0;
  if (has(t, "openmp")) {
    print_label("OpenMP calls");
    json_object_object_foreach(json_at(t, "openmp"), kind, c) {
      printf("%s %s %s", i++ ? "," : "", kind,
             format_count(n, sizeof n, json_object_get_double(c)));
    }
    putchar('\n');
  }
  show_rows(t, "external_calls", "external calls", 0, show_external);
}

static void show_totals(json_object *v) {
  char buf[32];
  json_object *t = json_at(v, "totals");
  puts("\ntotals");
  print_label("instructions");
  printf(" %s\n", count_text(buf, sizeof buf, t, "instructions"));
  show_mix(t);
  show_bytes(t);
  show_entropy(t);
  show_list(t, "miss_ratio", "LRU miss ratio", show_miss_ratio);
  show_parallelism(t);
  show_rows(t, "reuse_distance", "reuse distance", 1, show_reuse);
  show_classes(t);
  show_branch(t);
  show_calls(t);
}

static void show_counter(json_object *v) {
  json_object *c = json_at(v, "counter");
  char n[32];
  if (!has(v, "counter"))
    return;
  printf("\ncounter mode\n");
  print_label("sampling");
  printf(" every %.0f executions of a region", num(c, "sample_every"));
  if (has(c, "interval_ms"))
    printf(", snapshots every %.0f ms", num(c, "interval_ms"));
  printf(", %s counter updates\n", count_text(n, sizeof n, c, "updates"));
  for (size_t i = 0; i < length(c, "hw_counters"); i++) {
    json_object *h = item(c, "hw_counters", i);
    print_label(i ? "" : "hardware counters");
    printf(" %s %s\n", str(h, "name"),
           json_object_get_boolean(json_at(h, "available")) ? "measured"
                                                            : str(h, "reason"));
  }
}

/* ---- Lists --------------------------------------------------------------- */

/* "TITLE (shown of all)" and the column heads, or nothing for an empty list. */
static int list_heading(json_object *v, const char *list, const char *count,
                        const char *title, const char *heads) {
  size_t shown = length(v, list), all = (size_t)num(v, count);
  if (shown == 0)
    return 0;
  printf("\n%s", title);
  if (all > shown)
    printf(" (%zu of %zu)", shown, all);
  printf("\n%s\n", heads);
  return 1;
}

static void show_threads(json_object *v) {
  char n[32], a[32], f[32];
  if (!list_heading(v, "threads", "counts/threads", "threads",
                    "     instructions  share        accesses   footprint  "
                    "rank thread"))
    return;
  for (size_t i = 0; i < length(v, "threads"); i++) {
    json_object *e = item(v, "threads", i);
    printf("  %15s %5.1f%% %15s %11s %5.0f %6.0f\n",
           count_text(n, sizeof n, e, "instructions"), 100 * num(e, "share"),
           count_text(a, sizeof a, e, "memory_accesses"),
           bytes_or_na(f, sizeof f, e, "footprint_bytes"), num(e, "rank"),
           num(e, "thread"));
  }
}

/* FILE:LINE with the file's last component, or why there is none. */
static void format_location(char *buf, size_t n, json_object *e) {
  const char *path = str(e, "file");
  if (!has(e, "file")) {
    snprintf(buf, n, "(no debug info)");
    return;
  }
  const char *slash = strrchr(path, '/');
  if (has(e, "line"))
    snprintf(buf, n, "%s:%.0f", slash ? slash + 1 : path, num(e, "line"));
  else
    snprintf(buf, n, "%s", slash ? slash + 1 : path);
}

static void show_top(json_object *v, const char *key, const char *title) {
  size_t n = length(v, key);
  printf("\ntop functions by %s\n  %15s %6s  %-32s %s\n", title, title, "share",
         "function", "location");
  for (size_t i = 0; i < n; i++) {
    json_object *e = item(v, key, i);
    char count[32], where[4096];
    format_location(where, sizeof where, e);
    printf("  %15s %5.1f%%  %-32s %s\n",
           count_text(count, sizeof count, e, "value"), 100 * num(e, "share"),
           str(e, "name"), where);
  }
  if (num(v, "counts/functions") == 0)
    puts("  (no instrumented function ran)");
}

/* A number of the view with `digits` decimals, or n/a. */
static const char *fixed_or_na(char *buf, size_t n, json_object *e,
                               const char *key, int digits) {
  if (!has(e, key))
    return "n/a";
  snprintf(buf, n, "%.*f", digits, num(e, key));
  return buf;
}

/* FILE:FIRST-LAST of a loop, with the file's last component. */
static void format_range(char *buf, size_t n, json_object *e) {
  format_location(buf, n, e);
  size_t len = strlen(buf);
  if (has(e, "last_line") && num(e, "last_line") != num(e, "line"))
    snprintf(buf + len, n - len, "-%.0f", num(e, "last_line"));
}

static void show_loops(json_object *v) {
  char n[32], it[32], a[32], f[32], h[32], p[32], where[4096];
  if (!list_heading(v, "loops", "counts/loops", "top loops by instructions",
                    "     instructions  share      iterations        accesses "
                    "  footprint entropy    ILP depth  function  location"))
    return;
  for (size_t i = 0; i < length(v, "loops"); i++) {
    json_object *e = item(v, "loops", i);
    format_range(where, sizeof where, e);
    printf("  %15s %5.1f%% %15s %15s %11s %7s %6s %5.0f  %s%s%s  %s\n",
           count_text(n, sizeof n, e, "instructions"), 100 * num(e, "share"),
           count_text(it, sizeof it, e, "iterations"),
           count_text(a, sizeof a, e, "memory_accesses"),
           bytes_or_na(f, sizeof f, e, "footprint_bytes"),
           fixed_or_na(h, sizeof h, e, "entropy", 2),
           fixed_or_na(p, sizeof p, e, "ilp", 2), num(e, "depth"),
           str(e, "function"), has(e, "inlined_into") ? " in " : "",
           has(e, "inlined_into") ? str(e, "inlined_into") : "", where);
  }
}

static void show_lines(json_object *v) {
  char n[32], a[32], where[4096];
  if (!list_heading(v, "lines", "counts/lines",
                    "top source lines by instructions",
                    "     instructions  share        accesses  line"))
    return;
  for (size_t i = 0; i < length(v, "lines"); i++) {
    json_object *e = item(v, "lines", i);
    format_location(where, sizeof where, e);
    printf("  %15s %5.1f%% %15s  %s\n",
           count_text(n, sizeof n, e, "instructions"), 100 * num(e, "share"),
           count_text(a, sizeof a, e, "accesses"), where);
  }
}

/* Where an object comes from: its site or declaration, its thread. */
static void format_origin(char *buf, size_t n, json_object *e) {
  if (has(e, "thread"))
    snprintf(buf, n, "thread %.0f", num(e, "thread"));
  else if (has(e, "file"))
    format_location(buf, n, e);
  else
    snprintf(buf, n, "-");
}

static void show_objects(json_object *v) {
  char a[32], f[32], s[32], m[32], where[4096];
  if (!list_heading(v, "objects", "counts/objects", "top objects by accesses",
                    "         accesses  share   footprint        size  "
                    "miss32K  kind    name  origin"))
    return;
  for (size_t i = 0; i < length(v, "objects"); i++) {
    json_object *e = item(v, "objects", i);
    format_origin(where, sizeof where, e);
    snprintf(m, sizeof m, "%.3f", num(e, "miss_ratio"));
    printf("  %15s %5.1f%% %11s %11s  %7s  %-7s %s  %s\n",
           count_text(a, sizeof a, e, "accesses"), 100 * num(e, "share"),
           bytes_or_na(f, sizeof f, e, "footprint_bytes"),
           bytes_or_na(s, sizeof s, e,
                       has(e, "peak_live_bytes") ? "peak_live_bytes" : "size"),
           has(e, "miss_ratio") ? m : "n/a", str(e, "kind"), str(e, "name"),
           where);
  }
}

static void show_regions(json_object *v) {
  char t[32], x[32], n[32], r[32], w[32];
  if (!list_heading(v, "regions", "counts/regions", "regions by time",
                    "      seconds  share  executions    instructions"
                    "    read/s   write/s  name"))
    return;
  for (size_t i = 0; i < length(v, "regions"); i++) {
    json_object *e = item(v, "regions", i);
    snprintf(t, sizeof t, "%.6f", num(e, "seconds"));
    printf("  %11s %5.1f%% %11s %15s %9s %9s  %s\n",
           has(e, "seconds") ? t : "n/a", 100 * num(e, "share_of_time"),
           count_or_na(x, sizeof x, e, "executions"),
           count_or_na(n, sizeof n, e, "instructions"),
           bytes_or_na(r, sizeof r, e, "read_bytes_per_second"),
           bytes_or_na(w, sizeof w, e, "write_bytes_per_second"),
           str(e, "name"));
  }
}

static void show_spread(json_object *s, const char *label) {
  char lo[32], mean[32], hi[32];
  print_label(label);
  printf(" min %s/s, mean %s/s, max %s/s\n",
         bytes_text(lo, sizeof lo, s, "min"),
         bytes_text(mean, sizeof mean, s, "mean"),
         bytes_text(hi, sizeof hi, s, "max"));
}

static void show_intervals(json_object *v) {
  json_object *iv = json_at(v, "intervals");
  if (!has(v, "intervals"))
    return;
  printf("\nintervals\n");
  print_label("snapshots");
  printf(" %.0f of %.0f thread%s, %.3f s to %.3f s\n", num(iv, "snapshots"),
         num(iv, "threads"), num(iv, "threads") == 1 ? "" : "s",
         num(iv, "start"), num(iv, "end"));
  show_spread(json_at(iv, "read_bytes_per_second"), "read bandwidth");
  show_spread(json_at(iv, "write_bytes_per_second"), "write bandwidth");
}

static void show_interval_series(json_object *v) {
  char at[32], n[32], nl[32], l[32], m[32], h[32], p[32], ph[32];
  if (!length(v, "interval_series"))
    return;
  printf("\nintervals (deep mode, every one)\n"
         "  thread index  first instruction instructions new lines      lines"
         " miss 1st entropy    ILP phase\n");
  for (size_t i = 0; i < length(v, "interval_series"); i++) {
    json_object *e = item(v, "interval_series", i);
    printf("  %6.0f %5.0f %18s %12s %9s %10s %8s %7s %6s %5s\n",
           num(e, "thread"), num(e, "index"),
           count_text(at, sizeof at, e, "first_instruction"),
           count_text(n, sizeof n, e, "instructions"),
           count_or_na(nl, sizeof nl, e, "new_lines"),
           count_or_na(l, sizeof l, e, "lines"),
           fixed_or_na(m, sizeof m, e, "miss_ratio", 4),
           fixed_or_na(h, sizeof h, e, "entropy", 2),
           fixed_or_na(p, sizeof p, e, "ilp", 2),
           fixed_or_na(ph, sizeof ph, e, "phase", 0));
  }
}

static void show_phases(json_object *v) {
  char n[32], at[32], nl[32], m[32], h[32], p[32];
  if (!length(v, "phases"))
    return;
  printf("\nphases (deep mode)\n"
         "  phase  share     instructions intervals  first instruction"
         " new lines miss 1st entropy    ILP\n");
  for (size_t i = 0; i < length(v, "phases"); i++) {
    json_object *e = item(v, "phases", i);
    printf("  %5.0f %5.1f%% %16s %9.0f %18s %9s %8s %7s %6s\n", num(e, "phase"),
           100 * num(e, "share"), count_text(n, sizeof n, e, "instructions"),
           num(e, "intervals"),
           count_text(at, sizeof at, e, "first_instruction"),
           count_or_na(nl, sizeof nl, e, "new_lines"),
           fixed_or_na(m, sizeof m, e, "miss_ratio", 4),
           fixed_or_na(h, sizeof h, e, "entropy", 2),
           fixed_or_na(p, sizeof p, e, "ilp", 2));
  }
}

static void show_ranks(json_object *v) {
  char n[32], c[32], s[32], r[32];
  if (!list_heading(v, "ranks", "counts/ranks", "ranks",
                    "     instructions  share   MPI calls        sent    "
                    "received  rank exit"))
    return;
  for (size_t i = 0; i < length(v, "ranks"); i++) {
    json_object *e = item(v, "ranks", i);
    printf("  %15s %5.1f%% %11s %11s %11s %5.0f %4.0f\n",
           count_text(n, sizeof n, e, "instructions"), 100 * num(e, "share"),
           count_or_na(c, sizeof c, e, "mpi_calls"),
           bytes_text(s, sizeof s, e, "bytes_sent"),
           bytes_text(r, sizeof r, e, "bytes_received"), num(e, "rank"),
           num(e, "exit_status"));
  }
}

static void show_mpi(json_object *v) {
  json_object *m = json_at(v, "mpi");
  char n[32], b[32];
  if (!has(v, "mpi"))
    return;
  printf("\nMPI job\n");
  print_label("ranks");
  printf(" %.0f, %zu failed\n", num(m, "size"), length(m, "failed_ranks"));
  print_label("point to point");
  printf(" %s messages, %s\n", count_text(n, sizeof n, m, "messages"),
         bytes_text(b, sizeof b, m, "bytes"));
  print_label("collective calls");
  printf(" %s\n", count_text(n, sizeof n, m, "collective_calls"));
}

static void show_text(json_object *v, long top) {
  show_run(v);
  show_totals(v);
  show_counter(v);
  show_threads(v);
  if (top > 0) {
    show_top(v, "top_functions/by_instructions", "instructions");
    show_top(v, "top_functions/by_accesses", "accesses");
  }
  show_loops(v);
  show_lines(v);
  show_objects(v);
  show_regions(v);
  show_intervals(v);
  show_interval_series(v);
  show_phases(v);
  show_ranks(v);
  show_mpi(v);
}

/* ---- The command --------------------------------------------------------- */

struct options {
  long top;
  enum format format;
  unsigned lists; /* enum docview_list */
};

static int take_option(int opt, char *arg, void *ctx) {
  struct options *o = ctx;
  size_t format;
  int status = 0;
  if (opt == OPT_JSON)
    o->format = FORMAT_JSON;
  if (opt == OPT_LOOPS)
    o->lists |= DOCVIEW_LOOPS;
  if (opt == OPT_LINES)
    o->lists |= DOCVIEW_LINES;
  if (opt == OPT_OBJECTS)
    o->lists |= DOCVIEW_OBJECTS;
  if (opt == OPT_INTERVALS)
    o->lists |= DOCVIEW_INTERVALS;
  if (opt == OPT_PHASES)
    o->lists |= DOCVIEW_PHASES;
  if (opt == OPT_FORMAT &&
      !(status = cmdline_choose(&show_line, "format", arg, &format)))
    o->format = (enum format)format;
  if (opt != OPT_TOP)
    return status;
  if (parse_long(arg, 0, 1000000, &o->top))
    return usage_error(&show_line, "--top wants a count >= 0, not '%s'", arg);
  return 0;
}

int cmd_show(int argc, char **argv) {
  struct options o = {.top = 5, .format = FORMAT_TEXT};
  int status = cmdline_parse(&show_line, argc, argv, take_option, &o);
  if (status != CMDLINE_PARSED)
    return status;
  if (argc - optind != 1)
    return usage_error(&show_line, "expected one FILE");
  struct pisa_docset set;
  if (docset_load(&set, argv + optind, 1))
    return 2;
  if (set.count != 1) {
    docset_free(&set);
    return usage_error(&show_line, "%s holds several documents; show one FILE",
                       argv[optind]);
  }
  json_object *view =
      docview_build(set.docs[0].root, set.docs[0].path, o.top, o.lists);
  if (o.format == FORMAT_JSON)
    puts(json_object_to_json_string_ext(
        view, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  else
    show_text(view, o.top);
  json_object_put(view);
  docset_free(&set);
  return 0;
}
