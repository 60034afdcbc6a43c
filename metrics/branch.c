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
                                        const struct branch_context *key) {
  size_t i = context_hash(key) & (capacity - 1);
  while (contexts[i].table && !same_context(&contexts[i], key))
    i = (i + 1) & (capacity - 1);
  return &contexts[i];
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
  size_t old = s->capacity, capacity = old ? 2 * old : 1024,
         mask = capacity - 1;
  struct branch_context *c = realloc(s->contexts, capacity * sizeof *c);
  if (!c)
    return -1;
  memset(c + old, 0, (capacity - old) * sizeof *c);
  for (size_t i = 0; i < old; i++)
    if (c[i].table)
      c[i].table |= PENDING;
  for (size_t i = 0; i < old; i++)
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
  budget_charge(budget_current(), (capacity - old) * sizeof *c);
  s->contexts = c;
  s->capacity = capacity;
  return 0;
}

/* Adds from->count to the context of from (whose flags do not matter).
 * The table doubles before it is more than 3/4 full
 * (docs/metrics-implementation.md "Branch behaviour"); a count that
 * reaches UINT32_MAX is FULL and the rest goes on in a new slot. */
static void add(struct branch_stats *s, const struct branch_context *from) {
  struct branch_context key = *from;
  key.table &= SIDE;
  for (uint32_t n = key.count; n;) {
    if (4 * (s->used + 1) > 3 * s->capacity && grow(s)) {
      s->out_of_memory = 1;
      return;
    }
    struct branch_context *c = find_slot(s->contexts, s->capacity, &key);
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
  budget_release(budget_current(), s->n_local * sizeof *s->local +
                                       s->capacity * sizeof *s->contexts);
  free(s->local);
  free(s->contexts);
  s->local = NULL;
  s->contexts = NULL;
  s->n_local = s->capacity = s->used = 0;
}

static uint64_t history_mask(unsigned h) {
  return h * BRANCH_SYMBOL_BITS >= 64
             ? ~UINT64_C(0)
             : (UINT64_C(1) << (h * BRANCH_SYMBOL_BITS)) - 1;
}

/* The longest history length analysed (0 without any). */
static unsigned longest(const struct branch_stats *s) {
  return s->n_histories ? s->histories[s->n_histories - 1] : 0;
}

/* The local history of branch, the table grown to cover it; NULL when out
 * of memory.  Branch ids are static block ids, so the table is as large as
 * the program, not the run. */
static struct branch_local *local_of(struct branch_stats *s, uint32_t branch) {
  if (branch >= s->n_local) {
    size_t n = s->n_local ? s->n_local : 256;
    while (n <= branch)
      n *= 2;
    struct branch_local *l = realloc(s->local, n * sizeof *l);
    if (!l)
      return NULL;
    memset(l + s->n_local, 0, (n - s->n_local) * sizeof *l);
    budget_charge(budget_current(), (n - s->n_local) * sizeof *l);
    s->local = l;
    s->n_local = n;
  }
  return &s->local[branch];
}

/* Counts one outcome after a history of `seen` symbols (or more). */
static void add_outcome(struct branch_stats *s, uint8_t table, uint32_t branch,
                        uint64_t history, uint64_t seen, uint16_t outcome) {
  unsigned h = longest(s);
  unsigned depth = seen < h ? (unsigned)seen : h;
  struct branch_context key = {
      history & history_mask(h), branch, outcome, (uint8_t)depth, table, 1};
  add(s, &key);
}

static void shift_in(uint64_t *history, uint64_t *seen, uint64_t symbol) {
  *history = *history << BRANCH_SYMBOL_BITS | symbol;
  if (*seen < BRANCH_MAX_HISTORY)
    ++*seen;
}

void branch_record(struct branch_stats *s, uint32_t branch, uint32_t outcome) {
  uint16_t o = outcome > UINT16_MAX ? UINT16_MAX : (uint16_t)outcome;
  uint64_t symbol = outcome < 15 ? outcome : 15;
  struct branch_local *local = local_of(s, branch);
  if (!local) {
    s->out_of_memory = 1;
    return;
  }
  add_outcome(s, GLOBAL, branch, s->global, s->global_seen, o);
  add_outcome(s, LOCAL, branch, local->history, local->seen, o);
  shift_in(&s->global, &s->global_seen, symbol);
  shift_in(&local->history, &local->seen, symbol);
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

void branch_add_events(struct branch_stats *s, const struct program *p,
                       const struct event_batch *b) {
  uint32_t prev = b->block_before;
  for (size_t i = 0; i < b->n_instances; i++) {
    uint32_t id = b->block[i];
    if (b->start[i] & INSTANCE_LOST_CONTEXT)
      prev = PROGRAM_NONE;
    if ((b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED &&
        prev != PROGRAM_NONE) {
      uint32_t outcome = outcome_of(p, prev, id);
      if (outcome != PROGRAM_NONE)
        branch_record(s, prev, outcome);
    }
    prev = id;
  }
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
  for (size_t i = 0; i < src->capacity; i++) {
    const struct branch_context *c = &src->contexts[i];
    if (c->table && (!keep || keep(c->branch, arg)))
      add(dst, c);
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
static uint64_t tables_summary(const struct branch_stats *s, uint32_t *a,
                               size_t n, size_t n_branches, int wide,
                               double *entropy, double *miss, double *plain) {
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
    int wanted = next < s->n_histories && s->histories[next] == done;
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
    if (next == s->n_histories)
      break;
    unsigned step = s->histories[next] - done >= 2 ? 2 : 1;
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

/* One pass over the table: the positions of the global table's contexts
 * whose branch keep accepts (all when NULL) from at[0] up, the local
 * table's from at[s->used - 1] down; n[0] and n[1] of them. */
static void kept_positions(const struct branch_stats *s, branch_keep keep,
                           void *arg, uint32_t *at, size_t n[2],
                           size_t *n_branches, int *wide) {
  const struct branch_context *c = s->contexts;
  n[0] = n[1] = *n_branches = 0;
  *wide = 0;
  for (size_t i = 0; i < s->capacity; i++) {
    if (!c[i].table || (keep && !keep(c[i].branch, arg)))
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

int branch_summarize_kept(const struct branch_stats *s, branch_keep keep,
                          void *arg, struct branch_summary *out) {
  memset(out, 0, sizeof *out);
  /* positions are 32 bits: 2^32 contexts would be 96 GiB */
  uint32_t *at = s->capacity <= UINT32_MAX
                     ? malloc((s->used ? s->used : 1) * sizeof *at)
                     : NULL;
  size_t n[2], n_branches;
  int wide;
  if (!at)
    return -1;
  kept_positions(s, keep, arg, at, n, &n_branches, &wide);
  out->executed =
      tables_summary(s, at, n[0], n_branches, wide, out->global_entropy,
                     out->global_miss, &out->entropy);
  uint64_t local =
      tables_summary(s, at + s->used - n[1], n[1], n_branches, wide,
                     out->local_entropy, out->local_miss, NULL);
  free(at);
  if (out->executed == UINT64_MAX || local == UINT64_MAX) {
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
