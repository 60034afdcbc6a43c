/* rank.h: the NMC offload-candidate model of `pisa-char rank` and of the
 * report (described in docs/ranking.md): per candidate, metrics normalised
 * to [0, 1] with fixed transforms, weighted, and summed over the metrics
 * the document holds; and the candidates of a document set, ranked. */
#ifndef PISA_CLI_RANK_H
#define PISA_CLI_RANK_H

#include "suggest.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

enum rank_metric {
  RANK_INTENSITY, /* memory accesses per instruction */
  RANK_BYTES,     /* bytes loaded and stored per instruction */
  RANK_ENTROPY,   /* H_6: entropy of 64-byte line addresses */
  RANK_SPATIAL,   /* 1 - strict spatial locality score */
  RANK_MISS,      /* estimated miss ratio of the last-level cache */
  RANK_DLP,       /* dlp2 */
  RANK_BBLP,      /* bblp_smart */
  RANK_PBBLP,     /* pbblp */
  RANK_NUM_METRICS
};

/* Functions making less than this share of their program's memory
 * accesses are left out of function rankings by default. */
#define RANK_MIN_SHARE 0.01

/* The line size of the last-level cache the miss ratio is estimated for. */
#define RANK_LINE_BYTES 64

struct rank_model {
  double weights[RANK_NUM_METRICS];
  uint64_t llc_bytes; /* capacity of the last-level cache, 64-byte lines */
};

struct rank_result {
  int present[RANK_NUM_METRICS];
  double value[RANK_NUM_METRICS];        /* as measured */
  double normalised[RANK_NUM_METRICS];   /* in [0, 1] */
  double contribution[RANK_NUM_METRICS]; /* weight x normalised / weights */
  double score; /* sum of contributions; -1 when no metric is present */
  int miss_interpolated; /* the LLC size fell inside a log2 bin */
};

/* The metric's name for --weights, the table and the JSON output. */
const char *rank_metric_name(enum rank_metric metric);

/* The metric names of --weights, in enum rank_metric order. */
extern const struct name_table rank_metric_names;

/* The default weights and a 32 MiB LLC. */
void rank_model_init(struct rank_model *model);

/* Applies "name=w,name=w..." (w a number >= 0) to the weights; 0 if it
 * parses, else -1 with the reason in err. */
int rank_parse_weights(struct rank_model *model, const char *spec, char *err,
                       size_t errlen);

/* Parses a --llc-bytes value: a number of bytes >= 64, optionally with K,
 * M or G (x1024); 0 if it parses, else -1. */
int rank_parse_llc_bytes(const char *s, uint64_t *out);

/* The options of the model that rank and report share: applies --weights
 * LIST (opt 'w') or --llc-bytes N (opt 'l'); 0, or -1 with the usage
 * error in err. */
int rank_model_option(struct rank_model *model, int opt, const char *arg,
                      char *err, size_t errlen);

/* Evaluates the model on one METRICS object (totals or a function). */
void rank_evaluate(const struct rank_model *model, json_object *metrics,
                   struct rank_result *result);

/* ---- Candidates: applications or functions of a document set ---- */

struct pisa_doc;

struct rank_candidate {
  const struct pisa_doc *doc;
  json_object *function; /* NULL for an application (the totals) */
  char *label;           /* the document's label, ":function" for one */
  struct rank_result result;
};

struct rank_candidates {
  struct rank_candidate *list;
  size_t n;
};

/* Adds the application of `doc`: its totals. */
void rank_add_application(struct rank_candidates *c,
                          const struct rank_model *model,
                          const struct pisa_doc *doc);

/* Adds the functions of `doc` that make at least `min_share` of their
 * program's memory accesses (a program without accesses: none), or every
 * function when `all`. */
void rank_add_functions(struct rank_candidates *c,
                        const struct rank_model *model,
                        const struct pisa_doc *doc, double min_share, int all);

/* Best candidates first; equal scores by label. */
void rank_sort(struct rank_candidates *c);

void rank_candidates_free(struct rank_candidates *c);

#endif
