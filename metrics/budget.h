/* budget.h: the one accounting point of deep mode's analysis memory
 * (--memory-limit, docs/metrics-implementation.md "Memory budget").  Every
 * table of analysis state charges its capacity to an account when it is
 * allocated and releases it when it is freed; the runtime compares the sum
 * with the limit between batches and switches the largest consumer to
 * sampling.  Thread-safe (atomics): consumer groups run on worker threads.
 * New state charges here too: add an account below, then charge with
 * budget_charge / budget_release, or allocate under budget_enter. */
#ifndef PISA_METRICS_BUDGET_H
#define PISA_METRICS_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* Who holds the bytes: a consumer group's state (consume.c), or the
 * decoded batches. */
enum budget_account {
  BUDGET_SPACE,   /* footprints and entropy counts */
  BUDGET_REUSE,   /* reuse engines, neighbourhood tables, histograms */
  BUDGET_BRANCH,  /* branch contexts and local histories */
  BUDGET_SCHED,   /* schedules' memory-dependency shadow state */
  BUDGET_DECODER, /* decoded batches and their sampled copies */
  BUDGET_ACCOUNTS
};

/* The limit in bytes of all accounts together; 0 (the initial value) for
 * none. */
void budget_set_limit(uint64_t bytes);
uint64_t budget_limit(void);

/* Adds bytes to an account, whatever the limit (the caller already holds
 * the memory, or decides itself). */
void budget_charge(unsigned account, uint64_t bytes);
/* Adds bytes to an account unless the total would pass the limit: 1 when
 * charged, 0 when refused. */
int budget_try_charge(unsigned account, uint64_t bytes);
void budget_release(unsigned account, uint64_t bytes);

uint64_t budget_used(void);                 /* all accounts */
uint64_t budget_account_used(unsigned acc); /* one */
uint64_t budget_peak(void);                 /* the highest budget_used */

/* The account that pisa_table_alloc and the batches charge in the calling
 * thread (BUDGET_DECODER until set); returns the previous one, for a
 * caller that charges on someone else's behalf to restore. */
unsigned budget_enter(unsigned account);
unsigned budget_current(void);

#endif /* PISA_METRICS_BUDGET_H */
