/* test_budget.c: the memory budget's accounting (budget.h) and what the
 * runtime does at a step: charges and releases from several threads sum
 * to a brute-force tally, a refused charge leaves the sums alone, the
 * shared tables charge their capacity to the calling thread's account; and
 * keeping only the sampled blocks (reuse_keep, reuse_kept_copy,
 * footprint_keep, entropy_keep) gives exactly the state of an engine that saw
 * only those blocks from the start: the same later reuse distances as a
 * brute-force LRU stack over the kept blocks, the same footprint, the same
 * counts. */
#include "budget.h"
#include "check.h"
#include "entropy.h"
#include "footprint.h"
#include "reuse.h"
#include "sample.h"
#include "u64map.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, OPS = 20000 };

/* Each thread charges and releases random amounts to random accounts and
 * keeps its own tally of what it left charged. */
struct tally {
  uint64_t seed;
  uint64_t left[BUDGET_ACCOUNTS];
};

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  return z ^ (z >> 27);
}

static void *charge_randomly(void *arg) {
  struct tally *t = arg;
  uint64_t held[64][2], n = 0; /* (account, bytes) not yet released */
  for (int i = 0; i < OPS; i++) {
    uint64_t r = next(&t->seed);
    if (n == 64 || (n && r % 3 == 0)) {
      uint64_t k = (r >> 8) % n;
      budget_release((unsigned)held[k][0], held[k][1]);
      t->left[held[k][0]] -= held[k][1];
      memcpy(held[k], held[--n], sizeof held[k]);
      continue;
    }
    unsigned account = (unsigned)((r >> 8) % BUDGET_ACCOUNTS);
    uint64_t bytes = (r >> 16) % 100000;
    budget_charge(account, bytes);
    t->left[account] += bytes;
    held[n][0] = account;
    held[n++][1] = bytes;
  }
  return NULL;
}

static void test_charges_sum_to_tally(void) {
  uint64_t base[BUDGET_ACCOUNTS], base_used = budget_used(), want_used = 0;
  for (unsigned a = 0; a < BUDGET_ACCOUNTS; a++)
    base[a] = budget_account_used(a);
  struct tally t[THREADS] = {{0}};
  pthread_t tid[THREADS];
  for (int k = 0; k < THREADS; k++) {
    t[k].seed = (uint64_t)k * 7919 + 1;
    pthread_create(&tid[k], NULL, charge_randomly, &t[k]);
  }
  for (int k = 0; k < THREADS; k++)
    pthread_join(tid[k], NULL);
  for (unsigned a = 0; a < BUDGET_ACCOUNTS; a++) {
    uint64_t want = base[a];
    for (int k = 0; k < THREADS; k++)
      want += t[k].left[a];
    EXPECT_EQ(budget_account_used(a), want);
    want_used += want - base[a];
  }
  EXPECT_EQ(budget_used(), base_used + want_used);
  EXPECT(budget_peak() >= budget_used());
  for (unsigned a = 0; a < BUDGET_ACCOUNTS; a++) /* back to where it was */
    budget_release(a, budget_account_used(a) - base[a]);
  EXPECT_EQ(budget_used(), base_used);
}

static void test_try_charge_refuses_past_limit(void) {
  uint64_t used = budget_used();
  budget_set_limit(used + 1000);
  EXPECT(budget_try_charge(BUDGET_REUSE, 600));
  EXPECT(!budget_try_charge(BUDGET_REUSE, 401)); /* 1001 > 1000 */
  EXPECT_EQ(budget_used(), used + 600);
  EXPECT(budget_try_charge(BUDGET_SPACE, 400)); /* exactly the limit */
  EXPECT(budget_peak() >= used + 1000);
  budget_release(BUDGET_REUSE, 600);
  budget_release(BUDGET_SPACE, 400);
  budget_set_limit(0);
  EXPECT(budget_try_charge(BUDGET_SPACE, UINT64_C(1) << 40)); /* no limit */
  budget_release(BUDGET_SPACE, UINT64_C(1) << 40);
  EXPECT_EQ(budget_used(), used);
}

/* A table charges its capacity (a heap block rounded to 64 bytes, or whole
 * 2 MiB huge pages) to the account the thread entered, until freed. */
static void test_tables_charge_current_account(void) {
  unsigned previous = budget_enter(BUDGET_BRANCH);
  EXPECT_EQ(budget_current(), BUDGET_BRANCH);
  uint64_t before = budget_account_used(BUDGET_BRANCH);
  void *small = pisa_table_alloc(100), *large = pisa_table_alloc(3 << 20);
  EXPECT_EQ(budget_account_used(BUDGET_BRANCH), before + 128 + (4 << 20));
  pisa_table_free(small, 100);
  pisa_table_free(large, 3 << 20);
  EXPECT_EQ(budget_account_used(BUDGET_BRANCH), before);
  struct u64map m;
  u64map_init(&m);
  for (uint64_t k = 1; k <= 1000; k++)
    *u64map_slot(&m, k) = k;
  EXPECT(budget_account_used(BUDGET_BRANCH) >= before + 1000 * 16);
  u64map_free(&m);
  EXPECT_EQ(budget_account_used(BUDGET_BRANCH), before);
  budget_enter(previous);
}

/* ---- Keeping the sampled blocks ---------------------------------------- */

static int keep_hashed(const void *f, uint64_t addr) {
  return sample_keep(f, addr);
}

/* Brute force: the LRU stack distance of each reference among the blocks
 * of the kept references, over the whole stream, for the references after
 * `from`. */
static void reference_distances(const uint64_t *addrs, size_t n, unsigned shift,
                                const struct sample_filter *f, size_t from,
                                uint64_t *out) {
  uint64_t *stack = malloc(n * sizeof *stack);
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] >> shift, d = UINT64_MAX;
    if (!sample_keep(f, addrs[i]))
      continue;
    for (size_t k = 0; k < depth; k++)
      if (stack[depth - 1 - k] == block) {
        d = k;
        memmove(stack + depth - 1 - k, stack + depth - k, k * sizeof *stack);
        depth--;
        break;
      }
    stack[depth++] = block;
    if (i >= from)
      *out++ = d;
  }
  free(stack);
}

/* Engines at 8 to 512 bytes (the first three sharing a neighbourhood
 * table) see a stream; after `cut` references they keep the sampled
 * blocks and see the rest, filtered: every distance after the cut is the
 * brute-force distance among the kept blocks. */
static void check_reuse_keep(size_t cut, unsigned window_test) {
  enum { N = 12000, SIZES = 7 };
  uint64_t *addrs = malloc(N * sizeof *addrs), *kept = malloc(N * sizeof *kept);
  uint64_t *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
  uint8_t *bins = malloc(N);
  for (size_t i = 0; i < N; i++) /* hot and cold: reuses at every range */
    addrs[i] = (test_rng() % 4 ? test_rng() % 4096 : test_rng() % 50000) * 8;
  struct reuse_engine *e[SIZES];
  for (unsigned s = 0; s < SIZES; s++) {
    e[s] = reuse_new_sharing(3 + s, s ? e[s - 1] : NULL);
    if (window_test)
      reuse_test_set_window(e[s], window_test);
    reuse_batch(e[s], addrs, cut, bins, NULL);
  }
  struct sample_filter f;
  sample_filter_init(&f, 0.25, 9);
  /* the span engine of a first step: a copy of the 64-byte one, kept by
   * the same filter, with a table of its own (e[3]'s is rebuilt below) */
  struct reuse_engine *copy = reuse_kept_copy(e[3], keep_hashed, &f);
  EXPECT(copy != NULL);
  EXPECT(reuse_keep(e, SIZES, keep_hashed, &f) == 0);
  size_t n = 0;
  for (size_t i = cut; i < N; i++)
    if (sample_keep(&f, addrs[i]))
      kept[n++] = addrs[i];
  for (unsigned s = 0; s < SIZES; s++) {
    reuse_batch(e[s], kept, n, bins, got);
    reference_distances(addrs, N, 3 + s, &f, cut, want);
    for (size_t i = 0; i < n && current_ok; i++)
      EXPECT_EQ(got[i], want[i]);
  }
  reuse_batch(copy, kept, n, bins, got);
  reference_distances(addrs, N, 6, &f, cut, want);
  for (size_t i = 0; i < n && current_ok; i++)
    EXPECT_EQ(got[i], want[i]);
  reuse_free(copy);
  for (unsigned s = 0; s < SIZES; s++)
    reuse_free(e[s]);
  free(addrs), free(kept), free(want), free(got), free(bins);
}

static void test_reuse_keep_matches_lru(void) {
  check_reuse_keep(0, 0);
  check_reuse_keep(5432, 0);
  check_reuse_keep(11999, 0);
  check_reuse_keep(3000, 3); /* a small window: the engine proper too */
}

/* A footprint and entropy counts over a stream, pruned, equal those of the
 * kept addresses alone. */
static void test_space_keep_matches_kept_stream(void) {
  enum { N = 50000 };
  struct footprint all, alone;
  struct entropy_counts counts, counts_alone;
  struct sample_filter f;
  sample_filter_init(&f, 0.125, 12);
  footprint_init(&all), footprint_init(&alone);
  entropy_init(&counts), entropy_init(&counts_alone);
  for (size_t i = 0; i < N; i++) {
    uint64_t addr = test_rng() % (64 << 20), size = 1 + test_rng() % 16;
    if (addr % 4096 + size > 4096) /* the kept unit is a page */
      continue;
    footprint_add(&all, addr, size);
    entropy_add_batch(&counts, &addr, 1);
    if (sample_keep(&f, addr)) {
      footprint_add(&alone, addr, size);
      entropy_add_batch(&counts_alone, &addr, 1);
    }
  }
  EXPECT(footprint_keep(&all, keep_hashed, &f) == 0);
  EXPECT(entropy_keep(&counts, keep_hashed, &f) == 0);
  EXPECT(footprint_bytes(&alone) > 0);
  EXPECT_EQ(footprint_bytes(&all), footprint_bytes(&alone));
  for (uint64_t line = 8; line <= 8192; line *= 2)
    EXPECT_EQ(footprint_blocks(&all, line), footprint_blocks(&alone, line));
  EXPECT_EQ(counts.accesses, counts_alone.accesses);
  EXPECT_EQ(entropy_distinct_addresses(&counts),
            entropy_distinct_addresses(&counts_alone));
  double h[13], h_alone[13];
  EXPECT(entropy_compute(&counts, 12, h) == 0);
  EXPECT(entropy_compute(&counts_alone, 12, h_alone) == 0);
  for (int k = 0; k <= 12; k++)
    EXPECT(h[k] == h_alone[k]);
  uint64_t addr = 4096 * 3 + 5; /* the kept state goes on growing */
  footprint_add(&all, addr, 1);
  footprint_free(&all), footprint_free(&alone);
  entropy_free(&counts), entropy_free(&counts_alone);
}

int main(void) {
  RUN(test_charges_sum_to_tally);
  RUN(test_try_charge_refuses_past_limit);
  RUN(test_tables_charge_current_account);
  RUN(test_reuse_keep_matches_lru);
  RUN(test_space_keep_matches_kept_stream);
  return check_summary();
}
