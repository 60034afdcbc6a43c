/* budget.c: the accounts of budget.h, process-wide atomics.  Relaxed
 * ordering is enough: the sums are read to decide when to sample, never to
 * publish memory. */
#include "budget.h"

#include <stdatomic.h>

/* Signed: state freed under another account than the one it was charged
 * to (a thread's state freed by the exit-time writer) moves bytes between
 * accounts, never the total. */
static _Atomic int64_t accounts[BUDGET_ACCOUNTS];
static _Atomic uint64_t used, peak, limit;
static _Thread_local unsigned current = BUDGET_DECODER;

void budget_set_limit(uint64_t bytes) {
  atomic_store_explicit(&limit, bytes, memory_order_relaxed);
}

uint64_t budget_limit(void) {
  return atomic_load_explicit(&limit, memory_order_relaxed);
}

static void raise_peak(uint64_t total) {
  uint64_t p = atomic_load_explicit(&peak, memory_order_relaxed);
  while (total > p &&
         !atomic_compare_exchange_weak_explicit(
             &peak, &p, total, memory_order_relaxed, memory_order_relaxed))
    ;
}

void budget_charge(unsigned account, uint64_t bytes) {
  atomic_fetch_add_explicit(&accounts[account], (int64_t)bytes,
                            memory_order_relaxed);
  raise_peak(atomic_fetch_add_explicit(&used, bytes, memory_order_relaxed) +
             bytes);
}

int budget_try_charge(unsigned account, uint64_t bytes) {
  uint64_t cap = budget_limit();
  uint64_t total = atomic_load_explicit(&used, memory_order_relaxed);
  do {
    if (cap && total + bytes > cap)
      return 0;
  } while (!atomic_compare_exchange_weak_explicit(&used, &total, total + bytes,
                                                  memory_order_relaxed,
                                                  memory_order_relaxed));
  atomic_fetch_add_explicit(&accounts[account], (int64_t)bytes,
                            memory_order_relaxed);
  raise_peak(total + bytes);
  return 1;
}

void budget_release(unsigned account, uint64_t bytes) {
  atomic_fetch_sub_explicit(&accounts[account], (int64_t)bytes,
                            memory_order_relaxed);
  atomic_fetch_sub_explicit(&used, bytes, memory_order_relaxed);
}

uint64_t budget_used(void) {
  return atomic_load_explicit(&used, memory_order_relaxed);
}

uint64_t budget_account_used(unsigned account) {
  int64_t n = atomic_load_explicit(&accounts[account], memory_order_relaxed);
  return n > 0 ? (uint64_t)n : 0;
}

uint64_t budget_peak(void) {
  return atomic_load_explicit(&peak, memory_order_relaxed);
}

unsigned budget_enter(unsigned account) {
  unsigned previous = current;
  current = account;
  return previous;
}

unsigned budget_current(void) { return current; }
