/* runsettings.h: the settings of an analysed run (line sizes, entropy
 * bits, metric families, ILP windows, counter mode, MPI ranks): parsing
 * the values of `pisa-char run`'s options, checking that they go
 * together, and the PISA_* environment that hands them to the runtime.
 * A bad value is one line naming the option and exit status 2. */
#ifndef PISA_CLI_RUNSETTINGS_H
#define PISA_CLI_RUNSETTINGS_H

#include "strvec.h"

struct run_settings {
  unsigned line_min, line_max;
  unsigned entropy_bits;
  unsigned families; /* PISA_FAMILY() bits */
  int metrics_given;
  char windows[128]; /* PISA_ILP_WINDOWS: "0,64"; empty: the default */
  /* counter mode (docs/counter-mode.md) */
  int counter;
  unsigned long sample_every, interval_ms;
  const char *hw_counters, *csv;
  int mpi_ranks;            /* --mpi N: run under mpirun -np N */
  int oversubscribe;        /* --oversubscribe: more ranks than cores */
  const char *roi_function; /* --roi-function GLOB, deep mode */
};

/* The defaults: 8:512 lines, 12 bits, every family, deep mode. */
void run_settings_init(struct run_settings *s);

void run_parse_mode(const char *arg, struct run_settings *s);
void run_parse_line_sizes(const char *arg, struct run_settings *s);
void run_parse_entropy_bits(const char *arg, struct run_settings *s);
void run_parse_metrics(const char *arg, struct run_settings *s);
void run_parse_windows(const char *arg, struct run_settings *s);
void run_parse_hw_counters(const char *arg, struct run_settings *s);
void run_parse_sample_every(const char *arg, struct run_settings *s);
void run_parse_interval_ms(const char *arg, struct run_settings *s);
void run_parse_mpi_ranks(const char *arg, struct run_settings *s);
void run_parse_roi_function(const char *arg, struct run_settings *s);

/* Counter options belong to counter mode, --metrics to deep mode. */
void run_check_mode(const struct run_settings *s);

/* Sets the runtime's PISA_* variables of the settings in `env`, results
 * going to `raw_dir`. */
void run_settings_env(const struct run_settings *s, const char *raw_dir,
                      struct strvec *env);

#endif
