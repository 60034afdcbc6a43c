/* fallback.h: deep mode under the memory budget (--memory-limit, budget.h,
 * docs/metrics-implementation.md "Memory budget").  When the analysis
 * state of the process passes half the limit between two batches, the
 * consumer group holding the most of it switches to sampling from there
 * (spatial groups to hashed blocks, temporal ones to bursts), and halves
 * its rate at every further pass; each step is recorded for the document. */
#ifndef PISA_FALLBACK_H
#define PISA_FALLBACK_H

#include "runtime.h"

#include <json-c/json.h>

/* Steps a group may take: its rate halves at each. */
#define PISA_FALLBACK_STEPS 20

/* The budget.h account of group g's state. */
PISA_HIDDEN unsigned pisa_group_account(unsigned g);
/* The steps group g has taken so far (acquire: the step's record is
 * complete). */
PISA_HIDDEN unsigned pisa_group_steps(unsigned g);
/* The spatial filter of the reuse or space group after `steps` steps: the
 * run's (--sample) with the threshold halved at each step. */
PISA_HIDDEN struct sample_filter pisa_group_filter(unsigned g, unsigned steps);
/* The reuse group's filter of its fine stream (the engines of up to 64
 * bytes, pisa_sampling_config.fine_reuse) after `steps` steps. */
PISA_HIDDEN struct sample_filter pisa_fine_filter(unsigned steps);
/* The rate of group g after `steps` steps (1: exact). */
PISA_HIDDEN double pisa_group_rate(unsigned g, unsigned steps);
/* The burst period of a temporal group after `steps` steps. */
PISA_HIDDEN uint64_t pisa_group_burst_period(unsigned g, unsigned steps);

/* After group g consumed a batch that ended at instruction `clock` of its
 * thread: 1 when g takes a step now (of the `enabled` groups, a bit each,
 * it held the most state when the process passed half the limit); the
 * step is then recorded, and the group applies it to its state. */
PISA_HIDDEN int pisa_fallback_step(unsigned g, unsigned enabled,
                                   uint64_t clock);

/* Adds to a family's entry of config.sampling.families, when its group
 * switched, "switched_at", "reason" and "steps". */
PISA_HIDDEN void pisa_fallback_json(unsigned family, json_object *entry);
/* The group of a family (PISA_FAMILY index). */
PISA_HIDDEN unsigned pisa_family_group(unsigned family);

#endif
