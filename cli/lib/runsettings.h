/* runsettings.h: the settings of an analysed run (line sizes, entropy
 * bits, metric families, ILP windows, counter mode, MPI ranks): parsing
 * the values of `pisa-char run`'s options, checking that they go
 * together, and the PISA_* environment that hands them to the runtime.
 * A bad value is a usage error of the command that parses it (cmdline.h):
 * the parsers return 0, or 2 after reporting it. */
#ifndef PISA_CLI_RUNSETTINGS_H
#define PISA_CLI_RUNSETTINGS_H

#include "cmdline.h"
#include "strvec.h"

struct run_settings {
  unsigned line_min, line_max;
  unsigned entropy_bits;
  unsigned families; /* PISA_FAMILY() bits */
  int metrics_given;
  char windows[128];         /* PISA_ILP_WINDOWS: "0,64"; empty: the default */
  double sample_rate;        /* --sample: 0 when exact */
  unsigned long sample_seed; /* --sample-seed N */
  int sample_seed_given;
  unsigned long long memory_limit; /* --memory-limit bytes; 0: default */
  int analysis_threads; /* --analysis-threads N; -1: the runtime's default */
  /* counter mode (docs/counter-mode.md) */
  int counter;
  int footprint; /* --mode footprint: counter mode, a footprint build */
  unsigned long sample_every, interval_ms;
  const char *hw_counters, *csv;
  int mpi_ranks;              /* --mpi N: run under mpirun -np N */
  int oversubscribe;          /* --oversubscribe: more ranks than cores */
  const char *roi_function;   /* --roi-function GLOB, deep mode */
  int no_regions;             /* --no-regions: deep mode ignores PISA_ROI */
  unsigned long object_depth; /* --objects (depth 2) / --object-depth N */
  int loop_metrics;           /* --loop-metrics, deep mode */
  const char *intervals;      /* --intervals N|auto|off; NULL: auto */
};

/* The defaults: 8:512 lines, 12 bits, every family, deep mode. */
void run_settings_init(struct run_settings *s);

/* The valid values of --mode, --metrics and --hw-counters, for the
 * command_line tables of the commands that take them. */
extern const struct name_table run_mode_names, run_metric_names,
    run_hw_counter_names;

int run_parse_mode(const struct command_line *cl, const char *arg,
                   struct run_settings *s);
int run_parse_line_sizes(const struct command_line *cl, const char *arg,
                         struct run_settings *s);
int run_parse_entropy_bits(const struct command_line *cl, const char *arg,
                           struct run_settings *s);
int run_parse_metrics(const struct command_line *cl, const char *arg,
                      struct run_settings *s);
int run_parse_windows(const struct command_line *cl, const char *arg,
                      struct run_settings *s);
int run_parse_hw_counters(const struct command_line *cl, const char *arg,
                          struct run_settings *s);
int run_parse_sample_every(const struct command_line *cl, const char *arg,
                           struct run_settings *s);
int run_parse_interval_ms(const struct command_line *cl, const char *arg,
                          struct run_settings *s);
int run_parse_mpi_ranks(const struct command_line *cl, const char *arg,
                        struct run_settings *s);
/* --objects, and --object-depth N (1 to 8, implies --objects). */
int run_parse_object_depth(const struct command_line *cl, const char *arg,
                           struct run_settings *s);
/* --sample RATE: "1%" or "0.01", from 0.000001 to 1. */
int run_parse_sample(const struct command_line *cl, const char *arg,
                     struct run_settings *s);
/* --sample-seed N: 0 to 2^64 - 1. */
int run_parse_sample_seed(const struct command_line *cl, const char *arg,
                          struct run_settings *s);
/* --memory-limit SIZE: bytes with an optional K, M, G or T (binary
 * units), at least 1M. */
int run_parse_memory_limit(const struct command_line *cl, const char *arg,
                           struct run_settings *s);
/* --analysis-threads N: 0 to 64. */
int run_parse_analysis_threads(const struct command_line *cl, const char *arg,
                               struct run_settings *s);
/* --roi-function GLOB: 1 to 255 characters. */
int run_parse_roi_function(const struct command_line *cl, const char *arg,
                           struct run_settings *s);

/* --intervals N (instructions, 1 to 2^50), auto or off. */
int run_parse_intervals(const struct command_line *cl, const char *arg,
                        struct run_settings *s);

/* Counter options belong to counter mode, --metrics to deep mode. */
int run_check_mode(const struct command_line *cl, const struct run_settings *s);

/* The runtime's variables that the user sets and pisa-char passes on:
 * PISA_SCHED_MEMORY must be a number of bytes from 1 to the machine's
 * memory (-1 would wrap to "unlimited"). Dies with one line otherwise. */
void run_check_environment(void);

/* Sets the runtime's PISA_* variables of the settings in `env`, results
 * going to `raw_dir`. */
void run_settings_env(const struct run_settings *s, const char *raw_dir,
                      struct strvec *env);

#endif
