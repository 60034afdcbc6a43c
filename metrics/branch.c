/* branch.c: branch behaviour statistics.  Every executed branch adds one
 * count to 1 + 2 n contexts (plain, then global and local history of each
 * length) in one open-addressing table; the entropies and ideal-predictor
 * miss rates are computed from the context counts when asked. */
#include "branch.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct branch_context {
  uint64_t history;
  uint32_t branch;
  uint16_t outcome;
  uint8_t table; /* 0 plain, 1..n global history i, n+1..2n local */
  uint8_t used;
  uint64_t count;
};

static uint64_t context_hash(uint8_t table, uint32_t branch, uint64_t history,
                             uint16_t outcome) {
  uint64_t tag = ((uint64_t)branch << 24) | ((uint64_t)outcome << 8) | table;
  return u64map_hash(history ^ u64map_hash(tag));
}

static int same_context(const struct branch_context *c, uint8_t table,
                        uint32_t branch, uint64_t history, uint16_t outcome) {
  return c->table == table && c->branch == branch && c->history == history &&
         c->outcome == outcome;
}

static struct branch_context *find_slot(struct branch_context *contexts,
                                        size_t capacity, uint8_t table,
                                        uint32_t branch, uint64_t history,
                                        uint16_t outcome) {
  size_t i = context_hash(table, branch, history, outcome) & (capacity - 1);
  while (contexts[i].used &&
         !same_context(&contexts[i], table, branch, history, outcome))
    i = (i + 1) & (capacity - 1);
  return &contexts[i];
}

static int grow(struct branch_stats *s) {
  size_t capacity = s->capacity ? 2 * s->capacity : 1024;
  struct branch_context *fresh = calloc(capacity, sizeof *fresh);
  if (!fresh)
    return -1;
  for (size_t i = 0; i < s->capacity; i++) {
    const struct branch_context *c = &s->contexts[i];
    if (c->used)
      *find_slot(fresh, capacity, c->table, c->branch, c->history, c->outcome) =
          *c;
  }
  free(s->contexts);
  s->contexts = fresh;
  s->capacity = capacity;
  return 0;
}

static void add(struct branch_stats *s, uint8_t table, uint32_t branch,
                uint64_t history, uint16_t outcome, uint64_t count) {
  if (2 * (s->used + 1) > s->capacity && grow(s)) {
    s->out_of_memory = 1;
    return;
  }
  struct branch_context *c =
      find_slot(s->contexts, s->capacity, table, branch, history, outcome);
  if (!c->used) {
    *c = (struct branch_context){history, branch, outcome, table, 1, 0};
    s->used++;
  }
  c->count += count;
}

int branch_init(struct branch_stats *s, const unsigned *histories, size_t n) {
  memset(s, 0, sizeof *s);
  u64map_init(&s->local);
  u64map_init(&s->local_seen);
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
  u64map_free(&s->local);
  u64map_free(&s->local_seen);
  free(s->contexts);
  s->contexts = NULL;
  s->capacity = s->used = 0;
}

static uint64_t history_mask(unsigned h) {
  return h * BRANCH_SYMBOL_BITS >= 64
             ? ~UINT64_C(0)
             : (UINT64_C(1) << (h * BRANCH_SYMBOL_BITS)) - 1;
}

void branch_record(struct branch_stats *s, uint32_t branch, uint32_t outcome) {
  uint16_t o = outcome > UINT16_MAX ? UINT16_MAX : (uint16_t)outcome;
  uint64_t symbol = outcome < 15 ? outcome : 15;
  uint64_t *seen = u64map_slot(&s->local_seen, branch);
  uint64_t *local = seen ? u64map_slot(&s->local, branch) : NULL;
  if (!local) {
    s->out_of_memory = 1;
    return;
  }
  size_t n = s->n_histories;
  add(s, 0, branch, 0, o, 1);
  for (size_t i = 0; i < n; i++) {
    unsigned h = s->histories[i];
    uint64_t mask = history_mask(h);
    if (s->global_seen >= h)
      add(s, (uint8_t)(1 + i), branch, s->global & mask, o, 1);
    if (*seen >= h)
      add(s, (uint8_t)(1 + n + i), branch, *local & mask, o, 1);
  }
  s->global = s->global << BRANCH_SYMBOL_BITS | symbol;
  *local = *local << BRANCH_SYMBOL_BITS | symbol;
  if (s->global_seen < BRANCH_MAX_HISTORY)
    s->global_seen++;
  if (*seen < BRANCH_MAX_HISTORY)
    (*seen)++;
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
  u64map_clear(&s->local);
  u64map_clear(&s->local_seen);
}

int branch_merge(struct branch_stats *dst, const struct branch_stats *src,
                 int (*keep)(uint32_t branch, void *arg), void *arg) {
  if (dst->n_histories != src->n_histories ||
      memcmp(dst->histories, src->histories,
             src->n_histories * sizeof *src->histories))
    return -1;
  for (size_t i = 0; i < src->capacity; i++) {
    const struct branch_context *c = &src->contexts[i];
    if (c->used && (!keep || keep(c->branch, arg)))
      add(dst, c->table, c->branch, c->history, c->outcome, c->count);
  }
  dst->out_of_memory |= src->out_of_memory;
  return dst->out_of_memory ? -1 : 0;
}

static int by_context(const void *a, const void *b) {
  const struct branch_context *x = *(const struct branch_context *const *)a;
  const struct branch_context *y = *(const struct branch_context *const *)b;
  if (x->branch != y->branch)
    return x->branch < y->branch ? -1 : 1;
  if (x->history != y->history)
    return x->history < y->history ? -1 : 1;
  return (int)x->outcome - (int)y->outcome;
}

static double xlog2x(double x) { return x > 0 ? x * log2(x) : 0.0; }

/* Conditional entropy and ideal miss rate of one table's contexts:
 * H = sum_s (n_s log n_s - sum_o n_so log n_so) / N, miss = 1 - sum_s
 * max_o n_so / N. */
static uint64_t table_summary(const struct branch_stats *s,
                              struct branch_context **sorted, uint8_t table,
                              double *entropy, double *miss) {
  size_t n = 0;
  for (size_t i = 0; i < s->capacity; i++)
    if (s->contexts[i].used && s->contexts[i].table == table)
      sorted[n++] = &s->contexts[i];
  qsort(sorted, n, sizeof *sorted, by_context);
  uint64_t total = 0, hits = 0;
  double sum = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t context = 0, best = 0;
    double inner = 0;
    for (; j < n && sorted[j]->branch == sorted[i]->branch &&
           sorted[j]->history == sorted[i]->history;
         j++) {
      context += sorted[j]->count;
      best = sorted[j]->count > best ? sorted[j]->count : best;
      inner += xlog2x((double)sorted[j]->count);
    }
    sum += xlog2x((double)context) - inner;
    total += context;
    hits += best;
    i = j;
  }
  *entropy = total ? sum / (double)total : 0.0;
  *miss = total ? (double)(total - hits) / (double)total : 0.0;
  return total;
}

int branch_summarize(const struct branch_stats *s, struct branch_summary *out) {
  memset(out, 0, sizeof *out);
  struct branch_context **sorted =
      malloc((s->used ? s->used : 1) * sizeof *sorted);
  if (!sorted)
    return -1;
  double unused;
  out->executed = table_summary(s, sorted, 0, &out->entropy, &unused);
  size_t n = s->n_histories;
  for (size_t i = 0; i < n; i++) {
    table_summary(s, sorted, (uint8_t)(1 + i), &out->global_entropy[i],
                  &out->global_miss[i]);
    table_summary(s, sorted, (uint8_t)(1 + n + i), &out->local_entropy[i],
                  &out->local_miss[i]);
  }
  free(sorted);
  return 0;
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

struct json_object *branch_to_json(const struct branch_stats *s) {
  struct branch_summary sum;
  if (branch_summarize(s, &sum))
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
