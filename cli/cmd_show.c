/* cmd_show.c: `pisa-char show FILE`, a terminal summary of one result
 * document: the run, the headline metrics of the whole program and the
 * functions that execute the most instructions and memory accesses. */
#include "cmdline.h"
#include "commands.h"
#include "docmetrics.h"
#include "docset.h"
#include "jsonpath.h"
#include "numbers.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: pisa-char show [--top N] FILE\n"
    "\n"
    "Prints a summary of one pisa-char result document: the program and how\n"
    "it ended, the instruction count and mix, bytes loaded and stored, the\n"
    "footprint, memory entropy, spatial locality, miss ratios, and the top\n"
    "functions by instructions and by memory accesses with their source\n"
    "location. A metric the document does not hold is shown as n/a.\n"
    "\n"
    "  --top N     functions in each top list (default 5, 0 for none)\n"
    "  -h, --help  show this help\n"
    "\n"
    "Exit status: 0 on success, 2 on bad usage or an unreadable, malformed\n"
    "or invalid document.\n";

#define LABEL_WIDTH 18

static void print_label(const char *label) {
  printf("  %-*s", LABEL_WIDTH, label);
}

static void show_run(const struct pisa_doc *doc) {
  json_object *root = doc->root, *args = json_at(root, "program/args");
  printf("program   %s", json_object_get_string(json_at(root, "program/path")));
  for (size_t i = 0; i < json_object_array_length(args); i++)
    printf(" %s", json_object_get_string(json_object_array_get_idx(args, i)));
  double signal;
  printf("\nstatus    exit %d",
         (int)json_count_at(root, "program/exit_status"));
  if (json_number_at(root, "program/signal", &signal))
    printf(" (signal %d)", (int)signal);
  printf(", %s, %s mode, %.2f s wall\n",
         json_object_get_boolean(json_at(root, "complete"))
             ? "complete"
             : "INCOMPLETE (the run was cut short)",
         json_object_get_string(json_at(root, "mode")),
         json_count_at(root, "program/wall_seconds"));
  printf("document  %s\n", doc->path);
  char note[256];
  if (metrics_sampling_note(root, note, sizeof note))
    printf("sampling  %s\n", note);
}

static void show_mix(json_object *totals, double instructions) {
  for (size_t i = 0; i < PISA_CAT_COUNT; i++) {
    if (i % 5 == 0)
      print_label(i == 0 ? "mix (% of instr.)" : "");
    double n = json_count_at(totals, metrics_category_path(i));
    printf(" %s %.1f%%", metrics_category_name(i),
           instructions > 0 ? 100 * n / instructions : 0.0);
    if (i % 5 == 4 || i + 1 == PISA_CAT_COUNT)
      putchar('\n');
  }
}

static void show_bytes(json_object *totals) {
  char a[32], b[32], c[32];
  print_label("bytes");
  printf(" loaded %s, stored %s\n",
         format_bytes(a, sizeof a,
                      json_count_at(totals, "instruction_mix/bytes_loaded")),
         format_bytes(b, sizeof b,
                      json_count_at(totals, "instruction_mix/bytes_stored")));
  print_label("memory accesses");
  printf(" %s\n", format_count(c, sizeof c, metrics_accesses(totals)));
  double footprint;
  print_label("footprint");
  if (json_number_at(totals, "footprint/bytes", &footprint))
    printf(" %s\n", format_bytes(a, sizeof a, footprint));
  else
    puts(" n/a");
}

static void show_entropy(json_object *totals) {
  double h0, h6;
  print_label("memory entropy");
  if (metrics_entropy(totals, 0, &h0))
    printf(" %.2f bits (byte addresses)", h0);
  else
    printf(" n/a");
  if (metrics_entropy(totals, 6, &h6))
    printf(", %.2f bits with 6 bits cut (64 B lines)", h6);
  putchar('\n');
}

static void show_locality(json_object *totals) {
  double slq, strict;
  print_label("spatial locality");
  if (json_number_at(totals, "spatial_locality/score", &slq) &&
      json_number_at(totals, "spatial_locality/score_strict", &strict))
    printf(" SLQ %.3f, strict %.3f\n", slq, strict);
  else
    puts(" n/a");
}

/* LABEL and each entry of the array at `key`, " n/a" when there is none. */
static void show_list(json_object *totals, const char *key, const char *label,
                      void (*show_entry)(json_object *e, const char *sep)) {
  json_object *all = json_at(totals, key);
  size_t n = all ? json_object_array_length(all) : 0;
  print_label(label);
  if (n == 0)
    printf(" n/a");
  for (size_t i = 0; i < n; i++)
    show_entry(json_object_array_get_idx(all, i), i ? "," : "");
  putchar('\n');
}

static void show_miss_ratio(json_object *e, const char *sep) {
  char size[32];
  printf("%s %s/%.0f B %.2f%%", sep,
         format_bytes(size, sizeof size, json_count_at(e, "cache_bytes")),
         json_count_at(e, "line_bytes"), 100 * json_count_at(e, "ratio"));
}

/* The ILP of one schedule (instruction window). */
static void show_ilp(json_object *e, const char *sep) {
  double window = json_count_at(e, "window");
  if (window == 0)
    printf("%s unlimited window %.2f", sep, json_count_at(e, "ilp"));
  else
    printf("%s window %.0f %.2f", sep, window, json_count_at(e, "ilp"));
}

static void show_parallelism(json_object *totals) {
  static const char *const names[][2] = {
      {"DLP1", "dlp/dlp1"},    {"DLP2", "dlp/dlp2"},
      {"BBLP", "bblp/bblp"},   {"smart BBLP", "bblp/bblp_smart"},
      {"PBBLP", "bblp/pbblp"},
  };
  int shown = 0;
  double v;
  show_list(totals, "ilp", "ILP", show_ilp); /* in the document's order */
  print_label("DLP, BBLP, PBBLP");
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (json_number_at(totals, names[i][1], &v))
      printf("%s %s %.2f", shown++ ? "," : "", names[i][0], v);
  puts(shown ? "" : " n/a");
}

static void show_totals(json_object *totals) {
  char buf[32];
  double instructions = json_count_at(totals, "instructions");
  puts("\ntotals");
  print_label("instructions");
  printf(" %s\n", format_count(buf, sizeof buf, instructions));
  show_mix(totals, instructions);
  show_bytes(totals);
  show_entropy(totals);
  show_locality(totals);
  show_list(totals, "miss_ratio", "LRU miss ratio", show_miss_ratio);
  show_parallelism(totals);
}

/* ---- Top functions ------------------------------------------------------ */

struct ranked_function {
  json_object *entry;
  double value;
};

static int by_value_desc(const void *a, const void *b) {
  double x = ((const struct ranked_function *)a)->value;
  double y = ((const struct ranked_function *)b)->value;
  return (x < y) - (x > y);
}

static void format_location(char *buf, size_t n, json_object *entry) {
  json_object *file = json_at(entry, "file");
  double line;
  if (!file || !json_object_is_type(file, json_type_string)) {
    snprintf(buf, n, "(no debug info)");
    return;
  }
  const char *path = json_object_get_string(file);
  const char *slash = strrchr(path, '/');
  if (json_number_at(entry, "line", &line))
    snprintf(buf, n, "%s:%.0f", slash ? slash + 1 : path, line);
  else
    snprintf(buf, n, "%s", slash ? slash + 1 : path);
}

static void show_top(json_object *root, long top, const char *title,
                     double (*measure)(json_object *)) {
  json_object *functions = json_at(root, "functions");
  size_t n = json_object_array_length(functions);
  struct ranked_function *list = xcalloc(n, sizeof *list);
  for (size_t i = 0; i < n; i++) {
    list[i].entry = json_object_array_get_idx(functions, i);
    list[i].value = measure(list[i].entry);
  }
  qsort(list, n, sizeof *list, by_value_desc);
  double total = measure(json_at(root, "totals"));
  printf("\ntop functions by %s\n  %15s %6s  %-32s %s\n", title, title, "share",
         "function", "location");
  for (size_t i = 0; i < n && i < (size_t)top; i++) {
    char count[32], where[256];
    format_location(where, sizeof where, list[i].entry);
    printf("  %15s %5.1f%%  %-32.32s %.40s\n",
           format_count(count, sizeof count, list[i].value),
           total > 0 ? 100 * list[i].value / total : 0.0,
           json_object_get_string(json_at(list[i].entry, "name")), where);
  }
  if (n == 0)
    puts("  (no instrumented function ran)");
  free(list);
}

static double instructions_of(json_object *m) {
  return json_count_at(m, "instructions");
}

static const struct option ShowOptions[] = {
    {"top", required_argument, NULL, 't'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct command_line show_line = {
    .name = "show",
    .usage = usage_text,
    .short_options = ":h",
    .options = ShowOptions,
};

static int take_option(int opt, char *arg, void *ctx) {
  (void)opt; /* --top is the only one */
  if (parse_long(arg, 0, 1000000, ctx))
    return usage_error(&show_line, "--top wants a count >= 0, not '%s'", arg);
  return 0;
}

int cmd_show(int argc, char **argv) {
  long top = 5;
  int status = cmdline_parse(&show_line, argc, argv, take_option, &top);
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
  const struct pisa_doc *doc = &set.docs[0];
  show_run(doc);
  show_totals(json_at(doc->root, "totals"));
  if (top > 0) {
    show_top(doc->root, top, "instructions", instructions_of);
    show_top(doc->root, top, "accesses", metrics_accesses);
  }
  docset_free(&set);
  return 0;
}
