/* rank.h: the NMC offload model of `pisa-char rank` and of the report
 * (docs/ranking.md): from a candidate's work, its traffic past a modelled
 * cache (the 64-byte reuse histogram) and its parallelism in a bounded
 * window, a roofline-style time on the host and on the near-memory machine
 * of a machine description (machine.h); the score is log2 of their ratio,
 * the estimated speed-up of running the candidate near memory. */
#ifndef PISA_CLI_RANK_H
#define PISA_CLI_RANK_H

#include "machine.h"
#include "strbuf.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* Functions making less than this share of their program's memory
 * accesses are left out of function rankings by default. */
#define RANK_MIN_SHARE 0.01

/* The line size of the caches the traffic is estimated for. */
#define RANK_LINE_BYTES 64

struct rank_model {
  struct machine machine;
};

/* What the model reads from one METRICS object. */
struct rank_terms {
  int counter;      /* counter mode: no reuse histogram, ILP or DLP */
  double ops;       /* instructions executed: the work */
  double bytes;     /* bytes loaded and stored */
  double footprint; /* bytes touched; 0 when absent */
  int has_reuse;    /* a 64-byte reuse histogram */
  double refs;      /* line references of that histogram */
  int has_ilp;      /* an ILP schedule with a finite window */
  double window;    /* the largest finite window */
  double ilp, mlp;  /* ILP, and ILP of the memory category, at it */
  int has_dlp;
  double dlp2;
};

/* The time of the candidate on one side of the machine (ns). */
struct rank_time {
  double misses;    /* 64-byte lines that miss this side's cache */
  double traffic;   /* bytes moved past it: 64 x misses */
  double issue;     /* instructions a core issues per cycle: min(width, ILP) */
  double lanes;     /* SIMD lanes used: min(simd, DLP2) */
  double inflight;  /* misses in flight per core: min(mlp, memory ILP) */
  double compute;   /* ops / (cores x GHz x issue x lanes) */
  double bandwidth; /* traffic / bandwidth */
  double latency;   /* misses x latency / (cores x inflight) */
  double time;      /* the largest of the three */
  int interpolated; /* the cache size fell inside a log2 bin */
};

struct rank_result {
  int valid; /* 0 when the candidate executed no instruction */
  struct rank_terms t;
  struct rank_time host, nmc;
  double intensity; /* ops per byte past the host's cache (-1: no traffic) */
  double speedup;   /* host time / near-memory time */
  double score;     /* log2(speedup) */
  int fits;         /* the footprint fits the host's cache */
};

/* The built-in machine (machines/default.json). */
void rank_model_init(struct rank_model *model);

struct command_line;

/* The options of the model that rank and report share: --machine FILE
 * (opt 'M') or --llc-bytes N (opt 'l', the host's cache). Returns 0 when
 * applied (or opt is neither), else the exit status (2) after one line:
 * a usage error in `line`'s style, or the bad machine file's problem. */
int rank_model_option(const struct command_line *line, struct rank_model *model,
                      int opt, const char *arg);

/* Parses a --llc-bytes value: a number of bytes >= 64, optionally with K,
 * M, G or T (x1024, parse_size); 0 if it parses, else -1. */
int rank_parse_llc_bytes(const char *s, uint64_t *out);

/* Evaluates the model on one METRICS object (totals or a function) of a
 * deep (counter = 0) or counter-mode document. */
void rank_evaluate(const struct rank_model *model, json_object *metrics,
                   int counter, struct rank_result *result);

/* Appends the explanation of every term of `r`, one per line, each line
 * starting with `indent`: what was read, how each time was formed, which
 * bound decides it, and a warning when the footprint fits the cache. */
void rank_explain(struct strbuf *b, const struct rank_model *model,
                  const struct rank_result *r, const char *indent);

/* "compute", "bandwidth" or "latency": the term that sets t->time. */
const char *rank_bound(const struct rank_time *t);

/* ---- Candidates: applications or functions of a document set ---- */

struct pisa_doc;

struct rank_candidate {
  const struct pisa_doc *doc;
  /* The function or loop (deep mode's "loops"); NULL for an application
   * (the totals). */
  json_object *function;
  const char *function_name; /* its (source) function's name, or NULL */
  char *label; /* the document's label, ":function" or ":function:line" */
  struct rank_result result;
};

struct rank_candidates {
  struct rank_candidate *list;
  size_t n;
};

/* Adds the application of `doc`: its metrics of record. */
void rank_add_application(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc);

/* Adds the functions of `doc` that make at least `min_share` of their
 * program's memory accesses (a program without accesses: none), or every
 * function when `all`. */
void rank_add_functions(struct rank_candidates *c,
                        const struct rank_model *model,
                        const struct pisa_doc *doc, double min_share, int all);

/* The same for the loops of `doc` (deep mode's "loops": each loop with its
 * inner loops). */
void rank_add_loops(struct rank_candidates *c, const struct rank_model *model,
                    const struct pisa_doc *doc, double min_share, int all);

/* Best candidates first (highest score; invalid last); ties by label. */
void rank_sort(struct rank_candidates *c);

void rank_candidates_free(struct rank_candidates *c);

#endif
