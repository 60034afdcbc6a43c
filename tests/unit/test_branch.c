/* test_branch.c: branch behaviour against values derived by hand (an
 * alternating branch, a loop branch next to it, random outcomes) and
 * against a brute-force reference written here: contexts kept in a plain
 * list with linear search, histories as explicit outcome arrays. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "branch.h"
#include "check.h"
#include "events.h"
#include "program.h"

static const unsigned Histories[] = {1, 2, 4, 8, 12, 16};
#define NH 6

/* ---- brute-force reference ---- */
struct ref_context {
  uint32_t branch;
  uint32_t hist[16]; /* the last h symbols, newest first */
  uint32_t outcome;
  uint64_t count;
};

static uint32_t symbol(uint32_t o) { return o < 15 ? o : 15; }

/* The executions the last reference counted. */
static uint64_t ref_total;

/* When set, the reference takes only the contexts of lengths above
 * BRANCH_EXACT_HISTORY that these sampled statistics keep. */
static const struct branch_stats *sampled_by;

/* Whether sampled_by keeps the context (local, branch, hist[0..h)) of
 * length h: the history as the table packs it, newest symbol lowest. */
static int kept_by_sample(int local, uint32_t branch, const uint32_t *hist,
                          unsigned h) {
  if (!sampled_by || h <= BRANCH_EXACT_HISTORY)
    return 1;
  uint64_t history = 0;
  for (unsigned k = 0; k < h; k++)
    history |= (uint64_t)hist[k] << (4 * k);
  size_t i = 0;
  while (Histories[i] != h)
    i++;
  return branch_sampled_context(sampled_by, local, branch, history, i);
}

/* Conditional entropy and ideal miss rate for history h (0 = plain) over
 * the events whose branch `counted` accepts; global or local history. */
static void reference(const uint32_t *br, const uint32_t *oc, size_t n,
                      unsigned h, int local, int (*counted)(uint32_t),
                      double *entropy, double *miss) {
  struct ref_context *ctx = calloc(n + 1, sizeof *ctx);
  size_t nctx = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t hist[16] = {0};
    unsigned have = 0;
    for (size_t j = i; j-- > 0 && have < h;) /* walk back through the past */
      if (!local || br[j] == br[i])
        hist[have++] = symbol(oc[j]);
    if (have < h || (counted && !counted(br[i])) ||
        !kept_by_sample(local, br[i], hist, h))
      continue;
    size_t k = 0;
    while (k < nctx && !(ctx[k].branch == br[i] && ctx[k].outcome == oc[i] &&
                         !memcmp(ctx[k].hist, hist, sizeof hist)))
      k++;
    if (k == nctx) {
      ctx[nctx].branch = br[i];
      ctx[nctx].outcome = oc[i];
      memcpy(ctx[nctx].hist, hist, sizeof hist);
      nctx++;
    }
    ctx[k].count++;
    total++;
  }
  /* group the contexts that differ only in the outcome */
  double sum = 0;
  uint64_t hits = 0;
  for (size_t a = 0; a < nctx; a++) {
    int first = 1;
    for (size_t b = 0; b < a; b++)
      if (ctx[b].branch == ctx[a].branch &&
          !memcmp(ctx[b].hist, ctx[a].hist, sizeof ctx[a].hist))
        first = 0;
    if (!first)
      continue;
    uint64_t all = 0, best = 0;
    double inner = 0;
    for (size_t b = a; b < nctx; b++)
      if (ctx[b].branch == ctx[a].branch &&
          !memcmp(ctx[b].hist, ctx[a].hist, sizeof ctx[a].hist)) {
        all += ctx[b].count;
        best = ctx[b].count > best ? ctx[b].count : best;
        inner += ctx[b].count * log2((double)ctx[b].count);
      }
    sum += all * log2((double)all) - inner;
    hits += best;
  }
  *entropy = total ? sum / total : 0;
  *miss = total ? (double)(total - hits) / total : 0;
  ref_total = total;
  free(ctx);
}

static void record_all(struct branch_stats *s, const uint32_t *br,
                       const uint32_t *oc, size_t n) {
  for (size_t i = 0; i < n; i++)
    branch_record(s, br[i], oc[i]);
}

#define CLOSE(a, b) EXPECT(fabs((a) - (b)) < 1e-9)

/* The summary of s (of the branches `keep` accepts, all when NULL)
 * against the reference over the events whose branch `counted` accepts. */
static void compare_kept_with_reference(const struct branch_stats *s,
                                        branch_keep keep, const uint32_t *br,
                                        const uint32_t *oc, size_t n,
                                        int (*counted)(uint32_t)) {
  struct branch_summary sum;
  EXPECT(branch_summarize_kept(s, keep, NULL, &sum) == 0);
  double h, m;
  reference(br, oc, n, 0, 0, counted, &h, &m);
  CLOSE(sum.entropy, h);
  for (int i = 0; i < NH; i++) {
    reference(br, oc, n, Histories[i], 0, counted, &h, &m);
    CLOSE(sum.global_entropy[i], h);
    CLOSE(sum.global_miss[i], m);
    reference(br, oc, n, Histories[i], 1, counted, &h, &m);
    CLOSE(sum.local_entropy[i], h);
    CLOSE(sum.local_miss[i], m);
  }
}

static void compare_with_reference(const struct branch_stats *s,
                                   const uint32_t *br, const uint32_t *oc,
                                   size_t n, int (*counted)(uint32_t)) {
  compare_kept_with_reference(s, NULL, br, oc, n, counted);
}

/* One branch alternating taken / not taken: plain entropy 1 and miss rate
 * 1/2; any history of 1 or more predicts it perfectly. */
static void test_alternating(void) {
  struct branch_stats s;
  EXPECT(branch_init(&s, Histories, NH) == 0);
  for (int i = 0; i < 1000; i++)
    branch_record(&s, 7, i & 1);
  struct branch_summary sum;
  branch_summarize(&s, &sum);
  EXPECT_EQ(sum.executed, 1000);
  CLOSE(sum.entropy, 1.0);
  for (int i = 0; i < NH; i++) {
    CLOSE(sum.global_entropy[i], 0.0);
    CLOSE(sum.local_entropy[i], 0.0);
    CLOSE(sum.global_miss[i], 0.0);
    CLOSE(sum.local_miss[i], 0.0);
  }
  branch_free(&s);
}

/* A loop branch (always 1) between the executions of an alternating
 * branch: one global outcome back is always the loop's, so global history
 * 1 cannot predict the alternating branch (its contexts carry 1 bit each:
 * entropy 1/2 over both branches, miss rate 1/4), two outcomes back can;
 * local history predicts from 1 on. */
static void test_loop_and_alternating(void) {
  enum { N = 2000 };
  uint32_t br[N], oc[N];
  for (int i = 0; i < N; i++) {
    br[i] = i & 1; /* 0: alternating, 1: loop */
    oc[i] = (i & 1) ? 1 : (i / 2) & 1;
  }
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  record_all(&s, br, oc, N);
  struct branch_summary sum;
  branch_summarize(&s, &sum);
  EXPECT(fabs(sum.global_entropy[0] - 0.5) < 1e-3);
  EXPECT(fabs(sum.global_miss[0] - 0.25) < 1e-3);
  CLOSE(sum.global_entropy[1], 0.0);
  CLOSE(sum.local_entropy[0], 0.0);
  compare_with_reference(&s, br, oc, N, NULL);
  branch_free(&s);
}

/* Random outcomes: about 1 bit whatever the history (the short histories
 * have enough samples per context for the estimate to be close). */
static void test_random_bits(void) {
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  for (int i = 0; i < 200000; i++)
    branch_record(&s, 3, test_rng() & 1);
  struct branch_summary sum;
  branch_summarize(&s, &sum);
  EXPECT(sum.entropy > 0.999);
  EXPECT(sum.local_entropy[0] > 0.99 && sum.local_entropy[3] > 0.98);
  EXPECT(sum.local_miss[0] > 0.49);
  branch_free(&s);
}

/* How many distinct (table, branch, history of up to 16 symbols,
 * outcome) contexts the events have: the table's `used` when every
 * context is found again after the table grew (a context not found where
 * a lookup probes is stored twice). */
static size_t distinct_contexts(const uint32_t *br, const uint32_t *oc,
                                size_t n) {
  struct key {
    uint32_t local, branch, depth, outcome;
    uint32_t hist[16];
  } *keys = calloc(2 * n + 1, sizeof *keys);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    for (uint32_t local = 0; local < 2; local++) {
      struct key k = {local, br[i], 0, oc[i], {0}};
      for (size_t j = i; j-- > 0 && k.depth < 16;)
        if (!local || br[j] == br[i])
          k.hist[k.depth++] = symbol(oc[j]);
      size_t at = 0;
      while (at < m && memcmp(&keys[at], &k, sizeof k))
        at++;
      if (at == m)
        keys[m++] = k;
    }
  free(keys);
  return m;
}

/* Several branches, some switches with up to 20 outcomes (symbols clamp at
 * 15 in histories), compared exactly with the brute force.  With 5
 * branches the table doubles from 1024 to 8192 slots; with 400 branches
 * nearly every execution is a context of its own.  The contexts moved in
 * place by each doubling (some wrapping around the table's end) must all
 * be found again: one lost changes a figure, one left where a lookup does
 * not probe is stored twice and `used` says so. */
static void test_random_vs_reference(void) {
  enum { N = 3000 };
  static const uint32_t Branches[] = {5, 400};
  for (int t = 0; t < 2; t++) {
    uint32_t br[N], oc[N], switch_branch = Branches[t] - 1;
    for (int i = 0; i < N; i++) {
      br[i] = (uint32_t)(test_rng() % Branches[t]);
      oc[i] = br[i] == switch_branch ? (uint32_t)(test_rng() % 20)
                                     : (uint32_t)(test_rng() % 3 == 0);
    }
    struct branch_stats s;
    branch_init(&s, Histories, NH);
    record_all(&s, br, oc, N);
    compare_with_reference(&s, br, oc, N, NULL);
    EXPECT(s.used == distinct_contexts(br, oc, N));
    EXPECT(s.capacity > 2048); /* it grew in place more than once */
    branch_free(&s);
  }
}

/* ---- sorted reference: the terms added in the documented order ----
 * A history length's entropy adds one term per (branch, history) context
 * in (branch, history, outcome) order, the history as a number with the
 * newest symbol lowest (4 bits each): so the result is the same to the
 * bit however the contexts are grouped.  This reference builds the
 * contexts per length with qsort and adds the terms in that order. */
struct sorted_context {
  uint32_t branch, outcome;
  uint64_t history, count;
};

static int by_sorted(const void *x, const void *y) {
  const struct sorted_context *a = x, *b = y;
  if (a->branch != b->branch)
    return a->branch < b->branch ? -1 : 1;
  if (a->history != b->history)
    return a->history < b->history ? -1 : 1;
  return (a->outcome > b->outcome) - (a->outcome < b->outcome);
}

static double xlog2x(double x) { return x > 0 ? x * log2(x) : 0.0; }

static double sorted_entropy(const uint32_t *br, const uint32_t *oc, size_t n,
                             unsigned h, int local) {
  struct sorted_context *c = calloc(n + 1, sizeof *c);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t history = 0;
    unsigned have = 0;
    for (size_t j = i; j-- > 0 && have < h;)
      if (!local || br[j] == br[i])
        history |= (uint64_t)symbol(oc[j]) << (4 * have++);
    if (have == h)
      c[m++] = (struct sorted_context){br[i], oc[i], history, 1};
  }
  qsort(c, m, sizeof *c, by_sorted);
  double sum = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < m;) {
    uint64_t context = 0;
    double inner = 0;
    size_t j = i;
    while (j < m && c[j].branch == c[i].branch &&
           c[j].history == c[i].history) {
      size_t k = j;
      uint64_t same = 0; /* one outcome's executions */
      for (; k < m && !by_sorted(&c[k], &c[j]); k++)
        same += c[k].count;
      context += same;
      inner += xlog2x((double)same);
      j = k;
    }
    sum += xlog2x((double)context) - inner;
    total += context;
    i = j;
  }
  free(c);
  return total ? sum / (double)total : 0.0;
}

/* Many contexts (a switch with 20 outcomes, 40 branches), entropies equal
 * to the bit to the sorted reference's. */
static void test_entropy_sum_order(void) {
  enum { N = 20000 };
  uint32_t *br = malloc(N * sizeof *br), *oc = malloc(N * sizeof *oc);
  for (int i = 0; i < N; i++) {
    br[i] = (uint32_t)(test_rng() % 40);
    oc[i] = br[i] % 8 == 0 ? (uint32_t)(test_rng() % 20)
                           : (uint32_t)(test_rng() % 3 == 0);
  }
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  record_all(&s, br, oc, N);
  struct branch_summary sum;
  EXPECT(branch_summarize(&s, &sum) == 0);
  EXPECT(sum.entropy == sorted_entropy(br, oc, N, 0, 0));
  for (int i = 0; i < NH; i++) {
    EXPECT(sum.global_entropy[i] == sorted_entropy(br, oc, N, Histories[i], 0));
    EXPECT(sum.local_entropy[i] == sorted_entropy(br, oc, N, Histories[i], 1));
  }
  branch_free(&s);
  free(br);
  free(oc);
}

static int keep_even(uint32_t b, void *arg) {
  (void)arg;
  return (b & 1) == 0;
}
static int counted_even(uint32_t b) { return (b & 1) == 0; }

/* Merging keeps the contexts of the accepted branches (their histories
 * still include the other branches' outcomes), a summary that keeps them
 * gives the merged copy's figures, and merged counts add. */
static void test_merge_filtered(void) {
  enum { N = 2000 };
  uint32_t br[N], oc[N];
  for (int i = 0; i < N; i++) {
    br[i] = (uint32_t)(test_rng() % 4);
    oc[i] = (uint32_t)((test_rng() % 4) == 0);
  }
  struct branch_stats s, even, twice;
  branch_init(&s, Histories, NH);
  branch_init(&even, Histories, NH);
  branch_init(&twice, Histories, NH);
  record_all(&s, br, oc, N);
  EXPECT(branch_merge(&even, &s, keep_even, NULL) == 0);
  compare_with_reference(&even, br, oc, N, counted_even);
  /* the same summary from s itself, without the copy: bit for bit */
  compare_kept_with_reference(&s, keep_even, br, oc, N, counted_even);
  struct branch_summary kept, copied;
  EXPECT(branch_summarize_kept(&s, keep_even, NULL, &kept) == 0);
  EXPECT(branch_summarize(&even, &copied) == 0);
  EXPECT(!memcmp(&kept, &copied, sizeof kept));
  branch_merge(&twice, &s, NULL, NULL);
  branch_merge(&twice, &s, NULL, NULL);
  struct branch_summary a, b;
  branch_summarize(&s, &a);
  branch_summarize(&twice, &b);
  EXPECT_EQ(b.executed, 2 * a.executed);
  CLOSE(a.global_entropy[2], b.global_entropy[2]); /* proportions unchanged */
  unsigned other[] = {1, 2};
  struct branch_stats bad;
  branch_init(&bad, other, 2);
  EXPECT(branch_merge(&bad, &s, NULL, NULL) == -1);
  branch_free(&bad);
  branch_free(&s);
  branch_free(&even);
  branch_free(&twice);
}

static void test_json_and_bad_init(void) {
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  for (int i = 0; i < 10; i++)
    branch_record(&s, 1, 1);
  json_object *j = branch_to_json(&s);
  EXPECT(j != NULL);
  EXPECT_EQ(json_object_get_int64(json_object_object_get(j, "executed")), 10);
  json_object *g = json_object_object_get(j, "global");
  EXPECT_EQ(json_object_array_length(g), NH);
  EXPECT_EQ(json_object_get_int(json_object_object_get(
                json_object_array_get_idx(g, 5), "history")),
            16);
  json_object_put(j);
  branch_free(&s);
  unsigned bad1[] = {0}, bad2[] = {4, 2}, bad3[] = {17};
  EXPECT(branch_init(&s, bad1, 1) == -1);
  branch_free(&s);
  EXPECT(branch_init(&s, bad2, 2) == -1);
  branch_free(&s);
  EXPECT(branch_init(&s, bad3, 1) == -1);
  branch_free(&s);
}

/* Sampled lengths (branch_set_sampling): with a cap no table reaches,
 * every figure is the exact one; with a cap of 150 contexts per length
 * the thresholds of 12 and 16 halve, the lengths up to 8 stay exact, and
 * each sampled length's figures are the brute force's terms over the
 * contexts its threshold keeps, divided by the rate times all the
 * executions of that length (Horvitz-Thompson).  Two tables share the
 * thresholds: a merge of both counts every execution twice. */
static void compare_sampled(const struct branch_stats *s,
                            const struct branch_sampling *g, const uint32_t *br,
                            const uint32_t *oc, size_t n) {
  struct branch_summary sum;
  EXPECT(branch_summarize(s, &sum) == 0);
  for (int i = 0; i < NH; i++)
    for (int local = 0; local < 2; local++) {
      double h, m, rate = branch_sampling_rate(g, (size_t)i);
      sampled_by = NULL;
      reference(br, oc, n, Histories[i], local, NULL, &h, &m);
      uint64_t all = ref_total;
      sampled_by = s;
      reference(br, oc, n, Histories[i], local, NULL, &h, &m);
      double scale = all ? (double)ref_total / (rate * (double)all) : 0;
      CLOSE(local ? sum.local_entropy[i] : sum.global_entropy[i], h * scale);
      CLOSE(local ? sum.local_miss[i] : sum.global_miss[i], m * scale);
    }
  sampled_by = NULL;
}

static void test_sampled_lengths(void) {
  enum { N = 3000 };
  uint32_t br[N], oc[N];
  for (int i = 0; i < N; i++) {
    br[i] = (uint32_t)(test_rng() % 40);
    oc[i] = br[i] == 39 ? (uint32_t)(test_rng() % 20)
                        : (uint32_t)(test_rng() % 3 == 0);
  }
  static const size_t Caps[] = {(size_t)1 << 40, 150};
  for (int t = 0; t < 2; t++) {
    struct branch_sampling g;
    branch_sampling_init(&g, Caps[t]);
    struct branch_stats s;
    branch_init(&s, Histories, NH);
    branch_set_sampling(&s, &g);
    record_all(&s, br, oc, N);
    if (!t) {
      sampled_by = &s;
      compare_with_reference(&s, br, oc, N, NULL);
    } else
      compare_sampled(&s, &g, br, oc, N);
    for (size_t i = 0; i < NH; i++) {
      double rate = branch_sampling_rate(&g, i);
      if (Histories[i] <= BRANCH_EXACT_HISTORY || !t)
        EXPECT(rate == 1.0);
      else
        EXPECT(rate < 1.0 && rate > 0 && s.n_long[i] <= 150);
    }
    /* the same events split in two tables, merged */
    struct branch_stats a, b, m;
    branch_init(&a, Histories, NH);
    branch_init(&b, Histories, NH);
    branch_init(&m, Histories, NH);
    branch_set_sampling(&a, &g);
    branch_set_sampling(&b, &g);
    record_all(&a, br, oc, N);
    record_all(&b, br, oc, N);
    EXPECT(branch_merge(&m, &a, NULL, NULL) == 0);
    EXPECT(branch_merge(&m, &b, NULL, NULL) == 0);
    struct branch_summary one, two;
    EXPECT(branch_summarize(&s, &one) == 0);
    EXPECT(branch_summarize(&m, &two) == 0);
    EXPECT(two.executed == 2 * one.executed);
    if (!t) /* one sample: twice the counts, the same ratios */
      for (int i = 0; i < NH; i++) {
        CLOSE(two.global_entropy[i], one.global_entropy[i]);
        CLOSE(two.local_miss[i], one.local_miss[i]);
      }
    sampled_by = NULL;
    branch_free(&s);
    branch_free(&a);
    branch_free(&b);
    branch_free(&m);
  }
}

/* A sampled length's estimate stays in its range.  Branches 16..16+K
 * each follow 16 branches that always give outcome 0, so at history 16
 * (global) each has one context, the 16 zero symbols, whose outcomes
 * cycle through 0..15 evenly: conditional entropy log2 16 = 4 bits and
 * ideal miss rate 15/16, by hand.  Their local histories make 16 contexts
 * each, so a cap of 256 contexts per length takes the rate far below 1.
 * A kept branch's Horvitz-Thompson terms are all its executions over rate
 * times them: 4 / rate bits and 15 / (16 rate) misses per execution, past
 * the 16 bits a context of 16-bit outcomes can have and past a miss per
 * execution (the document's schema refused the result).  A longer history
 * cannot raise the figures over the same executions, so those estimates
 * are brought down to the exact history-8 figures, 4 bits and 15/16 (here
 * the truth at history 16 too); the others are 0 (nothing kept). */
static uint32_t kept_branch;
static int only_kept_branch(uint32_t branch, void *arg) {
  (void)arg;
  return branch == kept_branch;
}

static void test_sampled_estimate_in_range(void) {
  enum { K = 256, DET = 16, ROUNDS = 2 };
  struct branch_sampling g;
  branch_sampling_init(&g, 256);
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  branch_set_sampling(&s, &g);
  for (uint32_t it = 0; it < K * 16 * ROUNDS; it++) {
    for (uint32_t j = 0; j < DET; j++)
      branch_record(&s, j, 0);
    branch_record(&s, DET + it % K, it / K % 16);
  }
  const size_t at16 = NH - 1;
  double rate = branch_sampling_rate(&g, at16);
  EXPECT(Histories[at16] == 16 && rate <= 1.0 / 32);
  int kept = 0;
  for (uint32_t k = 0; k < K; k++) {
    struct branch_summary sum;
    kept_branch = DET + k;
    EXPECT(branch_summarize_kept(&s, only_kept_branch, NULL, &sum) == 0);
    EXPECT_EQ(sum.executed, 16 * ROUNDS);
    /* the exact lengths: 4 bits and 15/16 */
    CLOSE(sum.global_entropy[0], 4);
    CLOSE(sum.global_miss[0], 15.0 / 16);
    if (branch_sampled_context(&s, 0, DET + k, 0, at16)) {
      kept++;
      CLOSE(sum.global_entropy[at16], 4);
      CLOSE(sum.global_miss[at16], 15.0 / 16);
    } else {
      CLOSE(sum.global_entropy[at16], 0);
      CLOSE(sum.global_miss[at16], 0);
    }
  }
  EXPECT(kept > 0); /* else the case tests nothing */
  branch_free(&s);
}

/* Counts past 32 bits: a context's slot holds up to UINT32_MAX and the
 * rest is counted in another slot.  One table of a branch taken one time
 * in four (2^22 executions: four contexts of 2^20 at the longest history
 * in each table), merged K times into another: every count is K times as
 * large, 8.6e9 at the longest history, past 2^32.  The figures are ratios
 * of counts, so they must be those of the one table; the executions must
 * be K times its (a count capped or wrapped at 32 bits is not), and the
 * contexts that passed 2^32 must have gone on in slots of their own. */
static void test_counts_past_32_bits(void) {
  enum { N = 1 << 22, K = 8200 };
  struct branch_stats one, all;
  branch_init(&one, Histories, NH);
  branch_init(&all, Histories, NH);
  for (uint32_t i = 0; i < N; i++)
    branch_record(&one, 7, (i & 3) == 0);
  for (int k = 0; k < K; k++)
    EXPECT(branch_merge(&all, &one, NULL, NULL) == 0);
  struct branch_summary a, b;
  EXPECT(branch_summarize(&one, &a) == 0);
  EXPECT(branch_summarize(&all, &b) == 0);
  EXPECT(a.executed == N);
  EXPECT(b.executed == (uint64_t)K * N);
  CLOSE(a.entropy, -(0.25 * log2(0.25) + 0.75 * log2(0.75)));
  CLOSE(b.entropy, a.entropy);
  for (int i = 0; i < NH; i++) {
    CLOSE(b.global_entropy[i], a.global_entropy[i]);
    CLOSE(b.global_miss[i], a.global_miss[i]);
    CLOSE(b.local_entropy[i], a.local_entropy[i]);
    CLOSE(b.local_miss[i], a.local_miss[i]);
  }
  EXPECT(all.used > one.used); /* the full contexts went on elsewhere */
  branch_free(&one);
  branch_free(&all);
}

/* branch_add_events against the brute-force reference over the outcomes
 * derived here from a random walk of block instances: each block ends in
 * a two-way branch, a three-way switch or no branch; an entered instance
 * after an instance of a branching block is the outcome "index of the
 * first successor equal to it" (a block a successor list names twice
 * takes the first index); a resumed instance, and one that lost its
 * context, follow no branch.  Batches of 1 to 400
 * instances, so that the contexts the function holds back to fetch
 * their slots ahead (up to 256) are counted across and within batches,
 * and a table that grows meanwhile. */
static void test_events_vs_reference(void) {
  enum { NB = 24, N = 4000 };
  static struct program_block blocks[NB];
  static uint32_t succ[NB][3];
  for (uint32_t b = 0; b < NB; b++) {
    unsigned kind = (unsigned)(test_rng() % 4); /* 0 none, 1-2 br, 3 switch */
    uint32_t n = kind == 0 ? 0 : kind == 3 ? 3 : 2;
    for (uint32_t k = 0; k < n; k++)
      succ[b][k] = (uint32_t)(test_rng() % NB);
    blocks[b] =
        (struct program_block){.n_successors = n, .successors = succ[b]};
  }
  const struct program p = {.blocks = blocks};
  uint32_t *block = malloc(N * sizeof *block), *br = malloc(N * sizeof *br),
           *oc = malloc(N * sizeof *oc);
  uint8_t *start = malloc(N);
  size_t n_rec = 0;
  uint32_t prev = PROGRAM_NONE;
  for (size_t i = 0; i < N; i++) {
    const struct program_block *pb = prev != PROGRAM_NONE ? &blocks[prev] : 0;
    unsigned r = (unsigned)(test_rng() % 20);
    start[i] = r == 0   ? INSTANCE_RESUMED
               : r == 1 ? INSTANCE_ENTERED | INSTANCE_LOST_CONTEXT
                        : INSTANCE_ENTERED;
    block[i] = pb && pb->n_successors && r > 2
                   ? succ[prev][test_rng() % pb->n_successors]
                   : (uint32_t)(test_rng() % NB);
    if (start[i] == INSTANCE_ENTERED && pb && pb->n_successors) {
      uint32_t k = 0;
      while (k < pb->n_successors && succ[prev][k] != block[i])
        k++;
      if (k < pb->n_successors) {
        br[n_rec] = prev;
        oc[n_rec++] = k;
      }
    }
    prev = block[i];
  }
  struct branch_stats s;
  branch_init(&s, Histories, NH);
  struct event_batch b;
  event_batch_init(&b);
  prev = PROGRAM_NONE;
  for (size_t i = 0, j; i < N; i = j) {
    j = i + 1 + (size_t)(test_rng() % 400);
    j = j < N ? j : N;
    EXPECT(event_batch_reset(&b, j - i, 0) == 0);
    b.block_before = prev;
    for (size_t k = i; k < j; k++)
      event_add_instance(&b, block[k], start[k], 0);
    b.first_access[b.n_instances] = 0;
    branch_add_events(&s, &p, &b);
    prev = block[j - 1];
  }
  event_batch_free(&b);
  EXPECT(n_rec > 2000);
  struct branch_summary sum;
  EXPECT(branch_summarize(&s, &sum) == 0);
  EXPECT_EQ(sum.executed, n_rec);
  compare_with_reference(&s, br, oc, n_rec, NULL);
  branch_free(&s);
  free(block);
  free(br);
  free(oc);
  free(start);
}

int main(void) {
  RUN(test_alternating);
  RUN(test_loop_and_alternating);
  RUN(test_random_bits);
  RUN(test_random_vs_reference);
  RUN(test_events_vs_reference);
  RUN(test_entropy_sum_order);
  RUN(test_merge_filtered);
  RUN(test_json_and_bad_init);
  RUN(test_counts_past_32_bits);
  RUN(test_sampled_lengths);
  RUN(test_sampled_estimate_in_range);
  return check_summary();
}
