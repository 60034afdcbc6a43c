/* schedule_frames.c: the schedules' shadow call stack.  One frame of value
 * slots per active call (ready cycle per schedule and the producing block
 * instance); block instances entering, resuming and ending; calls passing
 * arguments and results; phis taking the edge's values.  Also the
 * scheduler's life cycle and its per-block state, derived once per block
 * from the program. */
#include "schedule_internal.h"

#include <stdlib.h>
#include <string.h>

void *sched_grow_to(void *p, size_t *cap, size_t need, size_t size) {
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *q = realloc(p, c * size);
  if (!q)
    return NULL;
  memset((char *)q + *cap * size, 0, (c - *cap) * size);
  *cap = c;
  return q;
}

struct sched *sched_new(const struct sched_config *config,
                        const struct program *p) {
  struct sched *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->cfg = *config;
  if (s->cfg.n_windows > SCHED_MAX_WINDOWS)
    s->cfg.n_windows = SCHED_MAX_WINDOWS;
  s->n_sched = s->cfg.n_windows + (s->cfg.bblp ? 2 : 0);
  s->stride = s->n_sched + TAG_WORDS;
  s->entry_words = 2 * s->n_sched + (s->cfg.bblp ? TAG_WORDS : 0);
  s->load_words = s->n_sched;
  s->wide_at = s->cfg.narrow_limit && s->cfg.narrow_limit < NARROW_LIMIT
                   ? s->cfg.narrow_limit
                   : NARROW_LIMIT;
  s->program = p;
  memset(s->op_fn, 0xff, sizeof s->op_fn); /* NONE32 */
  memset(s->cat_fn, 0xff, sizeof s->cat_fn);
  u64map_init(&s->pages);
  u64map_init(&s->overflow);
  size_t nw = s->cfg.n_windows ? s->cfg.n_windows : 1;
  s->cat = calloc(nw * PISA_CAT_COUNT, sizeof *s->cat);
  s->op = calloc(nw * PISA_OPCODE_MAX, sizeof *s->op);
  int ok = s->cat && s->op;
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    if (s->cfg.windows[w] &&
        !(s->ring[w] = calloc(s->cfg.windows[w], sizeof *s->ring[w])))
      ok = 0;
  if (!ok) {
    sched_free(s);
    return NULL;
  }
  return s;
}

/* Frees n scope states (functions', loops'). */
static void scopes_free(struct fn_state **array, uint32_t n) {
  for (uint32_t f = 0; f < n; f++)
    if (array[f]) {
      free(array[f]->cat);
      free(array[f]->op);
      free(array[f]);
    }
  free(array);
}

static void region_scope_free(struct region_scope *r) {
  if (!r)
    return;
  free(r->fs.cat);
  free(r->fs.op);
  u64map_free(&r->instances);
  free(r);
}

void sched_free(struct sched *s) {
  if (!s)
    return;
  for (uint32_t id = 0; id < s->n_regions; id++)
    region_scope_free(s->regions[id]);
  free(s->regions);
  free(s->open);
  for (uint32_t b = 0; b < s->n_blocks; b++) {
    free(s->blocks[b].last_end);
    free(s->blocks[b].op_off);
    free(s->blocks[b].uops);
    free(s->blocks[b].nest);
  }
  free(s->blocks);
  scopes_free(s->fns, s->n_fns);
  scopes_free(s->loops, s->n_loops);
  free(s->frames);
  free(s->vals);
  sched_memory_free(s);
  for (unsigned w = 0; w < SCHED_MAX_WINDOWS; w++)
    free(s->ring[w]);
  free(s->cat);
  free(s->op);
  free(s->stores);
  free(s);
}

uint64_t sched_desync(const struct sched *s) { return s->desync; }

/* ---- Static state, created at first sight -------------------------- */

/* The block's instructions and, for each, the frame offsets of the
 * operands it depends on (constants and globals dropped: the schedule
 * template of the block), for this scheduler's slot width (the program
 * gives slots; a slot is `stride` words here). */
static int decode_block(struct sched *s, struct block_state *b) {
  const struct program_block *pb = b->pb;
  uint32_t n = pb->n_instrs;
  if (!n)
    return 0;
  size_t count = 0;
  for (uint32_t k = 0; k < n; k++)
    count += pb->instrs[k].n_operands;
  if (!(b->op_off = malloc((count ? count : 1) * sizeof *b->op_off)))
    return -1;
  if (!(b->uops = malloc(n * sizeof *b->uops)))
    return -1;
  uint32_t used = 0;
  for (uint32_t k = 0; k < n; k++) {
    const struct program_instr *in = &pb->instrs[k];
    b->uops[k] = (struct uop){
        .op = in->opcode < PISA_OPCODE_MAX ? in->opcode : 0,
        .cat = in->category,
        .index_update = (in->flags & PROGRAM_INSTR_INDEX_UPDATE) != 0,
        .has_site = in->site != PROGRAM_NONE,
        .out = (pb->first_slot + k) * s->stride,
        .ops = used};
    for (uint32_t j = 0; j < in->n_operands; j++) {
      uint32_t slot = pb->operands[in->first_operand + j];
      if (slot != PROGRAM_NONE)
        b->op_off[used++] = slot * s->stride;
    }
    b->uops[k].n_ops = used - b->uops[k].ops;
    /* Only index updates and branches: omitted from PBBLP. */
    if (!(in->flags & PROGRAM_INSTR_INDEX_UPDATE) && in->opcode != 2 &&
        in->opcode != 3) /* br, switch */
      b->pbblp_counted = 1;
  }
  return 0;
}

/* Whether block b has an instruction of opcode `op` (or of category `cat`
 * when op is PISA_OPCODE_MAX). */
static int block_has(const struct block_state *b, unsigned op, unsigned cat) {
  for (uint32_t k = 0; k < b->pb->n_instrs; k++)
    if (op < PISA_OPCODE_MAX ? b->uops[k].op == op : b->uops[k].cat == cat)
      return 1;
  return 0;
}

/* Function fn runs an opcode (or category) whose thread spans are `span`
 * (one row of `len` per window) at index i and whose function so far is
 * *owner.  A second function makes it shared: the thread's spans so far
 * are the first function's, and that function's blocks that run it keep
 * the thread's spans from now on. */
static void claim(struct sched *s, uint32_t *owner, uint32_t fn,
                  struct span *span, size_t len, unsigned op, unsigned cat) {
  if (*owner == NONE32)
    *owner = fn;
  if (*owner == fn || *owner == SHARED_FN)
    return;
  const struct fn_state *f = *owner < s->n_fns ? s->fns[*owner] : NULL;
  size_t i = op < PISA_OPCODE_MAX ? op : cat;
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    span[w * len + i] = f ? (op < PISA_OPCODE_MAX ? f->op : f->cat)[w * len + i]
                          : (struct span){0, 0};
  for (uint32_t id = 0; id < s->n_blocks; id++) /* its blocks, inlined too */
    if (s->blocks[id].pb && s->blocks[id].pb->source == *owner &&
        block_has(&s->blocks[id], op, cat))
      s->blocks[id].solo = 0;
  *owner = SHARED_FN;
}

/* A block seen for the first time claims its opcodes and categories for
 * its function; it is solo when none of them is shared. */
static void claim_block(struct sched *s, struct block_state *b) {
  uint32_t fn = b->pb->source;
  b->solo = 1;
  for (uint32_t k = 0; k < b->pb->n_instrs; k++) {
    const struct uop *u = &b->uops[k];
    claim(s, &s->op_fn[u->op], fn, s->op, PISA_OPCODE_MAX, u->op, 0);
    claim(s, &s->cat_fn[u->cat], fn, s->cat, PISA_CAT_COUNT, PISA_OPCODE_MAX,
          u->cat);
    if (s->op_fn[u->op] == SHARED_FN || s->cat_fn[u->cat] == SHARED_FN)
      b->solo = 0;
  }
}

/* The span rows of a zeroed scope state f: 0, or -1 (none) without
 * memory. */
static int spans_alloc(const struct sched *s, struct fn_state *f) {
  size_t nw = s->cfg.n_windows ? s->cfg.n_windows : 1;
  f->cat = calloc(nw * PISA_CAT_COUNT, sizeof *f->cat);
  f->op = calloc(nw * PISA_OPCODE_MAX, sizeof *f->op);
  if (f->cat && f->op)
    return 0;
  free(f->cat);
  free(f->op);
  return -1;
}

/* The schedule state of scope id (a function, a loop) in a growing array
 * of them, created at its first use. */
static struct fn_state *scope_state(const struct sched *s,
                                    struct fn_state ***array, uint32_t *n,
                                    uint32_t id) {
  if (id >= *n) {
    size_t cap = *n;
    struct fn_state **f = sched_grow(*array, &cap, (size_t)id + 1, sizeof *f);
    if (!f)
      return NULL;
    *array = f;
    *n = (uint32_t)cap;
  }
  if ((*array)[id])
    return (*array)[id];
  struct fn_state *f = calloc(1, sizeof *f);
  if (!f || spans_alloc(s, f)) {
    free(f);
    return NULL;
  }
  return (*array)[id] = f;
}

/* With per-loop results, block b's loop states, innermost first (parents
 * have smaller ids, so the walk ends); 0, or -1 when memory ran out. */
static int block_nest(struct sched *s, struct block_state *b, uint32_t id) {
  const struct program *p = s->program;
  if (!s->cfg.loops || !p->block_sources || !p->loops)
    return 0;
  uint32_t depth = 0;
  for (uint32_t l = p->block_sources[id].loop; l != PROGRAM_NONE;
       l = p->loops[l].parent)
    depth++;
  if (!depth)
    return 0;
  if (!(b->nest = calloc(depth, sizeof *b->nest)))
    return -1;
  for (uint32_t l = p->block_sources[id].loop; l != PROGRAM_NONE;
       l = p->loops[l].parent)
    if (!(b->nest[b->n_nest++] = scope_state(s, &s->loops, &s->n_loops, l)))
      return -1;
  return 0;
}

static struct block_state *block_state(struct sched *s, uint32_t id) {
  if (id >= s->n_blocks) {
    size_t cap = s->n_blocks;
    struct block_state *b =
        sched_grow(s->blocks, &cap, (size_t)id + 1, sizeof *b);
    if (!b)
      return NULL;
    s->blocks = b;
    s->n_blocks = (uint32_t)cap;
  }
  struct block_state *b = &s->blocks[id];
  if (b->pb)
    return b;
  const struct program_block *pb = &s->program->blocks[id];
  b->pb = pb;
  b->entry = id == s->program->functions[pb->function].first_block;
  b->fs = scope_state(s, &s->fns, &s->n_fns, pb->source);
  b->last_end = calloc(pb->n_sites ? pb->n_sites : 1, sizeof *b->last_end);
  if (b->fs && b->last_end && !block_nest(s, b, id) &&
      decode_block(s, b) == 0) {
    claim_block(s, b);
    return b;
  }
  free(b->nest);
  free(b->last_end);
  free(b->op_off);
  free(b->uops);
  memset(b, 0, sizeof *b);
  return NULL;
}

/* ---- Frames -------------------------------------------------------- */

/* The slot a frame slot number names, or NULL (no dependency). */
static inline uint64_t *source_slot(struct sched *s, const struct frame *fr,
                                    uint32_t slot) {
  return slot == PROGRAM_NONE ? NULL : slot_at(s, fr, slot);
}

static const struct program_function *function_of(const struct sched *s,
                                                  const struct block_state *b) {
  return &s->program->functions[b->pb->function];
}

/* Pushes a frame for the function of b, its slots zero (values that were
 * never produced, after a lost context, carry no dependency): vals past
 * the top frame are zero, as pop_frame leaves them. */
static struct frame *push_frame(struct sched *s, const struct block_state *b) {
  const struct program_function *f = function_of(s, b);
  size_t words = ((size_t)f->n_instrs + f->n_phis + f->n_args) * s->stride;
  struct frame *fs =
      sched_grow(s->frames, &s->frame_cap, s->depth + 1, sizeof *fs);
  if (!fs)
    return NULL;
  s->frames = fs;
  size_t base =
      s->depth ? s->frames[s->depth - 1].base + s->frames[s->depth - 1].words
               : 0;
  uint64_t *v = sched_grow(s->vals, &s->vals_cap, base + words, sizeof *v);
  if (!v)
    return NULL;
  s->vals = v;
  struct frame *fr = &s->frames[s->depth++];
  memset(fr, 0, sizeof *fr);
  fr->written_lo[0] = fr->written_lo[1] = UINT32_MAX;
  fr->fn = b->pb->function;
  fr->block = NONE32;
  fr->pending = NONE32;
  fr->base = base;
  fr->words = words;
  fr->stores_mark = s->n_stores;
  return fr;
}

/* ---- Regions of interest ------------------------------------------ */

/* Region id's state, created when new; NULL without memory. */
static struct region_scope *region_scope(struct sched *s, uint32_t id) {
  if (id >= s->n_regions) {
    size_t cap = s->n_regions;
    struct region_scope **r =
        sched_grow(s->regions, &cap, (size_t)id + 1, sizeof *r);
    if (!r)
      return NULL;
    s->regions = r;
    s->n_regions = (uint32_t)cap;
  }
  if (s->regions[id])
    return s->regions[id];
  struct region_scope *r = calloc(1, sizeof *r);
  if (!r || spans_alloc(s, &r->fs)) {
    free(r);
    return NULL;
  }
  u64map_init(&r->instances);
  return s->regions[id] = r;
}

/* An instance of block id starts while the open regions are open. */
static void region_instances(struct sched *s, uint32_t id) {
  for (size_t k = 0; k < s->n_open; k++) {
    uint64_t *n = u64map_slot(&s->open[k]->instances, id);
    if (n)
      ++*n;
    else
      s->region_losses++;
  }
}

int sched_open_regions(struct sched *s, const uint32_t *ids, size_t n) {
  s->n_open = 0;
  if (!n)
    return 0;
  struct region_scope **open =
      sched_grow(s->open, &s->open_cap, n, sizeof *open);
  if (!open)
    return -1;
  s->open = open;
  for (size_t k = 0; k < n; k++)
    if (!(open[k] = region_scope(s, ids[k])))
      return -1;
  s->n_open = n;
  return 0;
}

void sched_region_free(struct sched *s, uint32_t region) {
  s->n_open = 0;
  if (region >= s->n_regions)
    return;
  region_scope_free(s->regions[region]);
  s->regions[region] = NULL;
}

/* Ends the frame's current block instance: its level is final, so values
 * and memory it wrote before its level last rose get the final level. */
static void end_instance(struct sched *s, struct frame *fr) {
  if (fr->block == NONE32 || !fr->seq)
    return;
  struct block_state *b = &s->blocks[fr->block];
  if (fr->level > b->max_level)
    b->max_level = fr->level;
  if (fr->late) {
    for (uint32_t k = 0; k < b->pb->n_instrs; k++) {
      uint64_t *v = slot_at(s, fr, b->pb->first_slot + k) + s->n_sched;
      if (v[TAG_SEQ] == fr->seq)
        v[TAG_LEVEL] = fr->level;
    }
    size_t tag = 2 * (size_t)s->n_sched;
    for (size_t i = fr->stores_mark; i < s->n_stores; i++)
      if (entry_get(s->stores[i], tag + TAG_SEQ, s->wide) == fr->seq)
        entry_set(s->stores[i], tag + TAG_LEVEL, fr->level, s->wide);
  }
  s->n_stores = fr->stores_mark;
  fr->seq = 0;
}

/* Slots [first, first + n) of kind (0 instructions', 1 phis') of the
 * frame may be written from now on. */
static ALWAYS_INLINE void note_written(struct frame *fr, unsigned kind,
                                       uint32_t first, uint32_t n) {
  if (!n)
    return;
  if (first < fr->written_lo[kind])
    fr->written_lo[kind] = first;
  if (first + n > fr->written_hi[kind])
    fr->written_hi[kind] = first + n;
}

/* Zeroes the frame's slots that were written, and its arguments' (out of
 * line: the block-entry paths that inline pop_frame stay small). */
static __attribute__((noinline)) void clear_written(struct sched *s,
                                                    const struct frame *fr) {
  const struct program_function *f = &s->program->functions[fr->fn];
  uint64_t *v = s->vals + fr->base;
  for (unsigned kind = 0; kind < 2; kind++)
    if (fr->written_lo[kind] < fr->written_hi[kind])
      memset(v + (size_t)fr->written_lo[kind] * s->stride, 0,
             (size_t)(fr->written_hi[kind] - fr->written_lo[kind]) * s->stride *
                 sizeof *v);
  size_t args = ((size_t)f->n_instrs + f->n_phis) * s->stride;
  memset(v + args, 0, (fr->words - args) * sizeof *v);
}

static void pop_frame(struct sched *s) {
  struct frame *fr = &s->frames[s->depth - 1];
  end_instance(s, fr);
  clear_written(s, fr);
  s->depth--;
}

/* Pops frames until the top one runs `fn`; 0 when none does. */
static ALWAYS_INLINE int unwind_to(struct sched *s, uint32_t fn) {
  size_t d = s->depth;
  while (d && s->frames[d - 1].fn != fn)
    d--;
  if (!d)
    return 0;
  while (s->depth > d)
    pop_frame(s);
  return 1;
}

/* ---- Block entry, call and return ---------------------------------- */

/* Copies a source slot (or zeros for a constant) into dst. */
static inline void copy_slot(struct sched *s, uint64_t *dst,
                             const uint64_t *src) {
  for (unsigned i = 0; i < s->stride; i++)
    dst[i] = src ? src[i] : 0;
}

/* The phis of b take the values arriving along the edge from block `pred`
 * (NONE32 when unknown), all at once. */
static void enter_phis(struct sched *s, struct frame *fr,
                       const struct program_block *pb, uint32_t pred) {
  uint32_t n = pb->n_phis;
  if (!n || !pb->phis || !pb->incoming)
    return;
  uint64_t tmp[64 * (SCHED_MAX_WINDOWS + 2 + TAG_WORDS)];
  for (uint32_t first = 0; first < n; first += 64) {
    uint32_t count = n - first < 64 ? n - first : 64;
    for (uint32_t p = 0; p < count; p++) {
      const struct program_phi *phi = &pb->phis[first + p];
      const uint32_t *pairs = pb->incoming + 2 * (size_t)phi->first_incoming;
      const uint64_t *src = NULL;
      for (uint32_t k = 0; k < phi->n_incoming; k++)
        if (pairs[2 * k] == pred) {
          src = source_slot(s, fr, pairs[2 * k + 1]);
          break;
        }
      uint64_t *t = tmp + p * s->stride;
      copy_slot(s, t, src);
      if (phi->flags & PROGRAM_INSTR_INDEX_UPDATE) {
        if (s->cfg.bblp)
          t[s->cfg.n_windows + 1] = 0;
        t[s->n_sched + TAG_SEQ] = t[s->n_sched + TAG_BLOCK] = 0;
      }
    }
    for (uint32_t p = 0; p < count; p++)
      copy_slot(s, slot_at(s, fr, pb->phi_slot + first + p),
                tmp + p * s->stride);
  }
}

/* A new invocation of b's function: arguments flow from the pending call
 * of the frame below when that call names this function (or is indirect). */
static struct frame *enter_function(struct sched *s, struct block_state *b) {
  struct frame *caller = s->depth ? &s->frames[s->depth - 1] : NULL;
  const struct program_block *cb = NULL;
  const struct program_site *call = NULL;
  const struct program_function *f = function_of(s, b);
  if (caller && caller->pending != NONE32) {
    cb = s->blocks[caller->block].pb;
    call = &cb->sites[caller->pending];
    if (call->callee && strcmp(call->callee, f->name) != 0)
      call = NULL; /* a callback from an uninstrumented callee */
  }
  struct frame *fr = push_frame(s, b);
  if (!fr)
    return NULL;
  caller = s->depth > 1 ? &s->frames[s->depth - 2] : NULL;
  if (call && caller) {
    const struct program_instr *in = &cb->instrs[call->instr];
    const uint32_t *ops = cb->operands + in->first_operand;
    uint32_t n = in->n_operands ? in->n_operands - 1 : 0;
    for (uint32_t a = 0; a < n && a < f->n_args; a++)
      copy_slot(s, slot_at(s, fr, f->n_instrs + f->n_phis + a),
                source_slot(s, caller, ops[a]));
    fr->from_call = 1;
  }
  return fr;
}

/* The top frame's block returned: the call's result is ready when the
 * `ret` issued. */
void sched_leave_function(struct sched *s, const uint64_t *ret) {
  int from_call = s->frames[s->depth - 1].from_call;
  pop_frame(s);
  if (!from_call || !s->depth)
    return;
  struct frame *caller = &s->frames[s->depth - 1];
  if (caller->pending == NONE32)
    return;
  const struct program_block *cb = s->blocks[caller->block].pb;
  uint64_t *v =
      slot_at(s, caller, cb->first_slot + cb->sites[caller->pending].instr);
  for (unsigned i = 0; i < s->n_sched; i++)
    if (ret[i] > v[i])
      v[i] = ret[i];
}

static ALWAYS_INLINE void start_instance(struct sched *s, struct frame *fr,
                                         struct block_state *b, uint32_t id) {
  note_written(fr, 0, b->pb->first_slot, b->pb->n_instrs);
  note_written(fr, 1, b->pb->phi_slot, b->pb->n_phis);
  fr->block = id;
  fr->cursor = fr->site = 0;
  fr->pending = NONE32;
  fr->bb_prev[0] = fr->bb_prev[1] = 0;
  fr->seq = ++s->next_seq;
  fr->level = 1;
  fr->wrote = fr->late = 0;
  fr->stores_mark = s->n_stores;
  if (b->pbblp_counted) {
    b->instances++;
    if (s->n_open)
      region_instances(s, id);
  }
}

/* An entered block: a call's entry block pushes a frame; any other block
 * continues its function's frame (unwinding frames left by non-local
 * exits); the phis read the edge from the frame's previous block. */
struct frame *sched_enter_block(struct sched *s, uint32_t id) {
  struct block_state *b = block_state(s, id);
  if (!b)
    return NULL;
  struct frame *fr;
  uint32_t pred = NONE32;
  if (b->entry) {
    fr = enter_function(s, b);
  } else if (unwind_to(s, b->pb->function)) {
    fr = &s->frames[s->depth - 1];
    pred = fr->block;
    end_instance(s, fr);
  } else {
    s->desync++; /* context lost: start from a fresh frame */
    fr = push_frame(s, b);
  }
  if (!fr)
    return NULL;
  enter_phis(s, fr, b->pb, pred);
  start_instance(s, fr, b, id);
  return fr;
}

/* A resumed block: the caller continues after call site `call` of `id`. */
struct frame *sched_resume_block(struct sched *s, uint32_t id, uint32_t call) {
  struct block_state *b = block_state(s, id);
  if (!b || call >= b->pb->n_sites)
    return NULL;
  struct frame *fr = NULL;
  if (unwind_to(s, b->pb->function)) {
    fr = &s->frames[s->depth - 1];
    if (fr->block != id) {
      end_instance(s, fr);
      start_instance(s, fr, b, id);
    }
  } else {
    s->desync++;
    if (!(fr = push_frame(s, b)))
      return NULL;
    start_instance(s, fr, b, id);
  }
  fr->pending = NONE32;
  fr->site = call + 1;
  fr->cursor = b->pb->sites[call].instr + 1;
  return fr;
}
