/* runtime.h: internals shared by the analysis runtime's files (registry,
 * buffers, threads, decoder, report, lifecycle).  Nothing here is visible
 * to the instrumented program: hidden visibility, pisa_ prefix. */
#ifndef PISA_RUNTIME_H
#define PISA_RUNTIME_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "branch.h"
#include "entropy.h"
#include "footprint.h"
#include "locality.h"
#include "mix.h"
#include "pisa/abi.h"
#include "schedule.h"

#define PISA_HIDDEN __attribute__((visibility("hidden")))

/* The one error path: a fixed prefix, the reason, never an abort. */
#define PISA_ERR(...) pisa_report_error(__FILE__, __LINE__, errno, __VA_ARGS__)
PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define PISA_MAX_LINE_SIZES 24

/* ---- configuration (lifecycle.c) ---- */
struct pisa_config {
  int active;        /* PISA_OUTPUT_DIR set: analyse and write a result */
  unsigned families; /* PISA_FAMILY() bits from PISA_METRICS */
  unsigned entropy_bits;
  char output_dir[4096];
  uint64_t line_sizes[PISA_MAX_LINE_SIZES];
  size_t n_line_sizes;
  struct sched_config sched; /* ILP windows (PISA_ILP_WINDOWS), BBLP */
};
PISA_HIDDEN extern struct pisa_config pisa_config;
PISA_HIDDEN void pisa_config_init(void); /* idempotent */
/* The status passed to exit(), or -1 before (lifecycle.c). */
PISA_HIDDEN extern int pisa_exit_status;
PISA_HIDDEN void pisa_watch_exit_status(void); /* idempotent */
/* Around an exec (exec.c): write the result; undo when the exec failed. */
PISA_HIDDEN void pisa_before_exec(void);
PISA_HIDDEN void pisa_after_failed_exec(void);

/* ---- registry of instrumented modules (registry.c) ---- */
struct pisa_gblock { /* a block with global indices resolved */
  const struct pisa_block *table;
  const struct pisa_site *sites;   /* its first site */
  const struct pisa_instr *instrs; /* its first instruction */
  const uint32_t *successors;      /* of its conditional branch or switch */
  uint32_t function;               /* global function id */
  uint32_t module_first_block;     /* global id of its module's block 0 */
};

struct pisa_gfunction {
  const struct pisa_function *table;
  const struct pisa_module *module;
  uint32_t first_block; /* global id of its first block */
  /* Its frame for the schedules (schedule.h): module-local first instruction
   * and phi, counts, and parameters used. */
  uint32_t instr_base, phi_base, n_instrs, n_phis, n_args;
};

PISA_HIDDEN extern struct pisa_gblock *pisa_blocks;
PISA_HIDDEN extern struct pisa_gfunction *pisa_functions;
PISA_HIDDEN uint32_t pisa_block_count(void); /* acquire: ids below are valid */
PISA_HIDDEN uint32_t pisa_function_count(void); /* acquire */
PISA_HIDDEN void pisa_registry_init(void);

/* ---- per-thread analysis state (thread.c) ---- */
struct pisa_fn_state { /* one thread's view of one function */
  /* Allocated at the function's first access in the thread. */
  struct footprint *footprint;     /* per access class (3), or NULL */
  struct entropy_counts *entropy;  /* when the entropy family is on */
  struct reuse_histograms *reuse;  /* when the reuse family is on */
  uint64_t dyn_loaded, dyn_stored; /* bytes of memcpy/memset/gather/scatter */
  uint64_t lane_refs[3];           /* active gather/scatter lanes per class */
  uint64_t indirect_external;      /* indirect calls that ran no pisa code */
};

/* The references of one decoded buffer (one per fixed-size access, two per
 * memcpy, one per memset, one per active lane), for the metrics that need
 * them in program order: reuse distance and entropy. */
struct pisa_batch {
  size_t n, capacity;
  uint64_t *addr;
  uint32_t *fn;                       /* global function id */
  uint8_t *bins[PISA_MAX_LINE_SIZES]; /* per line size, from the engines */
};

struct pisa_thread {
  struct pisa_thread *next; /* registry list, creation order */
  uint32_t index;           /* stable id: creation order, main thread 0 */
  pid_t os_tid;
  struct pisa_tls_buffer *tls; /* the thread's cursor and limit */
  uint64_t *buffer;
  size_t buffer_words;
  int exited;

  /* decoder context (decode.c) */
  uint32_t block;  /* current global block, or UINT32_MAX */
  uint32_t site;   /* next site of `block` */
  uint64_t desync; /* words dropped: not explained by the static tables */

  /* metrics */
  uint64_t *block_counts;
  uint32_t block_capacity;
  struct pisa_fn_state *fns; /* per function: footprint, dynamic bytes */
  uint32_t fn_capacity;
  struct reuse_engine *reuse[PISA_MAX_LINE_SIZES]; /* the thread's stream */
  struct branch_stats *branches; /* outcomes in the thread's order */
  struct sched *sched;           /* ILP/BBLP schedules, when enabled */
  struct pisa_batch batch;
};

PISA_HIDDEN struct pisa_thread *pisa_thread_self(void); /* NULL when none */
PISA_HIDDEN struct pisa_thread *pisa_thread_list(void); /* under lock */
PISA_HIDDEN void pisa_threads_lock(void);
PISA_HIDDEN int pisa_threads_trylock(void); /* 0 when locked */
PISA_HIDDEN void pisa_threads_unlock(void);
PISA_HIDDEN void pisa_thread_drain(struct pisa_thread *t);
/* Under pisa_threads_lock: drain every thread and freeze its metrics while
 * the result is built (threads may still run); thaw undoes it. */
PISA_HIDDEN void pisa_threads_freeze(int in_signal);
PISA_HIDDEN void pisa_threads_thaw(void);
PISA_HIDDEN void pisa_threads_after_fork(void);
/* Creation numbers (creation.c, the pthread_create wrapper of the shared
 * runtime): a new one; the one of the calling thread, set when it starts. */
PISA_HIDDEN uint32_t pisa_new_creation_number(void);
PISA_HIDDEN void pisa_thread_started(uint32_t creation);

/* ---- decoder (decode.c) ---- */
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *words,
                             size_t n);
PISA_HIDDEN struct pisa_fn_state *pisa_fn_state(struct pisa_thread *t,
                                                uint32_t fn);
PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t);
/* History lengths of the branch family (METRICS.md). */
PISA_HIDDEN extern const unsigned pisa_branch_histories[6];

/* ---- result (report.c) ---- */
PISA_HIDDEN int pisa_write_result(int complete, int signal);
/* Writes a raw document (either mode's) atomically and releases it. */
struct json_object;
PISA_HIDDEN int pisa_write_raw(struct json_object *doc);
/* A raw document's header: schema, pid, ppid, complete, signal, mode. */
PISA_HIDDEN struct json_object *pisa_raw_document(int complete, int signal,
                                                  const char *mode);

#endif
