/* schedule_result.c: the schedules' results (schedule.h): ILP, DLP and
 * BBLP of a thread or a function and PBBLP of a block as mergeable ratios,
 * their merging, and their JSON. */
#include "schedule_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- Results ------------------------------------------------------- */

void par_init(struct par_result *r, const struct sched_config *config) {
  memset(r, 0, sizeof *r);
  r->config = *config;
  for (unsigned w = 0; w < config->n_windows; w++)
    r->win[w].window = config->windows[w];
}

static void ratio_add(struct par_ratio *r, double value, uint64_t n) {
  r->wsum += value * (double)n;
  r->n += n;
}

static void ratio_merge(struct par_ratio *d, const struct par_ratio *s) {
  d->wsum += s->wsum;
  d->n += s->n;
}

void par_merge(struct par_result *dst, const struct par_result *src) {
  for (unsigned w = 0; w < dst->config.n_windows; w++) {
    ratio_merge(&dst->win[w].ilp, &src->win[w].ilp);
    for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
      ratio_merge(&dst->win[w].cat[c], &src->win[w].cat[c]);
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      ratio_merge(&dst->win[w].op[o], &src->win[w].op[o]);
  }
  ratio_merge(&dst->dlp1, &src->dlp1);
  ratio_merge(&dst->dlp2, &src->dlp2);
  ratio_merge(&dst->bblp, &src->bblp);
  ratio_merge(&dst->bblp_smart, &src->bblp_smart);
  ratio_merge(&dst->pbblp, &src->pbblp);
  dst->untracked += src->untracked;
}

static double ratio(uint64_t n, uint64_t d) {
  return d ? (double)n / (double)d : 0.0;
}

/* Per-window ILP, categories, opcodes and (first window) DLP of a scope
 * with n instructions whose overall parallelism is n / total[w]. */
static void fill_scope(const struct sched *s, struct par_result *r, uint64_t n,
                       const uint64_t *n_op, const uint64_t *n_cat,
                       const uint64_t *total, const struct span *cat,
                       const struct span *op, const uint64_t *accesses,
                       const uint64_t *contiguous) {
  for (unsigned w = 0; w < s->cfg.n_windows; w++) {
    struct par_window *pw = &r->win[w];
    ratio_add(&pw->ilp, ratio(n, total[w]), n);
    for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
      if (n_cat[c])
        ratio_add(&pw->cat[c],
                  ratio(n_cat[c], cat[w * PISA_CAT_COUNT + c].span), n_cat[c]);
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      if (n_op[o])
        ratio_add(&pw->op[o], ratio(n_op[o], op[w * PISA_OPCODE_MAX + o].span),
                  n_op[o]);
  }
  if (!s->cfg.n_windows || !n)
    return;
  double dlp1 = 0, dlp2 = 0;
  for (unsigned o = 0; o < PISA_OPCODE_MAX; o++) {
    if (!n_op[o])
      continue;
    double ilp = ratio(n_op[o], op[o].span); /* window 0's row */
    double ilp2 = ilp;
    int k = o == 32 ? 0 : o == 33 ? 1 : -1;
    if (k >= 0 && accesses[k]) {
      double f = ratio(contiguous[k], accesses[k]);
      ilp2 = f * ilp + (1 - f);
    }
    dlp1 += ilp * (double)n_op[o];
    dlp2 += ilp2 * (double)n_op[o];
  }
  ratio_add(&r->dlp1, dlp1 / (double)n, n);
  ratio_add(&r->dlp2, dlp2 / (double)n, n);
}

/* Which blocks a scope's PBBLP is the mean over. */
enum scope_kind { SCOPE_THREAD, SCOPE_FUNCTION, SCOPE_LOOP };

/* Whether block state b is in scope `id` of `kind` (a loop: in it or in a
 * loop inside it, as its nest says). */
static int in_scope(const struct sched *s, const struct block_state *b,
                    enum scope_kind kind, uint32_t id) {
  if (kind == SCOPE_FUNCTION)
    return b->pb->source == id;
  for (uint32_t l = 0; kind == SCOPE_LOOP && l < b->n_nest; l++)
    if (b->nest[l] == s->loops[id])
      return 1;
  return kind == SCOPE_THREAD;
}

static void pbblp_of(const struct sched *s, struct par_result *r,
                     enum scope_kind kind, uint32_t id) {
  for (uint32_t b = 0; b < s->n_blocks; b++) {
    uint64_t instances, levels;
    if (sched_block_pbblp(s, b, &instances, &levels) &&
        in_scope(s, &s->blocks[b], kind, id))
      ratio_add(&r->pbblp, ratio(instances, levels), instances);
  }
}

int sched_block_pbblp(const struct sched *s, uint32_t block,
                      uint64_t *instances, uint64_t *levels) {
  if (block >= s->n_blocks)
    return 0;
  const struct block_state *bs = &s->blocks[block];
  if (!bs->pb || !bs->instances || !bs->pbblp_counted)
    return 0;
  *instances = bs->instances;
  *levels = bs->max_level ? bs->max_level : 1;
  return 1;
}

/* The thread's spans of an opcode or category (`kind`: one row of `len`
 * per window), from the one function that runs it when it is not shared
 * (schedule_internal.h). */
static void thread_spans(const struct sched *s, struct span *out,
                         const struct span *kept, const uint32_t *owner,
                         size_t len, int is_op) {
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    for (size_t i = 0; i < len; i++) {
      const struct fn_state *f = owner[i] < s->n_fns ? s->fns[owner[i]] : NULL;
      const struct span *from = owner[i] == SHARED_FN ? kept
                                : !f                  ? NULL
                                : is_op               ? f->op
                                                      : f->cat;
      out[w * len + i] = from ? from[w * len + i] : (struct span){0, 0};
    }
}

void sched_thread_result(const struct sched *s, struct par_result *out) {
  par_init(out, &s->cfg);
  out->untracked = s->untracked;
  struct span cat[SCHED_MAX_WINDOWS * PISA_CAT_COUNT];
  struct span op[SCHED_MAX_WINDOWS * PISA_OPCODE_MAX];
  thread_spans(s, cat, s->cat, s->cat_fn, PISA_CAT_COUNT, 0);
  thread_spans(s, op, s->op, s->op_fn, PISA_OPCODE_MAX, 1);
  fill_scope(s, out, s->n, s->n_op, s->n_cat, s->cycles, cat, op, s->accesses,
             s->contiguous);
  if (!s->cfg.bblp)
    return;
  ratio_add(&out->bblp, ratio(s->n, s->cycles[s->cfg.n_windows]), s->n);
  ratio_add(&out->bblp_smart, ratio(s->n, s->cycles[s->cfg.n_windows + 1]),
            s->n);
  pbblp_of(s, out, SCOPE_THREAD, 0);
}

/* Cycles per instruction in window w of the sampled blocks of source
 * function f (rate[f * (SCHED_MAX_WINDOWS + 1) + w], instructions in the
 * last word of the row), for the blocks the sample missed. */
static double missed_rate(const double *rate, uint32_t f, unsigned w,
                          const double *thread) {
  const double *row = rate + (size_t)f * (SCHED_MAX_WINDOWS + 1);
  if (row[SCHED_MAX_WINDOWS] > 0)
    return row[w] / row[SCHED_MAX_WINDOWS];
  return thread[SCHED_MAX_WINDOWS] > 0 ? thread[w] / thread[SCHED_MAX_WINDOWS]
                                       : 0;
}

void sched_thread_result_strata(const struct sched *s, const uint64_t *counts,
                                uint32_t n_counts, struct par_result *out) {
  sched_thread_result(s, out);
  const unsigned NW = s->cfg.n_windows;
  const struct program_block *pbs = s->program->blocks;
  uint32_t n_src = 0;
  for (uint32_t b = 0; b < n_counts; b++)
    if (counts[b] && pbs[b].source >= n_src)
      n_src = pbs[b].source + 1;
  /* Per source function, then the thread: the sampled blocks' cycles per
   * window and instructions. */
  const size_t row = SCHED_MAX_WINDOWS + 1;
  double *rate = calloc(((size_t)n_src + 1) * row, sizeof *rate);
  if (!rate)
    return; /* the plain ratio */
  double *thread = rate + (size_t)n_src * row;
  double n = 0, cycles[SCHED_MAX_WINDOWS] = {0};
  int missed = 0;
  for (uint32_t b = 0; b < n_counts; b++) {
    /* a block scheduled but never counted (its counts lost when memory
     * ran out) has no function row: n_src covers counted blocks only */
    if (!counts[b])
      continue;
    const struct block_state *bs = b < s->n_blocks ? &s->blocks[b] : NULL;
    double exact = (double)counts[b] * (double)pbs[b].n_instrs;
    n += exact;
    if (!bs || !bs->scheduled) {
      missed |= exact > 0;
      continue;
    }
    /* Scaled by instructions: an instance's may come in several segments
     * (a call), and a burst's edge may cut one. */
    double scale = exact / (double)bs->scheduled;
    double *fn = rate + (size_t)pbs[b].source * row;
    for (unsigned w = 0; w < NW; w++) {
      cycles[w] += (double)bs->advance[w] * scale;
      fn[w] += (double)bs->advance[w];
      thread[w] += (double)bs->advance[w];
    }
    fn[SCHED_MAX_WINDOWS] += (double)bs->scheduled;
    thread[SCHED_MAX_WINDOWS] += (double)bs->scheduled;
  }
  for (uint32_t b = 0; missed && b < n_counts; b++) {
    const struct block_state *bs = b < s->n_blocks ? &s->blocks[b] : NULL;
    if (!counts[b] || (bs && bs->scheduled))
      continue;
    double exact = (double)counts[b] * (double)pbs[b].n_instrs;
    for (unsigned w = 0; w < NW; w++)
      cycles[w] += exact * missed_rate(rate, pbs[b].source, w, thread);
  }
  free(rate);
  for (unsigned w = 0; w < NW; w++)
    if (s->cfg.windows[w] && cycles[w] >= 1 && n >= 1) {
      out->win[w].ilp.n = (uint64_t)(n + 0.5);
      out->win[w].ilp.wsum = n / cycles[w] * (double)out->win[w].ilp.n;
    }
}

void sched_progress(const struct sched *s, unsigned window,
                    uint64_t *instructions, uint64_t *cycles) {
  *instructions = s->n;
  *cycles = s->cycles[window];
}

/* The spans' part of the result of scope f: ILP, DLP, BBLP; 0 when the
 * scope has nothing, 1 when PBBLP is to follow. */
static int scope_spans(const struct sched *s, const struct fn_state *f,
                       struct par_result *out) {
  par_init(out, &s->cfg);
  if (!f || !f->n)
    return 0;
  out->untracked = s->untracked; /* its thread's: conservatively */
  uint64_t total[SCHED_MAX_WINDOWS];
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    total[w] = f->total[w].span;
  fill_scope(s, out, f->n, f->n_op, f->n_cat, total, f->cat, f->op, f->accesses,
             f->contiguous);
  if (!s->cfg.bblp)
    return 0;
  ratio_add(&out->bblp, ratio(f->n, f->total[s->cfg.n_windows].span), f->n);
  ratio_add(&out->bblp_smart, ratio(f->n, f->total[s->cfg.n_windows + 1].span),
            f->n);
  return 1;
}

/* The result of scope f (a function's or a loop's state, id its id). */
static void scope_result(const struct sched *s, const struct fn_state *f,
                         enum scope_kind kind, uint32_t id,
                         struct par_result *out) {
  if (scope_spans(s, f, out))
    pbblp_of(s, out, kind, id);
}

void sched_region_result(const struct sched *s, uint32_t region,
                         struct par_result *out) {
  const struct region_scope *r =
      region < s->n_regions ? s->regions[region] : NULL;
  if (!scope_spans(s, r ? &r->fs : NULL, out))
    return;
  out->untracked += s->region_losses;
  uint64_t block, in_region, instances, levels;
  for (size_t it = 0; u64map_next(&r->instances, &it, &block, &in_region);)
    if (sched_block_pbblp(s, (uint32_t)block, &instances, &levels))
      ratio_add(&out->pbblp, ratio(instances, levels), in_region);
}

void sched_function_result(const struct sched *s, uint32_t function,
                           struct par_result *out) {
  scope_result(s, function < s->n_fns ? s->fns[function] : NULL, SCOPE_FUNCTION,
               function, out);
}

/* Whether loop `inner` is loop `outer` or inside it (parents have smaller
 * ids). */
static int loop_within(const struct program *p, uint32_t inner,
                       uint32_t outer) {
  while (inner != PROGRAM_NONE && inner > outer)
    inner = p->loops[inner].parent;
  return inner == outer;
}

/* Into `into`: the counts of loop state f (its innermost instructions'). */
static void add_counts(struct fn_state *into, const struct fn_state *f) {
  into->n += f->n;
  for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
    into->n_op[o] += f->n_op[o];
  for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
    into->n_cat[c] += f->n_cat[c];
  for (unsigned k = 0; k < 2; k++) {
    into->accesses[k] += f->accesses[k];
    into->contiguous[k] += f->contiguous[k];
  }
}

void sched_loop_result(const struct sched *s, uint32_t loop,
                       struct par_result *out) {
  const struct fn_state *f = loop < s->n_loops ? s->loops[loop] : NULL;
  if (!f) {
    par_init(out, &s->cfg);
    return;
  }
  /* its spans, and the counts of its instructions and its inner loops' */
  struct fn_state all = *f;
  memset(&all, 0, offsetof(struct fn_state, total));
  for (uint32_t l = loop; l < s->n_loops; l++)
    if (s->loops[l] && loop_within(s->program, l, loop))
      add_counts(&all, s->loops[l]);
  scope_result(s, &all, SCOPE_LOOP, loop, out);
}

/* ---- JSON ---------------------------------------------------------- */

static json_object *mean(const struct par_ratio *r) {
  return json_object_new_double(r->n ? r->wsum / (double)r->n : 0.0);
}

static const char *const category_names[] = PISA_CATEGORY_NAMES;

/* Marks a family object computed with accesses beyond the memory limit. */
static void mark_approximate(const struct par_result *r, json_object *e) {
  if (!r->untracked)
    return;
  json_object_object_add(e, "approximate", json_object_new_boolean(1));
  json_object *bound = json_object_new_object();
  json_object_object_add(bound, "max_memory_bytes",
                         json_object_new_uint64(r->config.max_memory_bytes));
  json_object_object_add(e, "bound", bound);
}

void par_to_json(const struct par_result *r, json_object *o) {
  if (r->config.n_windows) {
    json_object *ilp = json_object_new_array();
    for (unsigned w = 0; w < r->config.n_windows; w++) {
      const struct par_window *pw = &r->win[w];
      json_object *e = json_object_new_object();
      json_object_object_add(e, "window", json_object_new_int64(pw->window));
      json_object_object_add(e, "ilp", mean(&pw->ilp));
      json_object *cats = json_object_new_object();
      for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
        if (pw->cat[c].n)
          json_object_object_add(cats, category_names[c], mean(&pw->cat[c]));
      json_object_object_add(e, "categories", cats);
      json_object *ops = json_object_new_object();
      for (unsigned k = 0; k < PISA_OPCODE_MAX; k++)
        if (pw->op[k].n && program_opcode_name(k))
          json_object_object_add(ops, program_opcode_name(k), mean(&pw->op[k]));
      json_object_object_add(e, "opcodes", ops);
      mark_approximate(r, e);
      json_object_array_add(ilp, e);
    }
    json_object_object_add(o, "ilp", ilp);
    json_object *dlp = json_object_new_object();
    json_object_object_add(dlp, "dlp1", mean(&r->dlp1));
    json_object_object_add(dlp, "dlp2", mean(&r->dlp2));
    mark_approximate(r, dlp);
    json_object_object_add(o, "dlp", dlp);
  }
  if (r->config.bblp) {
    json_object *b = json_object_new_object();
    json_object_object_add(b, "bblp", mean(&r->bblp));
    json_object_object_add(b, "bblp_smart", mean(&r->bblp_smart));
    json_object_object_add(b, "pbblp", mean(&r->pbblp));
    mark_approximate(r, b);
    json_object_object_add(o, "bblp", b);
  }
}
