/* harness.c: pisa-bench, the benchmark of issue 13: every kernel runs
 * natively, under each selected pisa-char preset and under cachegrind,
 * interleaved, and the medians of CPU time and peak RSS are reported as
 * ratios over native (wall time is shown, never divided). */
#include "bench.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by bench/CMakeLists.txt: the kernels built next to the harness. */
#ifndef PISA_BENCH_KERNELS
#error "PISA_BENCH_KERNELS must list the kernels (comma-separated)"
#endif

/* A named set of pisa-char options.  Targets are issue 13's (exact deep
 * mode: peak RSS at most 8x native + 64 MiB) and issue 6's (counter mode). */
struct preset {
  const char *name, *args;
  struct target target;
  const char *build; /* the build it runs; NULL: preset_build(args) */
};

static const struct preset Presets[] = {
    /* emission and decoding alone: the floor of deep mode */
    {"none", "--metrics=none", {0, 8, 0, 0}, NULL},
    {"footprint", "--metrics=footprint", {5, 8, 0, 0}, NULL},
    {"memory",
     "--metrics=footprint,entropy,reuse,locality,classes,branch",
     {0, 8, 0, 0},
     NULL},
    {"parallelism", "--metrics=ilp,bblp", {0, 8, 0, 0}, NULL},
    {"all", "--metrics=all", {100, 8, 0, 0}, NULL},
    /* the same without the kernels' regions of interest, each of which
     * keeps footprints, entropy, reuse histograms and branch contexts of
     * its own: the like of issue 13's 435x baseline, measured before deep
     * mode honoured regions */
    {"all-noregions", "--metrics=all --no-regions", {100, 8, 0, 0}, NULL},
    /* sampled deep mode, every family (issue 13: CPU and peak RSS; 40x
     * on real programs) */
    {"sampled", "--sample 1%", {20, 1.5, 0, 40}, NULL},
    /* every family on two analysis threads: its wall time */
    {"threads2", "--metrics=all --analysis-threads 2", {0, 8, 70, 0}, NULL},
    {"counter", "--mode=counter", {1.05, 0, 0, 0}, NULL},
    /* the footprint build (pisa-cc --mode=footprint): the mix and the
     * exact footprint, computed in the program (issue 13: `footprint`
     * <= 5x) */
    {"footprint-build", "--mode=counter", {5, 8, 0, 0}, "footprint"},
};
#define PRESET_COUNT (sizeof Presets / sizeof *Presets)
#define DEFAULT_PRESETS "footprint,all"

/* cachegrind without and with its cache simulation. */
static const struct preset Cachegrinds[] = {
    {"cachegrind",
     "--tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null",
     {0, 0, 0, 0},
     NULL},
    {"cachegrind-sim",
     "--tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null",
     {0, 0, 0, 0},
     NULL},
};
#define DEFAULT_CACHEGRIND "cachegrind,cachegrind-sim"

/* --quick: sizes at which each kernel runs about 0.05 s natively here. */
#define QUICK_ARGS                                                             \
  "atax=1000:40,compress=1572864,floyd-warshall=500,gemm=550,graph=14,"        \
  "hashtable=262144:262144,jacobi-2d=1000:30,pointer-chase=262144:524288,"     \
  "triad=524288:60"

#define MAX_DEFINED 8

struct options {
  int reps;
  char *kernels;   /* comma-separated */
  const char *out; /* JSON record */
  const char *dir; /* holds native/K, pisa/K, counter/K, footprint/K */
  const char *pisa_char;
  const char *compare;    /* an earlier record to compare with */
  const char *record;     /* with compare and no run: the newer record */
  const char *presets;    /* comma-separated names */
  const char *cachegrind; /* comma-separated: cachegrind, cachegrind-sim */
  char *args;             /* per-kernel arguments: K=A:B,K2=C */
  bool quick;
  bool output_checksum; /* a hash of the whole output is the checksum */
  struct preset defined[MAX_DEFINED]; /* --preset NAME=ARGS */
  int defined_count;
};

/* ---- Options ------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: pisa-bench [options]\n"
      "       pisa-bench --compare OLD.json NEW.json\n"
      "\n"
      "Runs each kernel natively (DIR/native/K), under pisa-char presets\n"
      "(DIR/pisa/K) and under cachegrind, interleaved, and reports the\n"
      "medians of CPU time (user + sys) and of peak RSS as ratios over\n"
      "native, per kernel and as geometric means.\n"
      "\n"
      "  --reps N            runs per kernel and tool (default 3)\n"
      "  --presets LIST      pisa-char presets (default " DEFAULT_PRESETS "):\n"
      "                      none, footprint, memory, parallelism, all,\n"
      "                      sampled (--sample 1%%), threads2\n"
      "                      (all on 2 analysis threads), counter,\n"
      "                      footprint-build (DIR/footprint/K: the build\n"
      "                      of pisa-cc --mode=footprint)\n"
      "  --preset NAME=ARGS  also run preset NAME: pisa-char ARGS (words\n"
      "                      split at spaces), e.g. 'sampled1=--sample 1%%';\n"
      "                      repeatable; a built-in name is redefined\n"
      "  --cachegrind LIST   cachegrind (--cache-sim=no), cachegrind-sim\n"
      "                      (--cache-sim=yes) or none (default both)\n"
      "  --no-cachegrind     the same as --cachegrind none\n"
      "  --kernels LIST      kernels to run (default: %s)\n"
      "  --quick             small sizes: each kernel about 0.05 s natively\n"
      "  --args K=A:B,...    run kernel K with arguments A B (after --quick)\n"
      "  --output-checksum   check each run's whole standard output against\n"
      "                      native's (a hash) instead of a checksum line:\n"
      "                      for programs that print none (bench/real/)\n"
      "  --out FILE          write every run and the results as JSON\n"
      "  --compare OLD.json  print the change from that record: after the\n"
      "                      run, or of NEW.json without running anything\n"
      "  --dir DIR           where native/, pisa/, counter/ and footprint/\n"
      "                      are (default:\n"
      "                      the harness's directory); --kernels may then\n"
      "                      name any program there\n"
      "  --pisa-char PATH    pisa-char to measure (default ../bin/pisa-char\n"
      "                      next to the harness)\n"
      "\n"
      "Exit status: 0, or 1 when a run failed or a checksum differed.\n",
      PISA_BENCH_KERNELS);
}

static void define_preset(struct options *opt, const char *text) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || !eq[1])
    die("--preset wants NAME=PISA_CHAR_ARGS (got '%s')", text);
  if (opt->defined_count == MAX_DEFINED)
    die("--preset: at most %d", MAX_DEFINED);
  char *name = strndup(text, (size_t)(eq - text));
  if (strpbrk(name, ",/ ") || !strcmp(name, "native") ||
      !strncmp(name, "cachegrind", 10))
    die("--preset: '%s' cannot name a preset", name);
  opt->defined[opt->defined_count++] =
      (struct preset){name, eq + 1, {0, 0, 0, 0}, NULL};
}

static int parse_reps(const char *text) {
  char *end;
  long reps = strtol(text, &end, 10);
  if (*end || reps < 1 || reps > MAX_REPS)
    die("--reps wants a number from 1 to %d (got '%s')", MAX_REPS, text);
  return (int)reps;
}

static void parse_options(int argc, char **argv, struct options *opt) {
  enum {
    OPT_PRESETS = 256,
    OPT_PRESET,
    OPT_CACHEGRIND,
    OPT_NO_CACHEGRIND,
    OPT_QUICK,
    OPT_ARGS,
    OPT_OUTPUT_CHECKSUM,
    OPT_COMPARE,
    OPT_PISA_CHAR
  };
  static const struct option Options[] = {
      {"reps", required_argument, NULL, 'r'},
      {"presets", required_argument, NULL, OPT_PRESETS},
      {"preset", required_argument, NULL, OPT_PRESET},
      {"cachegrind", required_argument, NULL, OPT_CACHEGRIND},
      {"no-cachegrind", no_argument, NULL, OPT_NO_CACHEGRIND},
      {"kernels", required_argument, NULL, 'k'},
      {"quick", no_argument, NULL, OPT_QUICK},
      {"args", required_argument, NULL, OPT_ARGS},
      {"output-checksum", no_argument, NULL, OPT_OUTPUT_CHECKSUM},
      {"out", required_argument, NULL, 'o'},
      {"compare", required_argument, NULL, OPT_COMPARE},
      {"dir", required_argument, NULL, 'd'},
      {"pisa-char", required_argument, NULL, OPT_PISA_CHAR},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  *opt = (struct options){.reps = 3,
                          .kernels = xstrdup(PISA_BENCH_KERNELS),
                          .presets = DEFAULT_PRESETS,
                          .cachegrind = DEFAULT_CACHEGRIND};
  for (int c; (c = getopt_long(argc, argv, "r:k:o:d:h", Options, NULL)) != -1;)
    switch (c) {
    case 'r':
      opt->reps = parse_reps(optarg);
      break;
    case OPT_PRESETS:
      opt->presets = optarg;
      break;
    case OPT_PRESET:
      define_preset(opt, optarg);
      break;
    case OPT_CACHEGRIND:
      opt->cachegrind = strcmp(optarg, "none") ? optarg : "";
      break;
    case OPT_NO_CACHEGRIND:
      opt->cachegrind = "";
      break;
    case 'k':
      free(opt->kernels);
      opt->kernels = xstrdup(optarg);
      break;
    case OPT_QUICK:
      opt->quick = true;
      break;
    case OPT_ARGS:
      opt->args = optarg;
      break;
    case OPT_OUTPUT_CHECKSUM:
      opt->output_checksum = true;
      break;
    case 'o':
      opt->out = optarg;
      break;
    case OPT_COMPARE:
      opt->compare = optarg;
      break;
    case 'd':
      opt->dir = optarg;
      break;
    case OPT_PISA_CHAR:
      opt->pisa_char = optarg;
      break;
    case 'h':
      usage(stdout);
      exit(0);
    default:
      usage(stderr);
      exit(2);
    }
  if (optind < argc && opt->compare && optind + 1 == argc)
    opt->record = argv[optind];
  else if (optind < argc) {
    error("unexpected argument '%s'", argv[optind]);
    usage(stderr);
    exit(2);
  }
}

/* ---- Tools --------------------------------------------------------------- */

/* Adds a tool running args (words split at spaces). */
static void add_tool(struct bench *b, const char *name, enum tool_kind kind,
                     const char *args, const char *build,
                     struct target target) {
  if (b->tool_count == MAX_TOOLS)
    die("at most %d tools in one run", MAX_TOOLS);
  struct tool *t = &b->tools[b->tool_count++];
  *t = (struct tool){
      .name = name, .kind = kind, .build = build, .target = target};
  char *words = xstrdup(args);
  int n = 0;
  for (char *save, *w = strtok_r(words, " ", &save); w;
       w = strtok_r(NULL, " ", &save)) {
    if (n == MAX_TOOL_ARGS)
      die("%s: at most %d options", name, MAX_TOOL_ARGS);
    t->args[n++] = w;
  }
}

/* A preset of pisa-char runs the counter-mode build when it asks for
 * counter mode, else the deep build. */
static const char *preset_build(const char *args) {
  return strstr(args, "--mode=counter") || strstr(args, "--mode counter")
             ? "counter"
             : "pisa";
}

static const struct preset *find_in(const struct preset *table, size_t count,
                                    const char *name) {
  for (size_t i = 0; i < count; i++)
    if (!strcmp(table[i].name, name))
      return &table[i];
  return NULL;
}

/* A preset of --preset (the last of a name wins), else a built-in one. */
static const struct preset *find_preset(const struct options *opt,
                                        const char *name) {
  for (int i = opt->defined_count - 1; i >= 0; i--)
    if (!strcmp(opt->defined[i].name, name))
      return &opt->defined[i];
  return find_in(Presets, PRESET_COUNT, name);
}

static void add_preset(struct bench *b, const struct preset *p) {
  for (int t = 1; t < b->tool_count; t++)
    if (!strcmp(b->tools[t].name, p->name))
      return;
  struct target target = p->target;
  if (b->other_dir && target.programs > 0)
    target.cpu = target.programs;
  add_tool(b, p->name, TOOL_PISA, p->args,
           p->build ? p->build : preset_build(p->args), target);
}

/* native, the presets of --presets, then those of --preset, then
 * cachegrind: the order in which every repetition runs them. */
static void select_tools(struct bench *b, const struct options *opt) {
  add_tool(b, "native", TOOL_NATIVE, "", "native", (struct target){0, 0, 0, 0});
  char *names = xstrdup(opt->presets);
  for (char *save, *name = strtok_r(names, ",", &save); name;
       name = strtok_r(NULL, ",", &save)) {
    const struct preset *p = find_preset(opt, name);
    if (!p)
      die("--presets: unknown preset '%s'", name);
    add_preset(b, p);
  }
  for (int i = 0; i < opt->defined_count; i++)
    add_preset(b, find_preset(opt, opt->defined[i].name));
  char *tools = xstrdup(opt->cachegrind);
  for (char *save, *name = strtok_r(tools, ",", &save); name;
       name = strtok_r(NULL, ",", &save)) {
    const struct preset *p = find_in(Cachegrinds, 2, name);
    if (!p)
      die("--cachegrind wants cachegrind, cachegrind-sim or none (got '%s')",
          name);
    if (b->valgrind)
      add_tool(b, p->name, TOOL_CACHEGRIND, p->args, "native", p->target);
  }
}

/* ---- Kernels ------------------------------------------------------------- */

static bool in_list(const char *name, const char *list) {
  size_t n = strlen(name);
  for (const char *p = list; *p;
       p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
    if (strcspn(p, ",") == n && !strncmp(p, name, n))
      return true;
  return false;
}

/* Any name is a kernel in another --dir (its executables are checked in
 * set_up); in the harness's own, the kernels built with it. */
static struct kernel_result *find_kernel(struct bench *b, const char *name) {
  if (!b->other_dir && !in_list(name, PISA_BENCH_KERNELS))
    die("unknown kernel '%s' (known: %s)", name, PISA_BENCH_KERNELS);
  for (size_t i = 0; i < b->kernel_count; i++)
    if (!strcmp(b->kernels[i].name, name))
      return &b->kernels[i];
  return NULL; /* known, not selected by --kernels */
}

/* Gives each kernel named in list (K=A:B,...) its arguments. */
static void assign_args(struct bench *b, const char *list, const char *option) {
  char *items = xstrdup(list);
  for (char *save, *item = strtok_r(items, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item)
      die("%s wants K=A:B,... (got '%s')", option, item);
    *eq = '\0';
    struct kernel_result *k = find_kernel(b, item);
    int n = 0;
    for (char *save2, *a = strtok_r(eq + 1, ":", &save2); a && k;
         a = strtok_r(NULL, ":", &save2)) {
      if (n == MAX_KERNEL_ARGS)
        die("%s: at most %d arguments per kernel", option, MAX_KERNEL_ARGS);
      k->args[n++] = xstrdup(a);
    }
    if (k)
      k->args[n] = NULL;
  }
}

/* The kernels of --kernels with the sizes of --quick and --args. */
static void select_kernels(struct bench *b, const struct options *opt) {
  size_t most = 1;
  for (const char *p = opt->kernels; *p; p++)
    most += *p == ',';
  b->kernels = xcalloc(most, sizeof(*b->kernels));
  for (char *save, *k = strtok_r(opt->kernels, ",", &save); k;
       k = strtok_r(NULL, ",", &save))
    if (!find_kernel(b, k))
      b->kernels[b->kernel_count++].name = k;
  if (b->kernel_count == 0)
    die("no kernels selected");
  if (opt->quick)
    assign_args(b, QUICK_ARGS, "--quick");
  if (opt->args)
    assign_args(b, opt->args, "--args");
  b->sizes = opt->args ? opt->args : opt->quick ? "quick" : "default";
}

/* ---- Set-up -------------------------------------------------------------- */

/* An executable named name in PATH, or NULL. */
static char *find_in_path(const char *name) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t len = strcspn(p, ":");
    char *candidate = xasprintf("%.*s/%s", (int)len, p, name);
    if (len && access(candidate, X_OK) == 0)
      return candidate;
    free(candidate);
    p += len + (p[len] == ':');
  }
  return NULL;
}

/* path without "..", when it exists; takes ownership of path. */
static char *canonical(char *path) {
  char *resolved = realpath(path, NULL);
  if (!resolved)
    return path;
  free(path);
  return resolved;
}

static void check_executable(const char *path) {
  if (access(path, X_OK) != 0)
    die("%s: %s (build it with 'cmake --build BUILD --target bench-kernels')",
        path, strerror(errno));
}

static void set_up(struct bench *b, const struct options *opt) {
  char tmpl[] = "/tmp/pisa-bench.XXXXXX";
  b->reps = opt->reps;
  b->dir = opt->dir ? opt->dir : xstrdup(self_dir());
  b->pisa_char = opt->pisa_char
                     ? opt->pisa_char
                     : canonical(xasprintf("%s/../bin/pisa-char", self_dir()));
  if (*opt->cachegrind && !(b->valgrind = find_in_path("valgrind")))
    warning("valgrind not found in PATH: cachegrind not run");
  b->other_dir = opt->dir != NULL; /* before the tools: their targets */
  select_tools(b, opt);
  select_kernels(b, opt);
  b->output_checksum = opt->output_checksum;
  check_executable(b->pisa_char);
  for (size_t i = 0; i < b->kernel_count; i++)
    for (int t = 0; t < b->tool_count; t++) {
      char *path =
          xasprintf("%s/%s/%s", b->dir, b->tools[t].build, b->kernels[i].name);
      check_executable(path);
      free(path);
    }
  if (!mkdtemp(tmpl))
    die_status(1, "cannot create a temporary directory: %s", strerror(errno));
  b->tmpdir = xstrdup(tmpl);
}

/* ---- Main ---------------------------------------------------------------- */

static void compare_records(const char *old_path, const char *new_path) {
  struct json_object *old_doc = read_record(old_path),
                     *doc = read_record(new_path);
  printf("%s against %s\n", new_path, old_path);
  print_comparison(old_doc, doc, old_path);
  json_object_put(old_doc);
  json_object_put(doc);
}

static bool run_all(struct bench *b) {
  bool failed = false;
  for (size_t i = 0; i < b->kernel_count; i++) {
    bench_kernel(b, &b->kernels[i]);
    for (int t = 0; t < b->tool_count; t++)
      failed |= b->kernels[i].failed[t];
  }
  rmdir(b->tmpdir);
  return failed;
}

int main(int argc, char **argv) {
  struct options opt;
  struct bench b = {0};
  pisa_progname = "pisa-bench";
  parse_options(argc, argv, &opt);
  if (opt.record) {
    compare_records(opt.compare, opt.record);
    check_stdout();
    return 0;
  }
  struct json_object *old_doc = opt.compare ? read_record(opt.compare) : NULL;
  b.command = command_line(argc, argv);
  set_up(&b, &opt);
  struct json_object *record = record_context(&b);
  print_header(&b, record);
  bool failed = run_all(&b);
  print_results(&b);
  record_load_after(record);
  add_results(record, &b);
  if (opt.out &&
      json_object_to_file_ext(opt.out, record, JSON_C_TO_STRING_PRETTY) < 0)
    die_status(1, "cannot write %s: %s", opt.out, json_util_get_last_err());
  if (old_doc)
    print_comparison(old_doc, record, opt.compare);
  json_object_put(record);
  json_object_put(old_doc);
  check_stdout();
  return failed ? 1 : 0;
}
