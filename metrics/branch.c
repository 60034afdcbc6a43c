/* branch.c: branch behaviour statistics.  Every executed branch adds one
 * count to two contexts (its global and its local history at the longest
 * length) in one open-addressing table; the plain entropy and every shorter
 * history come from these counts when asked, by grouping on fewer symbols. */
#include "branch.h"
#include "budget.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* struct branch_context's table: GLOBAL or LOCAL, 0 when the slot is
 * free, with flags.  PENDING marks a context not yet moved while the table
 * grows; FULL one whose count reached UINT32_MAX: no lookup finds it again
 * (a key never has FULL), so the context's further executions are counted
 * in another slot, and the summaries add the two up as they add up the
 * contexts that are equal once cut to a shorter history. */
enum { GLOBAL = 1, LOCAL = 2, SIDE = 3, PENDING = 4, FULL = 8 };

/* The outcome of one branch after a history of `depth` symbols (the
 * longest length analysed, or fewer at the start).  20 bytes: a 32-bit
 * count (FULL above) and 4-byte alignment instead of 24 bytes with a
 * 64-bit count, a sixth less for the largest state of many runs
 * (docs/metrics-implementation.md "Branch behaviour"). */
struct __attribute__((packed, aligned(4))) branch_context {
  uint64_t history; /* newest symbol lowest */
  uint32_t branch;
  uint16_t outcome;
  uint8_t depth;
  uint8_t table;
  uint32_t count;
};
_Static_assert(sizeof(struct branch_context) == 20, "a context is 20 bytes");

/* A branch's own history, for local contexts. */
struct branch_local {
  uint64_t history;
  uint64_t seen; /* outcomes so far, up to BRANCH_MAX_HISTORY */
};

static uint64_t context_hash(const struct branch_context *c) {
  uint64_t tag = ((uint64_t)c->branch << 32) | ((uint64_t)c->outcome << 16) |
                 ((uint64_t)c->depth << 8) | (c->table & SIDE);
  return u64map_hash(c->history ^ u64map_hash(tag));
}

static int same_context(const struct branch_context *a,
                        const struct branch_context *b) {
  return a->table == b->table && a->branch == b->branch &&
         a->history == b->history && a->outcome == b->outcome &&
         a->depth == b->depth;
}

static struct branch_context *find_slot(struct branch_context *contexts,
                                        size_t capacity,
                                        const struct branch_context *key,
                                        uint64_t hash) {
  size_t i = hash & (capacity - 1);
  while (contexts[i].table && !same_context(&contexts[i], key))
    i = (i + 1) & (capacity - 1);
  return &contexts[i];
}

/* Moves every context of c[0..scan) to its place in the table
 * c[0..capacity), in place (grow below says how). */
static void rehash_in_place(struct branch_context *c, size_t capacity,
                            size_t scan) {
  size_t mask = capacity - 1;
  for (size_t i = 0; i < scan; i++)
    if (c[i].table)
      c[i].table |= PENDING;
  for (size_t i = 0; i < scan; i++)
    while (c[i].table & PENDING) {
      c[i].table &= (uint8_t)~PENDING;
      size_t p = context_hash(&c[i]) & mask;
      while (p != i && c[p].table && !(c[p].table & PENDING))
        p = (p + 1) & mask;
      if (p == i)
        break;
      struct branch_context moved = c[p];
      c[p] = c[i];
      c[i] = moved; /* free, or a pending context to place next */
    }
}

/* Doubles the table where it stands and moves every context to its place
 * under the new size.  realloc remaps a large table rather than copying
 * it, so the old and the new table are never resident together (a fresh
 * table beside the old one took half as much memory again at each doubling:
 * docs/metrics-implementation.md "Branch behaviour").  The move is in
 * place: every context is marked pending, then each pending one goes to
 * the first slot of its probe sequence that is free or pending, trading
 * places with a pending one.  A placed context's probe sequence then
 * crosses placed contexts only, which never move again, so it is found. */
static int grow(struct branch_stats *s) {
  size_t old = s->capacity, capacity = old ? 2 * old : 1024;
  struct branch_context *c = realloc(s->contexts, capacity * sizeof *c);
  if (!c)
    return -1;
  memset(c + old, 0, (capacity - old) * sizeof *c);
  rehash_in_place(c, capacity, old);
  budget_charge(budget_current(), (capacity - old) * sizeof *c);
  s->contexts = c;
  s->capacity = capacity;
  return 0;
}

/* Adds from->count to the context of from (whose flags do not matter),
 * whose context_hash is hash.  The table doubles before it is more than
 * 3/4 full (docs/metrics-implementation.md "Branch behaviour"); a count
 * that reaches UINT32_MAX is FULL and the rest goes on in a new slot. */
static void add_hashed(struct branch_stats *s,
                       const struct branch_context *from, uint64_t hash) {
  struct branch_context key = *from;
  key.table &= SIDE;
  for (uint32_t n = key.count; n;) {
    if (4 * (s->used + 1) > 3 * s->capacity && grow(s)) {
      s->out_of_memory = 1;
      return;
    }
    struct branch_context *c = find_slot(s->contexts, s->capacity, &key, hash);
    if (!c->table) {
      *c = key;
      c->count = 0;
      s->used++;
    }
    uint32_t room = UINT32_MAX - c->count, take = n < room ? n : room;
    c->count += take;
    n -= take;
    if (c->count == UINT32_MAX)
      c->table |= FULL;
  }
}

static void add(struct branch_stats *s, const struct branch_context *from) {
  struct branch_context key = *from;
  key.table &= SIDE; /* the hash of the key without flags */
  add_hashed(s, &key, context_hash(&key));
}

int branch_init(struct branch_stats *s, const unsigned *histories, size_t n) {
  memset(s, 0, sizeof *s);
  if (n > BRANCH_MAX_HISTORIES)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (histories[i] < 1 || histories[i] > BRANCH_MAX_HISTORY ||
        (i && histories[i] <= histories[i - 1]))
      return -1;
  memcpy(s->histories, histories, n * sizeof *histories);
  s->n_histories = n;
  return 0;
}

void branch_free(struct branch_stats *s) {
  budget_release(budget_current(),
                 s->n_local * sizeof *s->local +
                     s->capacity * sizeof *s->contexts +
                     s->n_executed * 2 * s->n_histories * sizeof *s->executed);
  free(s->local);
  free(s->contexts);
  free(s->executed);
  s->local = NULL;
  s->contexts = NULL;
  s->executed = NULL;
  s->n_local = s->capacity = s->used = s->n_executed = 0;
}

static uint64_t history_mask(unsigned h) {
  return h * BRANCH_SYMBOL_BITS >= 64
             ? ~UINT64_C(0)
             : (UINT64_C(1) << (h * BRANCH_SYMBOL_BITS)) - 1;
}

/* How many of the lengths are exact: all, or with sampling those up to
 * BRANCH_EXACT_HISTORY. */
static size_t n_exact(const struct branch_stats *s) {
  size_t n = s->n_histories;
  if (s->sampling)
    while (n && s->histories[n - 1] > BRANCH_EXACT_HISTORY)
      n--;
  return n;
}

/* The history length the exact contexts are cut to: the longest exact
 * length (0 without any). */
static unsigned longest(const struct branch_stats *s) {
  size_t n = n_exact(s);
  return n ? s->histories[n - 1] : 0;
}

/* Entry `branch` of an array of `size`-byte entries indexed by branch
 * id, *array grown (new entries 0, charged to the budget) to cover it;
 * NULL when out of memory. */
static void *by_branch(void **array, size_t *n, size_t size, uint32_t branch) {
  if (branch >= *n) {
    size_t m = *n ? *n : 256;
    while (m <= branch)
      m *= 2;
    char *a = realloc(*array, m * size);
    if (!a)
      return NULL;
    memset(a + *n * size, 0, (m - *n) * size);
    budget_charge(budget_current(), (m - *n) * size);
    *array = a;
    *n = m;
  }
  return (char *)*array + branch * size;
}

/* The local history of branch, the table grown to cover it; NULL when out
 * of memory.  Branch ids are static block ids, so the table is as large as
 * the program, not the run. */
static struct branch_local *local_of(struct branch_stats *s, uint32_t branch) {
  void *local = s->local;
  struct branch_local *l =
      by_branch(&local, &s->n_local, sizeof *s->local, branch);
  s->local = local;
  return l;
}

/* The context of one outcome after a history of `seen` symbols (or
 * more). */
static struct branch_context outcome_context(const struct branch_stats *s,
                                             uint8_t table, uint32_t branch,
                                             uint64_t history, uint64_t seen,
                                             uint16_t outcome) {
  unsigned h = longest(s);
  unsigned depth = seen < h ? (unsigned)seen : h;
  return (struct branch_context){
      history & history_mask(h), branch, outcome, (uint8_t)depth, table, 1};
}

static void shift_in(uint64_t *history, uint64_t *seen, uint64_t symbol) {
  *history = *history << BRANCH_SYMBOL_BITS | symbol;
  if (*seen < BRANCH_MAX_HISTORY)
    ++*seen;
}

/* ---- Sampled lengths ----------------------------------------------------
 * With sampling, a length h above BRANCH_EXACT_HISTORY keeps contexts of
 * its own (depth h, the history cut to h), for the (side, branch,
 * history) whose hash is below the length's threshold: every outcome of
 * a kept (branch, history) is counted, and the length's executions are
 * counted exactly, so its figures are Horvitz-Thompson estimates over a
 * hash sample of its contexts (estimate below).  Cutting a sample of the
 * longest contexts instead would bias the shorter lengths low (a subset
 * of a mixture has less entropy).  When a table holds more than the cap
 * of one length, the threshold halves and the contexts above it leave
 * the table. */

/* The hash a (side, branch, history cut to h) is admitted by: that of
 * its context with outcome 0, so every outcome of it goes together. */
static uint64_t admission_hash(unsigned side, uint32_t branch, uint64_t history,
                               unsigned h) {
  struct branch_context key = {history,    branch,        0,
                               (uint8_t)h, (uint8_t)side, 0};
  return context_hash(&key);
}

static uint64_t threshold(const struct branch_stats *s, size_t i) {
  return __atomic_load_n(&s->sampling->threshold[i], __ATOMIC_RELAXED);
}

/* The index of length h in s->histories (a sampled length). */
static size_t length_index(const struct branch_stats *s, unsigned h) {
  size_t i = 0;
  while (i < s->n_histories && s->histories[i] != h)
    i++;
  return i;
}

/* Whether context c (a sampled length's, depth above the exact ones) is
 * under its length's threshold now. */
static int kept_sample(const struct branch_stats *s,
                       const struct branch_context *c) {
  size_t i = length_index(s, c->depth);
  return i < s->n_histories &&
         admission_hash(c->table & SIDE, c->branch, c->history, c->depth) <
             threshold(s, i);
}

void branch_sampling_init(struct branch_sampling *g, size_t cap) {
  for (size_t i = 0; i < BRANCH_MAX_HISTORIES; i++)
    g->threshold[i] = UINT64_MAX;
  g->cap = cap;
}

double branch_sampling_rate(const struct branch_sampling *g, size_t i) {
  uint64_t t = __atomic_load_n(&g->threshold[i], __ATOMIC_RELAXED);
  return t == UINT64_MAX ? 1.0 : (double)t / 18446744073709551616.0;
}

void branch_set_sampling(struct branch_stats *s, struct branch_sampling *g) {
  s->sampling = g;
}

int branch_sampled_context(const struct branch_stats *s, int local,
                           uint32_t branch, uint64_t history, size_t i) {
  unsigned h = s->histories[i];
  return admission_hash(local ? LOCAL : GLOBAL, branch,
                        history & history_mask(h), h) < threshold(s, i);
}

/* Halves the threshold of length index i (for every table) until this
 * table holds no more than the cap of it, and takes the contexts above
 * their thresholds out. */
static void shrink(struct branch_stats *s, size_t i) {
  struct branch_context *c = s->contexts;
  do {
    uint64_t t = threshold(s, i);
    while (t &&
           !__atomic_compare_exchange_n(&s->sampling->threshold[i], &t, t / 2,
                                        0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      ;
    memset(s->n_long, 0, sizeof s->n_long);
    for (size_t k = 0; k < s->capacity; k++) {
      if (!c[k].table || c[k].depth <= BRANCH_EXACT_HISTORY)
        continue;
      if (kept_sample(s, &c[k]))
        s->n_long[length_index(s, c[k].depth)]++;
      else {
        c[k].table = 0;
        s->used--;
      }
    }
    rehash_in_place(c, s->capacity, s->capacity);
  } while (s->n_long[i] > s->sampling->cap && threshold(s, i));
}

/* The executions of `branch` by side and length (2 x n_histories
 * counts), the array grown to cover it; NULL when out of memory. */
static uint64_t *executed_of(struct branch_stats *s, uint32_t branch) {
  void *executed = s->executed;
  uint64_t *e = by_branch(&executed, &s->n_executed,
                          2 * s->n_histories * sizeof *s->executed, branch);
  s->executed = executed;
  return e;
}

/* The sampled lengths' contexts of one outcome, and their executions,
 * counted exactly per (branch, side, length): what the summaries divide
 * by. */
static void add_sampled(struct branch_stats *s, uint8_t side, uint32_t branch,
                        uint64_t history, uint64_t seen, uint16_t outcome) {
  uint64_t *executed = executed_of(s, branch);
  if (!executed) {
    s->out_of_memory = 1;
    return;
  }
  executed += (side == LOCAL) * s->n_histories;
  for (size_t i = n_exact(s); i < s->n_histories; i++) {
    unsigned h = s->histories[i];
    if (seen < h)
      return;
    executed[i]++;
    uint64_t cut = history & history_mask(h);
    if (admission_hash(side, branch, cut, h) >= threshold(s, i))
      continue;
    struct branch_context key = {cut, branch, outcome, (uint8_t)h, side, 1};
    size_t before = s->used;
    add(s, &key);
    if (s->used > before && ++s->n_long[i] > s->sampling->cap)
      shrink(s, i);
  }
}

/* One executed branch: its global and local contexts at the longest exact
 * length into keys[0..2) (not counted yet), its sampled lengths counted,
 * and both histories moved on.  0, or -1 when memory ran out. */
static int record(struct branch_stats *s, uint32_t branch, uint32_t outcome,
                  struct branch_context keys[2]) {
  uint16_t o = outcome > UINT16_MAX ? UINT16_MAX : (uint16_t)outcome;
  uint64_t symbol = outcome < 15 ? outcome : 15;
  struct branch_local *local = local_of(s, branch);
  if (!local) {
    s->out_of_memory = 1;
    return -1;
  }
  keys[0] = outcome_context(s, GLOBAL, branch, s->global, s->global_seen, o);
  keys[1] = outcome_context(s, LOCAL, branch, local->history, local->seen, o);
  if (s->sampling) {
    add_sampled(s, GLOBAL, branch, s->global, s->global_seen, o);
    add_sampled(s, LOCAL, branch, local->history, local->seen, o);
  }
  shift_in(&s->global, &s->global_seen, symbol);
  shift_in(&local->history, &local->seen, symbol);
  return 0;
}

void branch_record(struct branch_stats *s, uint32_t branch, uint32_t outcome) {
  struct branch_context keys[2];
  if (record(s, branch, outcome, keys))
    return;
  add(s, &keys[0]);
  add(s, &keys[1]);
}

/* The outcome of leaving block `from` for block `to`: the index of the
 * first successor that is `to`, or PROGRAM_NONE (not a conditional branch,
 * or a non-local jump). */
static uint32_t outcome_of(const struct program *p, uint32_t from,
                           uint32_t to) {
  const struct program_block *b = &p->blocks[from];
  for (uint32_t k = 0; k < b->n_successors; k++)
    if (b->successors[k] == to)
      return k;
  return PROGRAM_NONE;
}

/* The contexts branch_add_events has found and not yet counted, with
 * their hashes: counted PENDING_AHEAD behind the one whose slot is being
 * fetched, so that the misses on a table larger than the caches overlap
 * (counting is commutative: the counts are those of branch_record). */
#define PENDING_KEYS 256
#define PENDING_AHEAD 8
struct pending {
  struct branch_context key[PENDING_KEYS];
  uint64_t hash[PENDING_KEYS];
  size_t n;
};

/* Inlined always: GCC drops the calls of a function that only prefetches
 * when it does not inline it (metrics/u64map.h, u64map_prefetch). */
static ALWAYS_INLINE void prefetch_slot(const struct branch_stats *s,
                                        uint64_t hash) {
  if (s->contexts)
    __builtin_prefetch(&s->contexts[hash & (s->capacity - 1)], 1, 1);
}

static void count_pending(struct branch_stats *s, struct pending *q) {
  for (size_t j = 0; j < q->n; j++) {
    if (j + PENDING_AHEAD < q->n)
      prefetch_slot(s, q->hash[j + PENDING_AHEAD]);
    add_hashed(s, &q->key[j], q->hash[j]);
  }
  q->n = 0;
}

void branch_add_events(struct branch_stats *s, const struct program *p,
                       const struct event_batch *b) {
  struct pending q;
  q.n = 0;
  uint32_t prev = b->block_before;
  for (size_t i = 0; i < b->n_instances; i++) {
    uint32_t id = b->block[i];
    if (b->start[i] & INSTANCE_LOST_CONTEXT)
      prev = PROGRAM_NONE;
    if ((b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED &&
        prev != PROGRAM_NONE) {
      uint32_t outcome = outcome_of(p, prev, id);
      if (outcome != PROGRAM_NONE && !record(s, prev, outcome, &q.key[q.n])) {
        for (size_t k = q.n; k < q.n + 2; k++) {
          q.hash[k] = context_hash(&q.key[k]);
          if (k < PENDING_AHEAD)
            prefetch_slot(s, q.hash[k]);
        }
        if ((q.n += 2) == PENDING_KEYS)
          count_pending(s, &q);
      }
    }
    prev = id;
  }
  count_pending(s, &q);
}

void branch_forget_histories(struct branch_stats *s) {
  s->global = 0;
  s->global_seen = 0;
  if (s->local)
    memset(s->local, 0, s->n_local * sizeof *s->local);
}

int branch_merge(struct branch_stats *dst, const struct branch_stats *src,
                 branch_keep keep, void *arg) {
  if (dst->n_histories != src->n_histories ||
      memcmp(dst->histories, src->histories,
             src->n_histories * sizeof *src->histories))
    return -1;
  if (!dst->sampling)
    dst->sampling = src->sampling;
  size_t stride = 2 * src->n_histories;
  for (uint32_t b = 0; b < src->n_executed; b++) {
    const uint64_t *from = src->executed + b * stride;
    uint64_t *to;
    if (keep && !keep(b, arg))
      continue;
    if (!(to = executed_of(dst, b))) {
      dst->out_of_memory = 1;
      break;
    }
    for (size_t k = 0; k < stride; k++)
      to[k] += from[k];
  }
  for (size_t i = 0; i < src->capacity; i++) {
    const struct branch_context *c = &src->contexts[i];
    if (!c->table || (keep && !keep(c->branch, arg)))
      continue;
    if (!src->sampling || c->depth <= BRANCH_EXACT_HISTORY) {
      add(dst, c);
      continue;
    }
    if (!kept_sample(src, c)) /* above a threshold lowered since */
      continue;
    size_t before = dst->used;
    add(dst, c);
    if (dst->used > before)
      dst->n_long[length_index(src, c->depth)]++;
  }
  dst->out_of_memory |= src->out_of_memory;
  return dst->out_of_memory ? -1 : 0;
}

/* ---- Every history length from one sort ------------------------------
 * A length's figures need its contexts cut to h symbols, merged, and in
 * (branch, history, outcome) order (the order the entropy terms add up
 * in).  A radix sort from the least significant digit, by outcome and
 * then by the history's symbols from the newest, leaves the contexts in
 * (history cut to h, outcome) order after h symbol passes; a stable
 * counting sort by branch of those with a history of h symbols or more
 * then gives length h's order.  So the contexts are sorted once for all
 * lengths, in linear passes, instead of once per length.  What is sorted
 * is the contexts' positions in the table (4 bytes each, two arrays),
 * not copies of them (20 bytes each): the summaries of a large table then
 * need 8 bytes per context beside it (a table 3/8 to 3/4 full holds 27
 * to 53 bytes per context), not twice its size
 * (docs/metrics-implementation.md "Branch behaviour"). */

/* A digit: bits [shift, shift + log2(n_digits)) of the outcome or of the
 * history, or the branch. */
enum digit { OUTCOME, HISTORY, BRANCH };

static ALWAYS_INLINE size_t digit_of(const struct branch_context *c,
                                     enum digit d, unsigned shift,
                                     size_t n_digits) {
  return d == OUTCOME   ? (c->outcome >> shift) & (n_digits - 1)
         : d == HISTORY ? (c->history >> shift) & (n_digits - 1)
                        : c->branch;
}

/* Contexts are read through their positions, in no order the hardware
 * can predict: each loop asks for the one this far ahead. */
#define PREFETCH 16

/* dst = the positions src[0..n) of contexts in c with a depth of
 * min_depth or more, stably ordered by digit d (values below n_digits;
 * count has room for n_digits + 1); returns how many. */
static ALWAYS_INLINE size_t counting_sort(uint32_t *dst, const uint32_t *src,
                                          size_t n,
                                          const struct branch_context *c,
                                          enum digit d, unsigned shift,
                                          unsigned min_depth, size_t *count,
                                          size_t n_digits) {
  memset(count, 0, (n_digits + 1) * sizeof *count);
  for (size_t i = 0; i < n; i++) {
    if (i + PREFETCH < n)
      __builtin_prefetch(&c[src[i + PREFETCH]]);
    if (c[src[i]].depth >= min_depth)
      count[digit_of(&c[src[i]], d, shift, n_digits) + 1]++;
  }
  for (size_t k = 0; k < n_digits; k++)
    count[k + 1] += count[k];
  size_t kept = count[n_digits];
  for (size_t i = 0; i < n; i++) {
    if (i + PREFETCH < n)
      __builtin_prefetch(&c[src[i + PREFETCH]]);
    if (c[src[i]].depth >= min_depth)
      dst[count[digit_of(&c[src[i]], d, shift, n_digits)]++] = src[i];
  }
  return kept;
}

static double xlog2x(double x) { return x > 0 ? x * log2(x) : 0.0; }

/* Conditional entropy and ideal miss rate at history length h of the
 * contexts at positions sorted[0..n) of c, in (branch, history cut to h,
 * outcome) order; those that are equal once cut are merged as they come.
 * H = sum_s (n_s log n_s - sum_o n_so log n_so) / N, miss = 1 - sum_s
 * max_o n_so / N.  Returns N. */
static uint64_t table_summary(const struct branch_context *c,
                              const uint32_t *sorted, size_t n, unsigned h,
                              double *entropy, double *miss) {
  uint64_t mask = history_mask(h), total = 0, hits = 0;
  double sum = 0;
  for (size_t i = 0; i < n;) {
    uint32_t branch = c[sorted[i]].branch;
    uint64_t history = c[sorted[i]].history & mask, context = 0, best = 0;
    double inner = 0;
    while (i < n && c[sorted[i]].branch == branch &&
           (c[sorted[i]].history & mask) == history) {
      uint16_t outcome = c[sorted[i]].outcome;
      uint64_t count = 0;
      for (; i < n && c[sorted[i]].branch == branch &&
             (c[sorted[i]].history & mask) == history &&
             c[sorted[i]].outcome == outcome;
           i++) {
        if (i + PREFETCH < n)
          __builtin_prefetch(&c[sorted[i + PREFETCH]]);
        count += c[sorted[i]].count;
      }
      context += count;
      best = count > best ? count : best;
      inner += xlog2x((double)count);
    }
    sum += xlog2x((double)context) - inner;
    total += context;
    hits += best;
  }
  *entropy = total ? sum / (double)total : 0.0;
  *miss = total ? (double)(total - hits) / (double)total : 0.0;
  return total;
}

/* The figures of one table (radix passes above) from the positions
 * a[0..n) of its contexts (reordered here), whose branch ids are below
 * n_branches, with outcomes above 0xff when `wide`: history length h's
 * from the contexts with h symbols or more, cut to h.  The history passes
 * take two symbols at a time where no length falls between them.  plain:
 * the global table also gives the plain entropy (h = 0).  Returns the
 * executions counted, or UINT64_MAX when memory ran out. */
static uint64_t tables_summary(const struct branch_stats *s,
                               const unsigned *lengths, size_t n_lengths,
                               uint32_t *a, size_t n, size_t n_branches,
                               int wide, double *entropy, double *miss,
                               double *plain) {
  const struct branch_context *c = s->contexts;
  uint32_t *other = malloc((n ? n : 1) * sizeof *other), *b = other;
  size_t n_digits = n_branches > 256 ? n_branches : 256;
  size_t *count = malloc((n_digits + 1) * sizeof *count);
  uint64_t total = UINT64_MAX;
  if (!other || !count)
    goto out;
  for (unsigned shift = 0; shift < (wide ? 16u : 8u); shift += 8) {
    counting_sort(b, a, n, c, OUTCOME, shift, 0, count, 256);
    uint32_t *t = a;
    a = b;
    b = t;
  }
  size_t next = 0;   /* the next length in s->histories */
  unsigned done = 0; /* a: by (history cut to done symbols, outcome) */
  for (;;) {
    int wanted = next < n_lengths && lengths[next] == done;
    if (wanted || (!done && plain)) {
      size_t m = counting_sort(b, a, n, c, BRANCH, 0, done, count, n_branches);
      double unused;
      if (wanted) {
        table_summary(c, b, m, done, &entropy[next], &miss[next]);
        next++;
      } else {
        total = table_summary(c, b, m, 0, plain, &unused);
      }
    }
    if (next == n_lengths)
      break;
    unsigned step = lengths[next] - done >= 2 ? 2 : 1;
    counting_sort(b, a, n, c, HISTORY, done * BRANCH_SYMBOL_BITS, 0, count,
                  (size_t)1 << (step * BRANCH_SYMBOL_BITS));
    uint32_t *t = a;
    a = b;
    b = t;
    done += step;
  }
  if (!plain)
    total = 0;
out:
  free(other);
  free(count);
  return total;
}

/* Which contexts a summary pass takes: every one (no sampling), the
 * exact lengths' (depth up to BRANCH_EXACT_HISTORY), or a sampled
 * length's (depth `depth`, under its threshold). */
static int selected(const struct branch_stats *s,
                    const struct branch_context *c, unsigned depth) {
  if (!s->sampling)
    return 1;
  if (!depth)
    return c->depth <= BRANCH_EXACT_HISTORY;
  return c->depth == depth && kept_sample(s, c);
}

/* One pass over the table: the positions of the global table's contexts
 * whose branch keep accepts (all when NULL) and that pass `depth`
 * (selected) from at[0] up, the local table's from at[s->used - 1] down;
 * n[0] and n[1] of them. */
static void kept_positions(const struct branch_stats *s, branch_keep keep,
                           void *arg, unsigned depth, uint32_t *at, size_t n[2],
                           size_t *n_branches, int *wide) {
  const struct branch_context *c = s->contexts;
  n[0] = n[1] = *n_branches = 0;
  *wide = 0;
  for (size_t i = 0; i < s->capacity; i++) {
    if (!c[i].table || (keep && !keep(c[i].branch, arg)) ||
        !selected(s, &c[i], depth))
      continue;
    if (n[0] + n[1] == s->used) /* s->used counts every context: never */
      break;
    if ((c[i].table & SIDE) == GLOBAL)
      at[n[0]++] = (uint32_t)i;
    else
      at[s->used - ++n[1]] = (uint32_t)i;
    if (c[i].branch >= *n_branches)
      *n_branches = (size_t)c[i].branch + 1;
    *wide |= c[i].outcome > 0xff;
  }
}

/* A sampled length's figures from its kept contexts at positions
 * at[0..n) of one side: their entropy and miss terms, summed, over rate
 * times the length's executions (Horvitz-Thompson, every context kept
 * with probability `rate`).  Dividing by the kept contexts' own
 * executions instead would make the few contexts that carry most
 * executions, with an entropy near 0 (a loop branch's), weigh on
 * whether the sample caught them: on bzip2 that put the local history-16
 * entropy 0.18 bit (81%) above that of the run that kept every context. */
static void estimate(const struct branch_stats *s, branch_keep keep, void *arg,
                     size_t length, const uint32_t *at, size_t n, unsigned side,
                     double *entropy, double *miss, double rate,
                     double entropy_bound, double miss_bound) {
  const struct branch_context *c = s->contexts;
  uint64_t kept = 0, executed = 0;
  for (size_t i = 0; i < n; i++)
    kept += c[at[i]].count;
  size_t stride = 2 * s->n_histories,
         at_side = (side == LOCAL) * s->n_histories + length;
  for (uint32_t b = 0; b < s->n_executed; b++)
    if (!keep || keep(b, arg))
      executed += s->executed[b * stride + at_side];
  double scale = executed ? (double)kept / (rate * (double)executed) : 0;
  /* A kept context heavier than its share (one carrying most of the
   * executions) scales past what the figures can be (1 / rate times 15/16
   * misses failed the schema): they stay within the bounds (summary_pass
   * says which). */
  *entropy = fmin(*entropy * scale, entropy_bound);
  *miss = fmin(*miss * scale, miss_bound);
}

/* One summary pass over the contexts `depth` selects (0: the exact
 * lengths', which also give the plain entropy and the executions): the
 * figures of lengths [from, from + count) of s->histories.  at has room
 * for s->used positions.  -1 when memory ran out. */
static int summary_pass(const struct branch_stats *s, branch_keep keep,
                        void *arg, unsigned depth, size_t from, size_t count,
                        uint32_t *at, struct branch_summary *out) {
  size_t n[2], n_branches;
  int wide;
  kept_positions(s, keep, arg, depth, at, n, &n_branches, &wide);
  uint64_t global =
      tables_summary(s, s->histories + from, count, at, n[0], n_branches, wide,
                     out->global_entropy + from, out->global_miss + from,
                     depth ? NULL : &out->entropy);
  uint64_t local = tables_summary(
      s, s->histories + from, count, at + s->used - n[1], n[1], n_branches,
      wide, out->local_entropy + from, out->local_miss + from, NULL);
  if (!depth)
    out->executed = global;
  else if (threshold(s, from) != UINT64_MAX) {
    /* The bounds of a sampled length's estimate: the figures' ranges (the
     * 16 bits of a context's 16-bit outcomes, a miss per execution), and
     * the longest exact length's figures (computed by the first pass): a
     * longer history splits the contexts of a shorter one, so over the
     * same executions its conditional entropy and ideal miss rate are at
     * most the shorter one's, and an estimate above them is brought down
     * to them, never further from the truth.  (A length of h counts the
     * executions after h earlier ones in its history, so the longer
     * length's executions are the shorter one's but a few at the start of
     * each history: the bound holds but for those.) */
    size_t e = n_exact(s);
    double gh = e ? fmin(out->global_entropy[e - 1], 16) : 16,
           gm = e ? fmin(out->global_miss[e - 1], 1) : 1,
           lh = e ? fmin(out->local_entropy[e - 1], 16) : 16,
           lm = e ? fmin(out->local_miss[e - 1], 1) : 1;
    estimate(s, keep, arg, from, at, n[0], GLOBAL, &out->global_entropy[from],
             &out->global_miss[from], branch_sampling_rate(s->sampling, from),
             gh, gm);
    estimate(s, keep, arg, from, at + s->used - n[1], n[1], LOCAL,
             &out->local_entropy[from], &out->local_miss[from],
             branch_sampling_rate(s->sampling, from), lh, lm);
  }
  return global == UINT64_MAX || local == UINT64_MAX ? -1 : 0;
}

int branch_summarize_kept(const struct branch_stats *s, branch_keep keep,
                          void *arg, struct branch_summary *out) {
  memset(out, 0, sizeof *out);
  /* positions are 32 bits: 2^32 contexts would be 96 GiB */
  uint32_t *at = s->capacity <= UINT32_MAX
                     ? malloc((s->used ? s->used : 1) * sizeof *at)
                     : NULL;
  int failed = 0;
  if (!at)
    return -1;
  size_t exact = n_exact(s);
  failed |= summary_pass(s, keep, arg, 0, 0, exact, at, out);
  for (size_t i = exact; i < s->n_histories; i++)
    failed |= summary_pass(s, keep, arg, s->histories[i], i, 1, at, out);
  free(at);
  if (failed) {
    memset(out, 0, sizeof *out);
    return -1;
  }
  return 0;
}

int branch_summarize(const struct branch_stats *s, struct branch_summary *out) {
  return branch_summarize_kept(s, NULL, NULL, out);
}

static json_object *histories_json(const struct branch_stats *s,
                                   const double *entropy, const double *miss) {
  json_object *a = json_object_new_array();
  for (size_t i = 0; i < s->n_histories; i++) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "history",
                           json_object_new_int((int)s->histories[i]));
    json_object_object_add(o, "entropy", json_object_new_double(entropy[i]));
    json_object_object_add(o, "miss_rate", json_object_new_double(miss[i]));
    json_object_array_add(a, o);
  }
  return a;
}

struct json_object *branch_to_json_kept(const struct branch_stats *s,
                                        branch_keep keep, void *arg) {
  struct branch_summary sum;
  if (branch_summarize_kept(s, keep, arg, &sum))
    return NULL;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "executed", json_object_new_uint64(sum.executed));
  json_object_object_add(o, "entropy", json_object_new_double(sum.entropy));
  json_object_object_add(
      o, "global", histories_json(s, sum.global_entropy, sum.global_miss));
  json_object_object_add(o, "local",
                         histories_json(s, sum.local_entropy, sum.local_miss));
  return o;
}

struct json_object *branch_to_json(const struct branch_stats *s) {
  return branch_to_json_kept(s, NULL, NULL);
}
