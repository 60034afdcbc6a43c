/* schedule.h: the dataflow schedules of METRICS.md (ILP per instruction
 * window, per category and opcode; DLP1/DLP2; BBLP, smart BBLP, PBBLP),
 * rebuilt from a thread's record words and the pass's static tables
 * (operand sources, phi incoming values, index-update marks). */
#ifndef PISA_METRICS_SCHEDULE_H
#define PISA_METRICS_SCHEDULE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "pisa/abi.h"

#define SCHED_MAX_WINDOWS 8

/* What the scheduler needs to know about one global block.  The caller
 * resolves module-local indices into pointers; slots of a function's frame
 * are numbered instructions first, then phis, then parameters. */
struct sched_block {
  const struct pisa_block *table;
  const struct pisa_instr *instrs; /* the block's first instruction */
  const struct pisa_site *sites;   /* the block's first site */
  const struct pisa_phi *phis;     /* the block's first phi */
  const uint32_t *operands;        /* the module's operand sources */
  const uint32_t *incoming;        /* the module's (block, source) pairs */
  const char *function_name;       /* linkage name, for direct callees */
  uint32_t local;                  /* module-local block id */
  uint32_t function;               /* global function id */
  int entry;                       /* its function's entry block */
  uint32_t instr_base; /* module-local index of the function's first instr */
  uint32_t phi_base;   /* module-local index of the function's first phi */
  uint32_t n_instrs;   /* the function's counted instructions */
  uint32_t n_phis;     /* the function's phis */
  uint32_t n_args;     /* its parameters (1 + highest ARG source used) */
};

/* Fills *out for global block `id`; returns 0, or -1 when `id` is unknown. */
typedef int (*sched_describe_fn)(void *ctx, uint32_t id,
                                 struct sched_block *out);

/* 1 + the highest parameter index among n operand sources. */
uint32_t sched_args_used(const uint32_t *sources, size_t n, uint32_t so_far);

struct sched_config {
  uint32_t windows[SCHED_MAX_WINDOWS]; /* 0 = unlimited */
  unsigned n_windows;                  /* ILP schedules; 0 = no ILP/DLP */
  int bblp;                            /* BBLP, smart BBLP and PBBLP */
  /* Bytes of memory-dependency state all schedulers of the process may
   * hold (0 = no limit); accesses beyond it carry no memory dependency
   * and make the results approximate. */
  uint64_t max_memory_bytes;
};

struct sched;

/* NULL when memory ran out. */
struct sched *sched_new(const struct sched_config *config,
                        sched_describe_fn describe, void *ctx);
void sched_free(struct sched *s);

/* Consumes record words in program order (the ABI of pisa/abi.h); a block's
 * words may be split over several calls. */
void sched_words(struct sched *s, const uint64_t *words, size_t n);

/* Words the scheduler could not place (a lost context). */
uint64_t sched_desync(const struct sched *s);

/* ---- Results --------------------------------------------------------
 * Mergeable form: each ratio is held as (sum of value * weight, weight),
 * so merging threads gives the weighted means of METRICS.md "Merging". */
struct par_ratio {
  double wsum;
  uint64_t n;
};

struct par_window {
  uint32_t window;
  struct par_ratio ilp;
  struct par_ratio cat[PISA_CAT_COUNT];
  struct par_ratio op[PISA_OPCODE_MAX];
};

struct par_result {
  struct sched_config config;
  struct par_window win[SCHED_MAX_WINDOWS];
  struct par_ratio dlp1, dlp2; /* from the first window's schedule */
  struct par_ratio bblp, bblp_smart, pbblp;
  uint64_t untracked; /* accesses without memory state (over the limit) */
};

void par_init(struct par_result *r, const struct sched_config *config);
void par_merge(struct par_result *dst, const struct par_result *src);

/* The whole thread (ILP = N / highest issue cycle), or one function (the
 * span definition over its instructions); function-scope results hold
 * nothing when the function never ran in this thread. */
void sched_thread_result(const struct sched *s, struct par_result *out);
void sched_function_result(const struct sched *s, uint32_t function,
                           struct par_result *out);

/* PBBLP of one global block in this thread: 0 when the block never ran or
 * is omitted (only index updates and branches), else 1 with its instance
 * count and highest level. */
int sched_block_pbblp(const struct sched *s, uint32_t block,
                      uint64_t *instances, uint64_t *levels);

/* Adds "ilp", "dlp" and "bblp" to o, for the families in the config. */
void par_to_json(const struct par_result *r, json_object *o);

#endif
