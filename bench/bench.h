/* bench.h: what the parts of pisa-bench share: the tools a kernel runs under
 * (native, pisa-char presets, cachegrind), the runs they made, and the
 * statistics over them (medians, ratios over native, geometric means). */
#ifndef PISA_BENCH_H
#define PISA_BENCH_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define MAX_REPS 99
#define MAX_TOOLS 16
#define MAX_TOOL_ARGS 16
#define MAX_KERNEL_ARGS 8

enum tool_kind { TOOL_NATIVE, TOOL_PISA, TOOL_CACHEGRIND };

/* Issue 13's targets for a tool; 0: none.  Peak RSS is met on a kernel
 * when it is at most rss_factor times native's plus RSS_ALLOWANCE_KIB.
 * The wall ratio (a tool's median wall time over native's median wall
 * time, both from the interleaved runs) is for the presets whose point is
 * wall time: analysis threads on idle cores. */
struct target {
  double cpu;        /* geomean CPU ratio */
  double rss_factor; /* per kernel */
  double wall;       /* geomean wall ratio */
  double programs;   /* geomean CPU ratio for the programs of another --dir
                        (real programs), when it differs from cpu */
};
#define RSS_ALLOWANCE_KIB (64 * 1024)

/* One way of running a kernel.  tools[0] of a bench is always native. */
struct tool {
  const char *name; /* "native", a preset's name, "cachegrind", ... */
  enum tool_kind kind;
  char *args[MAX_TOOL_ARGS + 1]; /* pisa-char's or valgrind's, NULL-ended */
  const char *build;             /* subdirectory of dir with the binaries */
  struct target target;
};

/* One execution: wall time, CPU time (user + system) and peak resident set
 * of the process and of every descendant it waited for (wait4's rusage). */
struct run {
  double wall, cpu;
  long long rss_kib;
  unsigned long long output_hash; /* FNV-1a of its standard output */
};

struct kernel_result {
  const char *name;
  char *args[MAX_KERNEL_ARGS + 1]; /* NULL-ended; none: its defaults */
  struct run runs[MAX_TOOLS][MAX_REPS];
  int done[MAX_TOOLS];    /* successful runs of each tool */
  bool failed[MAX_TOOLS]; /* a run failed: the tool is not run again */
  char *checksum;         /* of the first native run */
  long long instructions; /* from a pisa-char document, -1 if unknown */
  long long accesses;     /* memory accesses of all kinds, same source */
};

struct bench {
  int reps;
  struct tool tools[MAX_TOOLS];
  int tool_count;
  struct kernel_result *kernels;
  size_t kernel_count;
  const char *dir;       /* holds native/K, pisa/K, counter/K */
  const char *pisa_char; /* the pisa-char to measure */
  char *valgrind;        /* NULL: no cachegrind */
  char *tmpdir;          /* pisa-char's documents, removed at the end */
  char *command;         /* how pisa-bench was run, for the record */
  const char *sizes;     /* "default", "quick" or the --args given */
  bool output_checksum;  /* checksums are hashes of the whole output */
  bool other_dir;        /* --dir: kernels of any name */
};

enum measure { MEASURE_CPU, MEASURE_WALL, MEASURE_RSS };

/* measure.c: running the kernels and the statistics of their runs. */
void bench_kernel(const struct bench *b, struct kernel_result *k);
char *first_output_line(const char *tmpdir, char *const argv[]);
double median(const struct kernel_result *k, int tool, enum measure m);
bool complete(const struct bench *b, const struct kernel_result *k, int tool);
double ratio(const struct kernel_result *k, int tool, enum measure m);
double geomean(const struct bench *b, int tool, enum measure m, int *count);

/* report.c: the record (JSON) and what is printed: its context (date,
 * command, machine, versions, load), the tables, and the change between two
 * records. */
char *command_line(int argc, char **argv);
struct json_object *record_context(const struct bench *b);
void print_header(const struct bench *b, struct json_object *record);
void record_load_after(struct json_object *record);
void print_results(const struct bench *b);
void add_results(struct json_object *record, const struct bench *b);
struct json_object *read_record(const char *path);
void print_comparison(struct json_object *old_doc, struct json_object *doc,
                      const char *old_name);

#endif
