/* fallback.c: the memory budget's steps (fallback.h).  A group is asked to
 * step by whichever group first sees the process over the threshold; it
 * steps after its own next batch, one step per batch, so the state it
 * prunes (consume.c) is measured again before the next step. */
#include "fallback.h"
#include "budget.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

struct step {
  uint64_t at;                /* instruction of the stepping thread */
  double rate;                /* after the step */
  uint64_t used, group_bytes; /* the state when it was taken */
};

static struct {
  _Atomic unsigned steps;
  _Atomic int asked;
  /* The group's state when it took its last step: it steps again only
   * when it has grown past it (what a step cannot remove, the sampled
   * copies of batches, the engines' fixed parts, never makes it step). */
  _Atomic uint64_t at_last_step;
  struct step step[PISA_FALLBACK_STEPS];
} groups[PISA_CONSUME_GROUPS];

static const unsigned group_account[PISA_CONSUME_GROUPS] = {
    [PISA_CONSUME_REUSE] = BUDGET_REUSE,
    [PISA_CONSUME_SCHED] = BUDGET_SCHED,
    [PISA_CONSUME_BRANCH] = BUDGET_BRANCH,
    [PISA_CONSUME_SPACE] = BUDGET_SPACE,
};

/* What each group's account holds, for the reason a step gives. */
static const char *const group_state[PISA_CONSUME_GROUPS] = {
    [PISA_CONSUME_REUSE] = "reuse engines and histograms",
    [PISA_CONSUME_SCHED] = "schedules",
    [PISA_CONSUME_BRANCH] = "branch statistics",
    [PISA_CONSUME_SPACE] = "footprints and entropy counts",
};

PISA_HIDDEN unsigned pisa_group_account(unsigned g) { return group_account[g]; }

static int spatial_group(unsigned g) {
  return g == PISA_CONSUME_REUSE || g == PISA_CONSUME_SPACE;
}

PISA_HIDDEN unsigned pisa_group_steps(unsigned g) {
  return atomic_load_explicit(&groups[g].steps, memory_order_acquire);
}

static struct sample_filter stepped(struct sample_filter f, unsigned steps) {
  f.threshold >>= steps;
  f.rate = (double)f.threshold / (double)(UINT64_C(1) << SAMPLE_HASH_BITS);
  return f;
}

PISA_HIDDEN struct sample_filter pisa_group_filter(unsigned g, unsigned steps) {
  return stepped(g == PISA_CONSUME_REUSE ? pisa_config.sampling.reuse
                                         : pisa_config.sampling.space,
                 steps);
}

PISA_HIDDEN struct sample_filter pisa_fine_filter(unsigned steps) {
  return stepped(pisa_config.sampling.fine_reuse, steps);
}

PISA_HIDDEN double pisa_group_rate(unsigned g, unsigned steps) {
  if (spatial_group(g))
    return pisa_group_filter(g, steps).rate;
  return pisa_config.sampling.rate / (double)(UINT64_C(1) << steps);
}

PISA_HIDDEN uint64_t pisa_group_burst_period(unsigned g, unsigned steps) {
  return (uint64_t)((double)pisa_config.sampling.burst_instances /
                        pisa_group_rate(g, steps) +
                    0.5);
}

/* Whether g can halve its rate once more. */
static int can_step(unsigned g, unsigned steps) {
  if (steps >= PISA_FALLBACK_STEPS)
    return 0;
  return spatial_group(g)
             ? pisa_group_filter(g, steps + 1).threshold > 0
             : pisa_group_rate(g, steps + 1) >= PISA_MIN_SAMPLE_RATE;
}

/* The enabled group that holds the most state, more than at its last
 * step, and can still step, or PISA_CONSUME_GROUPS. */
static unsigned largest_group(unsigned enabled) {
  unsigned best = PISA_CONSUME_GROUPS;
  uint64_t most = 0;
  for (unsigned g = 0; g < PISA_CONSUME_GROUPS; g++) {
    uint64_t bytes = budget_account_used(group_account[g]),
             before = atomic_load_explicit(&groups[g].at_last_step,
                                           memory_order_relaxed);
    if ((enabled & (1u << g)) && bytes > most && bytes > before &&
        can_step(g, pisa_group_steps(g))) {
      best = g;
      most = bytes;
    }
  }
  return best;
}

PISA_HIDDEN int pisa_fallback_step(unsigned g, unsigned enabled,
                                   uint64_t clock) {
  uint64_t limit = pisa_config.memory_limit, used = budget_used();
  if (limit && used > limit / 2) {
    unsigned largest = largest_group(enabled);
    if (largest < PISA_CONSUME_GROUPS)
      atomic_store_explicit(&groups[largest].asked, 1, memory_order_relaxed);
  }
  if (!atomic_exchange_explicit(&groups[g].asked, 0, memory_order_relaxed))
    return 0;
  /* only g's worker steps g, one batch at a time */
  unsigned k = atomic_load_explicit(&groups[g].steps, memory_order_relaxed);
  if (!can_step(g, k))
    return 0;
  uint64_t bytes = budget_account_used(group_account[g]);
  groups[g].step[k] =
      (struct step){clock, pisa_group_rate(g, k + 1), used, bytes};
  atomic_store_explicit(&groups[g].at_last_step, bytes, memory_order_relaxed);
  atomic_store_explicit(&groups[g].steps, k + 1, memory_order_release);
  return 1;
}

PISA_HIDDEN unsigned pisa_family_group(unsigned family) {
  unsigned bit = 1u << family;
  if (bit & (PISA_FAMILY(REUSE) | PISA_FAMILY(LOCALITY)))
    return PISA_CONSUME_REUSE;
  if (bit & PISA_FAMILY(BRANCH))
    return PISA_CONSUME_BRANCH;
  if (bit & (PISA_FAMILY(ILP) | PISA_FAMILY(BBLP)))
    return PISA_CONSUME_SCHED;
  return PISA_CONSUME_SPACE;
}

static json_object *step_json(const struct step *s) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "instruction", json_object_new_uint64(s->at));
  json_object_object_add(o, "rate", json_object_new_double(s->rate));
  json_object_object_add(o, "state_bytes", json_object_new_uint64(s->used));
  json_object_object_add(o, "group_bytes",
                         json_object_new_uint64(s->group_bytes));
  return o;
}

PISA_HIDDEN void pisa_fallback_json(unsigned family, json_object *entry) {
  unsigned g = pisa_family_group(family), n = pisa_group_steps(g);
  if (!n)
    return;
  const struct step *first = &groups[g].step[0];
  char reason[256];
  snprintf(reason, sizeof reason,
           "analysis state of %llu bytes passed half the memory limit of "
           "%llu bytes; its %s held the most (%llu bytes)",
           (unsigned long long)first->used,
           (unsigned long long)pisa_config.memory_limit, group_state[g],
           (unsigned long long)first->group_bytes);
  json_object *steps = json_object_new_array();
  for (unsigned k = 0; k < n; k++)
    json_object_array_add(steps, step_json(&groups[g].step[k]));
  json_object_object_add(entry, "switched_at",
                         json_object_new_uint64(first->at));
  json_object_object_add(entry, "reason", json_object_new_string(reason));
  json_object_object_add(entry, "steps", steps);
}
