/* test_schedule.c: the ILP, DLP, BBLP and PBBLP schedules on small programs
 * built here in the metrics' own description (program.h) with hand-written
 * decoded streams (events.h).  Every expected value is derived by hand from
 * docs/metrics.md in the comment next to it. */
#include "budget.h"
#include "check.h"
#include "schedule.h"
#include "schedule_internal.h" /* to see that pages took smaller slots */

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- A tiny program builder ---------------------------------------------
 * Values are named by handles (an instruction, a phi or a parameter of the
 * function being built, by its index there) and become frame slots
 * (program.h: instructions, then phis, then parameters) in finish(). */

static struct program_block B[32];
static struct program_instr I[256];
static struct program_site S[64];
static struct program_phi P[32];
static struct program_function F[8];
static uint32_t OPS[512], INC[128];        /* slots, (block, slot) pairs */
static uint32_t OP_VAL[512], INC_VAL[128]; /* the same as handles */
static uint32_t first_instr[32], instr_fn[256], phi_fn[32], fn_first_phi[8];
static unsigned nb, ni, ns, np, nops, ninc, nf;
static struct program_block_source BS[32]; /* per block its innermost loop */
static struct program_loop LOOPS[4];
static const struct program PROGRAM = {B, F, BS, LOOPS};

enum { BR = 2, RET = 1, ADD = 13, FADD = 14, MUL = 17, FMUL = 18 };
enum { LOAD = 32, STORE = 33, ICMP = 53, CALL = 56 };
enum { VAL_NONE, VAL_INSTR, VAL_PHI, VAL_ARG };
#define VAL(kind, index) ((uint32_t)(kind) << 24 | (uint32_t)(index))
#define IU PROGRAM_INSTR_INDEX_UPDATE
#define ARG(n) VAL(VAL_ARG, n)

static void reset(void) {
  memset(B, 0, sizeof B);
  memset(I, 0, sizeof I);
  memset(S, 0, sizeof S);
  memset(P, 0, sizeof P);
  memset(F, 0, sizeof F);
  memset(LOOPS, 0, sizeof LOOPS);
  for (unsigned b = 0; b < 32; b++)
    BS[b] = (struct program_block_source){.loop = PROGRAM_NONE,
                                          .entry_loop = PROGRAM_NONE};
  nb = ni = ns = np = nops = ninc = nf = 0;
}

static void fn(const char *name) {
  F[nf] = (struct program_function){.name = name, .first_block = nb};
  fn_first_phi[nf++] = np;
}

static uint32_t blk(void) {
  B[nb] = (struct program_block){.function = nf - 1,
                                 .source = nf - 1,
                                 .first_slot = F[nf - 1].n_instrs,
                                 .instrs = &I[ni],
                                 .sites = &S[ns],
                                 .phis = &P[np],
                                 .operands = OPS,
                                 .incoming = INC};
  first_instr[nb] = ni;
  F[nf - 1].n_blocks++;
  return nb++;
}

/* An instruction with n operands (handles); returns its handle. */
static uint32_t ins(uint8_t opcode, uint8_t flags, unsigned n, ...) {
  va_list ap;
  va_start(ap, n);
  I[ni] = (struct program_instr){.opcode = opcode,
                                 .category = (uint8_t)program_category(opcode),
                                 .flags = flags,
                                 .site = PROGRAM_NONE,
                                 .first_operand = nops,
                                 .n_operands = n};
  for (unsigned k = 0; k < n; k++)
    OP_VAL[nops++] = va_arg(ap, uint32_t);
  va_end(ap);
  instr_fn[ni++] = nf - 1;
  B[nb - 1].n_instrs++;
  return VAL(VAL_INSTR, F[nf - 1].n_instrs++);
}

/* Makes the last instruction an access site. */
static void site(uint8_t kind, uint32_t size, const char *callee) {
  uint32_t k = ni - 1 - first_instr[nb - 1];
  S[ns++] = (struct program_site){
      .kind = kind, .lanes = 1, .size = size, .instr = k, .callee = callee};
  I[ni - 1].site = B[nb - 1].n_sites++;
}

/* A phi with n incoming edges, filled later by edge(). */
static uint32_t phi(uint32_t flags, unsigned n) {
  P[np] = (struct program_phi){ninc / 2, n, flags};
  ninc += 2 * n;
  phi_fn[np++] = nf - 1;
  B[nb - 1].n_phis++;
  return VAL(VAL_PHI, F[nf - 1].n_phis++);
}

/* Incoming value k of a phi of the current function. */
static void edge(uint32_t phi_val, unsigned k, uint32_t pred, uint32_t val) {
  const struct program_phi *p = &P[fn_first_phi[nf - 1] + (phi_val & 0xffffff)];
  INC[2 * (p->first_incoming + k)] = pred;
  INC_VAL[2 * (p->first_incoming + k) + 1] = val;
}

/* The frame slot of a handle in function f, parameters counted so far. */
static uint32_t slot_of(const struct program_function *f, uint32_t val) {
  uint32_t index = val & 0xffffff;
  switch (val >> 24) {
  case VAL_INSTR:
    return index;
  case VAL_PHI:
    return f->n_instrs + index;
  case VAL_ARG:
    return f->n_instrs + f->n_phis + index;
  default:
    return PROGRAM_NONE;
  }
}

static void use(struct program_function *f, uint32_t val) {
  if (val >> 24 == VAL_ARG && (val & 0xffffff) + 1 > f->n_args)
    f->n_args = (val & 0xffffff) + 1;
}

/* Frames sized, handles resolved to slots, phis placed after the
 * instructions; idempotent. */
static void finish(void) {
  for (unsigned f = 0; f < nf; f++)
    F[f].n_args = 0;
  for (unsigned i = 0; i < ni; i++)
    for (uint32_t k = 0; k < I[i].n_operands; k++)
      use(&F[instr_fn[i]], OP_VAL[I[i].first_operand + k]);
  for (unsigned q = 0; q < np; q++)
    for (uint32_t k = 0; k < P[q].n_incoming; k++)
      use(&F[phi_fn[q]], INC_VAL[2 * (P[q].first_incoming + k) + 1]);
  for (unsigned i = 0; i < ni; i++)
    for (uint32_t k = 0; k < I[i].n_operands; k++)
      OPS[I[i].first_operand + k] =
          slot_of(&F[instr_fn[i]], OP_VAL[I[i].first_operand + k]);
  for (unsigned q = 0; q < np; q++)
    for (uint32_t k = 0; k < P[q].n_incoming; k++)
      INC[2 * (P[q].first_incoming + k) + 1] =
          slot_of(&F[phi_fn[q]], INC_VAL[2 * (P[q].first_incoming + k) + 1]);
  for (unsigned b = 0, phis = 0; b < nb; b++) {
    const struct program_function *f = &F[B[b].function];
    if (b == f->first_block)
      phis = 0;
    B[b].phi_slot = f->n_instrs + phis;
    phis += B[b].n_phis;
  }
}

/* ---- Decoded streams -----------------------------------------------------
 * What the runtime's decoder would make of a thread's records, written as
 * tokens and cut into batches here. */

static struct token {
  /* 0 block entered, 1 resumed after call `site`, 2 address, 3 one of
   * several accesses of a site (`block`: its access kind; `site`: 1 for the
   * site's last) */
  int kind;
  uint32_t block, site;
  uint64_t addr;
} T[1 << 16];
static size_t nt;

static void ev_block(uint32_t id) { T[nt++] = (struct token){0, id, 0, 0}; }
static void ev_resume(uint32_t site_in_block, uint32_t id) {
  T[nt++] = (struct token){1, id, site_in_block, 0};
}
static void ev_addr(uint64_t a) { T[nt++] = (struct token){2, 0, 0, a}; }
/* An access of kind `kind` (events.h) of the current site, which has more
 * than one (a memcpy's source and destination, lanes); `last` ends it. */
static void ev_lane(uint64_t a, uint32_t kind, int last) {
  T[nt++] = (struct token){3, kind, (uint32_t)last, a};
}

/* Where the stream stands between batches: the block and its next site. */
struct feed {
  uint32_t block, site;
};

/* The batch of tokens [from, to). */
static void batch_of(struct event_batch *b, struct feed *f, size_t from,
                     size_t to) {
  EXPECT(event_batch_reset(b, to - from + 1, to - from) == 0);
  b->block_before = f->block;
  if (f->block != PROGRAM_NONE && from < to && T[from].kind == 2)
    event_add_instance(b, f->block, INSTANCE_CONTINUED, f->site);
  for (size_t i = from; i < to; i++) {
    const struct token *t = &T[i];
    if (t->kind >= 2) {
      const struct program_site *s = &B[f->block].sites[f->site];
      uint32_t kind = t->kind == 3                   ? t->block
                      : s->kind == PROGRAM_SITE_LOAD ? ACCESS_LOAD
                                                     : ACCESS_STORE;
      event_add_access(b, t->addr, s->size, f->site, kind, s->access_class);
      if (t->kind == 2 || t->site)
        f->site++;
      b->end_site[b->n_instances - 1] = f->site;
      continue;
    }
    f->block = t->block;
    f->site = t->kind ? t->site + 1 : 0;
    event_add_instance(b, t->block,
                       t->kind ? INSTANCE_RESUMED : INSTANCE_ENTERED, f->site);
  }
  b->first_access[b->n_instances] = (uint32_t)b->n_accesses;
}

static const struct sched_config ALL = {
    .windows = {0, 64}, .n_windows = 2, .bblp = 1};

/* Every case runs twice: with the run loop's copies that take the four
 * default schedules as one vector (where the processor has AVX2), and with
 * the copies that take them one at a time. */
static int scalar_copies;

/* Regions of interest: the set of them open from token `at` on (ids
 * ascending), as consume.c opens them between a batch's markers. */
struct opening {
  size_t at;
  uint32_t ids[2];
  size_t n;
};

/* The stream in one batch between openings (n_o of them, `at`
 * ascending), or one batch per token. */
static struct sched *run_regions(const struct sched_config *config,
                                 const struct opening *o, size_t n_o,
                                 int token_by_token) {
  finish();
  struct sched_config cfg = *config;
  cfg.scalar = scalar_copies;
  struct sched *s = sched_new(&cfg, &PROGRAM);
  EXPECT(s != NULL);
  struct event_batch b;
  struct feed f = {PROGRAM_NONE, 0};
  event_batch_init(&b);
  size_t k = 0;
  for (size_t i = 0; i < nt;) {
    for (; k < n_o && o[k].at <= i; k++)
      EXPECT_EQ(sched_open_regions(s, o[k].ids, o[k].n), 0);
    size_t to = token_by_token ? i + 1 : k < n_o ? o[k].at : nt;
    batch_of(&b, &f, i, to);
    sched_add_events(s, &b);
    i = to;
  }
  event_batch_free(&b);
  EXPECT_EQ(sched_desync(s), 0);
  return s;
}

/* The stream in one batch, or one batch per token. */
static struct sched *run_stream(const struct sched_config *config,
                                int token_by_token) {
  return run_regions(config, NULL, 0, token_by_token);
}

static struct par_result thread_result(const struct sched_config *cfg) {
  struct sched *s = run_stream(cfg, 0);
  struct par_result r;
  sched_thread_result(s, &r);
  sched_free(s);
  return r;
}

static double val(const struct par_ratio *r) {
  return r->n ? r->wsum / (double)r->n : 0.0;
}

#define NEAR(got, want)                                                        \
  do {                                                                         \
    double g_ = (got), w_ = (want);                                            \
    if (!(fabs(g_ - w_) <= 1e-9 * (fabs(w_) > 1 ? fabs(w_) : 1)) &&            \
        current_ok) {                                                          \
      fprintf(stderr, "%s:%d: %s is %.12g, expected %.12g\n", __FILE__,        \
              __LINE__, #got, g_, w_);                                         \
      current_ok = 0;                                                          \
    }                                                                          \
  } while (0)

/* ---- Cases ----------------------------------------------------------------
 */

/* a = add; b = add; c = add a, b; ret c.
 * Unlimited: a 1, b 1, c 2, ret 3: ILP 4/3; int: a and c set new highs,
 * span 2, ILP 3/2; control 1.  Window 2: c enters when a (1) leaves: 2;
 * ret when b leaves: 3; ILP 4/3.  Window 1: 1, 2, 3, 4: ILP 1.
 * BBLP in order: 1, 2, 3, 4: 1.  DLP1 = (3/2 * 3 + 1 * 1) / 4 = 1.375. */
static void test_straight_line(void) {
  reset();
  fn("main");
  blk();
  uint32_t a = ins(ADD, 0, 0), b = ins(ADD, 0, 0), c = ins(ADD, 0, 2, a, b);
  ins(RET, 0, 1, c);
  nt = 0;
  ev_block(0);
  struct sched_config cfg = {.windows = {0, 2, 1}, .n_windows = 3, .bblp = 1};
  struct par_result r = thread_result(&cfg);
  NEAR(val(&r.win[0].ilp), 4.0 / 3);
  NEAR(val(&r.win[0].cat[PISA_CAT_INT]), 1.5);
  NEAR(val(&r.win[0].cat[PISA_CAT_CONTROL]), 1.0);
  NEAR(val(&r.win[0].op[ADD]), 1.5);
  NEAR(val(&r.win[1].ilp), 4.0 / 3);
  NEAR(val(&r.win[2].ilp), 1.0);
  NEAR(val(&r.bblp), 1.0);
  NEAR(val(&r.bblp_smart), 1.0);
  NEAR(val(&r.pbblp), 1.0);
  NEAR(val(&r.dlp1), 1.375);
  NEAR(val(&r.dlp2), 1.375);
}

/* store X; load X; store X; ret: 1, 2 (RAW), 3 (WAR after the load), ret 1:
 * ILP 4/3, memory span 3: ILP_memory 1.  With the load at Y: 1, 1, 2 (WAW),
 * 1: ILP 2, memory span 2: 3/2. */
/* store X; load Y; store X; ret, with Y = X when `same`. */
/* One block: three 8-byte accesses without operands (each a load when
 * its bit of `loads` is set, else a store) at a[0..2], then ret. */
static void build_three_accesses(unsigned loads, const uint64_t a[3]) {
  reset();
  fn("main");
  blk();
  for (unsigned k = 0; k < 3; k++) {
    int load = loads >> k & 1;
    ins(load ? LOAD : STORE, 0, 0);
    site(load ? PROGRAM_SITE_LOAD : PROGRAM_SITE_STORE, 8, NULL);
  }
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < 3; k++)
    ev_addr(a[k]);
}

static void build_store_load_store(int same) {
  const uint64_t a[3] = {0x1000, same ? 0x1000 : 0x2000, 0x1000};
  build_three_accesses(2, a);
}

static void test_memory_order(void) {
  for (int same = 1; same >= 0; same--) {
    build_store_load_store(same);
    struct par_result r = thread_result(&ALL);
    NEAR(val(&r.win[0].ilp), same ? 4.0 / 3 : 2.0);
    NEAR(val(&r.win[0].cat[PISA_CAT_MEMORY]), same ? 1.0 : 1.5);
  }
}

/* main: a = add; r = call f(a); s = add r; ret s.   f(x): y = add x, x;
 * z = add; ret y.  Unlimited: a 1, call 2, y 2, z 1, ret_f 3, the result
 * is ready at 3, s 4, ret 5: ILP 7/5.  Per function: main 1, 2, 4, 5 (span
 * 4, ILP 1); f: y 2, z 1, ret 3 (span 2, ILP 3/2).  BBLP: main a 1, call 2;
 * f in order y 2, z 3, ret 4; s = max(3, 5) = 5, ret 6: 7/6.
 * An uninstrumented callee: s 3, ret 4: ILP 4/4, BBLP 4/4. */
static void test_calls(void) {
  reset();
  fn("main");
  blk();
  uint32_t a = ins(ADD, 0, 0);
  uint32_t r = ins(CALL, 0, 2, a, (uint32_t)VAL_NONE);
  site(PROGRAM_SITE_CALL, 0, "f");
  uint32_t s = ins(ADD, 0, 1, r);
  ins(RET, 0, 1, s);
  fn("f");
  blk();
  uint32_t y = ins(ADD, 0, 2, ARG(0), ARG(0));
  ins(ADD, 0, 0);
  ins(RET, 0, 1, y);

  nt = 0;
  ev_block(0);
  ev_block(1);
  ev_resume(0, 0);
  struct sched *sc = run_stream(&ALL, 0);
  struct par_result t, fmain, ff;
  sched_thread_result(sc, &t);
  sched_function_result(sc, 0, &fmain);
  sched_function_result(sc, 1, &ff);
  sched_free(sc);
  NEAR(val(&t.win[0].ilp), 7.0 / 5);
  NEAR(val(&fmain.win[0].ilp), 1.0);
  NEAR(val(&ff.win[0].ilp), 1.5);
  NEAR(val(&t.bblp), 7.0 / 6);
  /* Adds in the thread: a 1, y 2, z 1, s 4, new highs at 1, 2, 4: 4/3;
   * in main a 1, s 4: 1; in f y 2, z 1: 2.  Rets: f's 3, main's 5: 1. */
  NEAR(val(&t.win[0].op[ADD]), 4.0 / 3);
  NEAR(val(&fmain.win[0].op[ADD]), 1.0);
  NEAR(val(&ff.win[0].op[ADD]), 2.0);
  NEAR(val(&t.win[0].op[RET]), 1.0);

  nt = 0; /* f never ran: the call went to code without instrumentation */
  ev_block(0);
  ev_resume(0, 0);
  struct par_result e = thread_result(&ALL);
  NEAR(val(&e.win[0].ilp), 1.0);
  NEAR(val(&e.bblp), 1.0);
}

/* 100 independent adds and a ret, with the default windows 0 and 64.
 * Unlimited: all 101 issue at 1: ILP 101.  Window 64: the first 64 issue
 * at 1; each later one enters as the one 64 places earlier (at 1) leaves,
 * so the floor is 1 and it issues at 2: ILP 101/2.  BBLP in order: 1. */
static void test_window_floor(void) {
  reset();
  fn("main");
  blk();
  for (unsigned i = 0; i < 100; i++)
    ins(ADD, 0, 0);
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), 101.0);
  NEAR(val(&r.win[1].ilp), 101.0 / 2);
  NEAR(val(&r.win[1].op[ADD]), 100.0 / 2);
  NEAR(val(&r.bblp), 1.0);
}

/* One opcode in two categories, as a call to an intrinsic that lowers to
 * arithmetic is (its category is the intrinsic's): a = add; b = add a;
 * c = add b; x = call c (fp); y = call (control); ret y.  Unlimited: a 1,
 * b 2, c 3, x 4, y 1, ret 2: ILP 6/4.  int: 1, 2, 3, span 3: 1.  fp: x,
 * 1.  control: y 1 and ret 2 both set new highs: 2/2 = 1, though y issues
 * below the highest call (x, 4): call x 4, y 1, span 1: 2/1. */
static void test_opcode_in_two_categories(void) {
  reset();
  fn("main");
  blk();
  uint32_t a = ins(ADD, 0, 0), b = ins(ADD, 0, 1, a), c = ins(ADD, 0, 1, b);
  ins(CALL, 0, 1, c);
  I[ni - 1].category = PISA_CAT_FP;
  uint32_t y = ins(CALL, 0, 0);
  ins(RET, 0, 1, y);
  nt = 0;
  ev_block(0);
  struct sched *sc = run_stream(&ALL, 0);
  struct par_result t, fmain;
  sched_thread_result(sc, &t);
  sched_function_result(sc, 0, &fmain);
  sched_free(sc);
  const struct par_result *scope[] = {&t, &fmain};
  for (unsigned i = 0; i < 2; i++) {
    NEAR(val(&scope[i]->win[0].ilp), 6.0 / 4);
    NEAR(val(&scope[i]->win[0].cat[PISA_CAT_INT]), 1.0);
    NEAR(val(&scope[i]->win[0].cat[PISA_CAT_FP]), 1.0);
    NEAR(val(&scope[i]->win[0].cat[PISA_CAT_CONTROL]), 1.0);
    NEAR(val(&scope[i]->win[0].op[CALL]), 2.0);
  }
}

/* E: a = add; b = mul a; br.  K: br.  J: p = phi [E: b] [K: a]; c = add p;
 * ret c.  E then J: a 1, b 2, br 1, c 3, ret 4: ILP 5/4.  E, K, J: p is a
 * (ready 1): c 2, ret 3, with two br at 1: ILP 6/3. */
static void test_phi_edges(void) {
  reset();
  fn("main");
  blk();
  uint32_t a = ins(ADD, 0, 0), b = ins(MUL, 0, 1, a);
  ins(BR, 0, 0);
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t p = phi(0, 2);
  edge(p, 0, 0, b);
  edge(p, 1, 1, a);
  uint32_t c = ins(ADD, 0, 1, p);
  ins(RET, 0, 1, c);
  nt = 0;
  ev_block(0);
  ev_block(2);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), 5.0 / 4);
  nt = 0;
  ev_block(0);
  ev_block(1);
  ev_block(2);
  r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), 2.0);
}

/* The loop of PISA-NMC figure 3, whose only cross-iteration dependency is
 * the index update:  pre: br.  loop: i = phi [pre: 0] [loop: A] (index);
 * L = load i; M = fmul L, L; St = store M, i; A = add i (index); C = icmp A;
 * br C.  exit: ret.  Iteration k (from 1), unlimited window: i = k - 1,
 * A = k, L = k, M = k+1, St = k+2, C = k+1, br = k+2: cycles n + 2, ILP
 * (6n + 2) / (n + 2).  BBLP: L_k = 1 + A_{k-1} with A = L + 3, so L_k =
 * 4k - 3 and the last br is 4n + 2: (6n + 2) / (4n + 2).  Smart: i and A are
 * ready at 0, every iteration runs 1..6: (6n + 2) / 6.  PBBLP: pre holds
 * only a branch (omitted), every iteration is level 1 (n / 1), exit 1 / 1:
 * (n * n + 1) / (n + 1). */
static void build_figure3(unsigned n) {
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t i = phi(IU, 2);
  uint32_t L = ins(LOAD, 0, 1, i);
  site(PROGRAM_SITE_LOAD, 8, NULL);
  uint32_t M = ins(FMUL, 0, 2, L, L);
  ins(STORE, 0, 2, M, i);
  site(PROGRAM_SITE_STORE, 8, NULL);
  uint32_t A = ins(ADD, IU, 1, i);
  uint32_t C = ins(ICMP, 0, 1, A);
  ins(BR, 0, 1, C);
  edge(i, 0, 0, VAL_NONE);
  edge(i, 1, 1, A);
  blk();
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < n; k++) {
    ev_block(1);
    ev_addr(0x100000 + 8 * k);
    ev_addr(0x900000 + 8 * k);
  }
  ev_block(2);
}

static void test_figure3(void) {
  const double n = 100;
  build_figure3(100);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), (6 * n + 2) / (n + 2));
  NEAR(val(&r.bblp), (6 * n + 2) / (4 * n + 2));
  NEAR(val(&r.bblp_smart), (6 * n + 2) / 6);
  EXPECT(val(&r.bblp_smart) > val(&r.bblp));
  NEAR(val(&r.pbblp), (n * n + 1) / (n + 1));
  /* Every opcode advances by one per iteration: ILP_op = 1, DLP1 = 1; the
   * unit-stride accesses give DLP2 = DLP1. */
  NEAR(val(&r.win[0].op[LOAD]), 1.0);
  NEAR(val(&r.dlp1), 1.0);
  NEAR(val(&r.dlp2), 1.0);
}

/* Per loop, the span definition over the loop's instructions: figure 3's
 * loop (block 1, loop 0) has 6 instructions per iteration issuing at L k,
 * M k+1, St k+2, A k, C k+1, br k+2; the first iteration sets new highs at
 * 1, 2, 3, every later one once (St): span n + 2, ILP 6n / (n + 2), less
 * than the thread's (6n + 2) / (n + 2) by the two instructions outside.
 * Without cfg.loops no loop has a result. */
static void test_loop_figure3(void) {
  const double n = 100;
  build_figure3(100);
  LOOPS[0] = (struct program_loop){
      .parent = PROGRAM_NONE, .header = 1, .preheader = 0, .depth = 1};
  BS[1].loop = 0;
  struct sched_config loops = ALL;
  loops.loops = 1;
  struct sched *s = run_stream(&loops, 0);
  struct par_result r;
  sched_loop_result(s, 0, &r);
  NEAR(val(&r.win[0].ilp), 6 * n / (n + 2));
  EXPECT_EQ(r.win[0].ilp.n, 600);
  sched_free(s);
  s = run_stream(&ALL, 0);
  sched_loop_result(s, 0, &r);
  EXPECT_EQ(r.win[0].ilp.n, 0);
  EXPECT_EQ(r.bblp.n, 0);
  sched_free(s);
}

/* A nest: E: br.  O (outer loop 0): a = add; br.  I (inner loop 1 in 0):
 * c = add p, p = phi [O: none] [I: c]; br.  X: ret.  Stream E, R times (O,
 * M times I), X; unlimited window.  Every add a and br issues at 1; c at
 * 1, 2, ..., M in each inner run (its chain restarts from O).
 * Inner: 2RM instructions, new highs c = 1..M in the first run only: span
 * M, ILP 2R.  Outer (inner included, not a sum of the two): a = 1 then the
 * first run's c = 2..M: span M, 2R(M + 1) instructions, ILP 2R(M + 1)/M.
 * Adds: inner RM / M = R; outer (R + RM) / M.  Branches issue at 1: span 1.
 * DLP1 = (ILP_add N_add + ILP_br N_br) / N: inner (R RM + RM RM) / 2RM =
 * R(M + 1)/2; outer R(M + 1)^2 / (2M).
 * BBLP, in order per instance: c_j = j, its br j + 1; a 1, O's br 2.  Inner
 * new highs c 1 then br 2..M+1: span M + 1, 2RM / (M + 1); outer a 1, br 2,
 * then I's br 3..M+1: span M + 1, 2R(M + 1) / (M + 1) = 2R.  PBBLP: I's
 * instances chain through c within a run (levels 1..M): RM / M = R; O's are
 * independent: R / 1; the outer loop's mean (R R + RM R) / (R + RM) = R. */
static void test_loop_nest(void) {
  const unsigned R = 3, M = 4;
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  ins(ADD, 0, 0);
  ins(BR, 0, 0);
  blk();
  uint32_t p = phi(0, 2);
  uint32_t c = ins(ADD, 0, 1, p);
  ins(BR, 0, 0);
  edge(p, 0, 1, VAL_NONE);
  edge(p, 1, 2, c);
  blk();
  ins(RET, 0, 0);
  LOOPS[0] = (struct program_loop){
      .parent = PROGRAM_NONE, .header = 1, .preheader = 0, .depth = 1};
  LOOPS[1] = (struct program_loop){
      .parent = 0, .header = 2, .preheader = PROGRAM_NONE, .depth = 2};
  BS[1].loop = 0;
  BS[2].loop = 1;
  nt = 0;
  ev_block(0);
  for (unsigned r = 0; r < R; r++) {
    ev_block(1);
    for (unsigned m = 0; m < M; m++)
      ev_block(2);
  }
  ev_block(3);
  struct sched_config loops = ALL;
  loops.loops = 1;
  struct sched *s = run_stream(&loops, 0);
  struct par_result in, out;
  sched_loop_result(s, 1, &in);
  sched_loop_result(s, 0, &out);
  sched_free(s);
  const double r = R, m = M;
  NEAR(val(&in.win[0].ilp), 2 * r);
  NEAR(val(&out.win[0].ilp), 2 * r * (m + 1) / m);
  EXPECT_EQ(out.win[0].ilp.n, 2 * R * (M + 1));
  NEAR(val(&in.win[0].op[ADD]), r);
  NEAR(val(&out.win[0].op[ADD]), (r + r * m) / m);
  NEAR(val(&in.dlp1), r * (m + 1) / 2);
  NEAR(val(&out.dlp1), r * (m + 1) * (m + 1) / (2 * m));
  NEAR(val(&in.bblp), 2 * r * m / (m + 1));
  NEAR(val(&out.bblp), 2 * r);
  NEAR(val(&in.pbblp), r);
  NEAR(val(&out.pbblp), r);
}

/* The same stream cut into one batch per token (an instance continued over
 * many batches) gives the same schedule. */
static void test_split_words(void) {
  build_figure3(50);
  struct sched *a = run_stream(&ALL, 0), *b = run_stream(&ALL, 1);
  struct par_result ra, rb;
  sched_thread_result(a, &ra);
  sched_thread_result(b, &rb);
  EXPECT(memcmp(&ra, &rb, sizeof ra) == 0);
  sched_free(a);
  sched_free(b);
}

/* pre: br.  body: L = load (no operands); br.  exit: ret.  Everything issues
 * at cycle 1: ILP_load = n, ILP_br = n + 1, ILP_ret = 1, and DLP1 =
 * (n*n + (n+1)^2 + 1) / (2n + 2).  Unit stride: f = (n-1)/n, ILP2_load =
 * f n + 1 - f.  Scattered addresses: f = 0, ILP2_load = 1.  A region open
 * over the whole stream has the same opcode spans and accesses: the same
 * DLP1 and DLP2. */
static void test_dlp(void) {
  const unsigned n = 64;
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    reset();
    fn("main");
    blk();
    ins(BR, 0, 0);
    blk();
    ins(LOAD, 0, 0);
    site(PROGRAM_SITE_LOAD, 8, NULL);
    ins(BR, 0, 0);
    blk();
    ins(RET, 0, 0);
    nt = 0;
    ev_block(0);
    for (unsigned k = 0; k < n; k++) {
      ev_block(1);
      ev_addr(contiguous ? 0x4000 + 8 * k : 0x4000 + 64 * ((k * 37) % n));
    }
    ev_block(2);
    const struct opening all = {0, {4}, 1};
    struct sched *s = run_regions(&ALL, &all, 1, 0);
    struct par_result r, region;
    sched_thread_result(s, &r);
    sched_region_result(s, 4, &region);
    sched_free(s);
    double N = n, f = contiguous ? (N - 1) / N : 0;
    double dlp1 = (N * N + (N + 1) * (N + 1) + 1) / (2 * N + 2);
    double dlp2 = ((f * N + 1 - f) * N + (N + 1) * (N + 1) + 1) / (2 * N + 2);
    NEAR(val(&r.win[0].op[LOAD]), N);
    NEAR(val(&r.dlp1), dlp1);
    NEAR(val(&r.dlp2), dlp2);
    EXPECT(val(&r.dlp2) <= val(&r.dlp1));
    NEAR(val(&region.dlp1), dlp1);
    NEAR(val(&region.dlp2), dlp2);
  }
}

/* loop: i = phi (index); [s = phi [pre: 0] [loop: s2]]; x = load i; y = load
 * i; s2 = fadd (s | x), y; store s2, i; A = add i (index); br.
 * Vector add: iterations are independent: PBBLP_loop = n.  Prefix sum:
 * iteration k uses s2 of iteration k - 1: levels 1..n, PBBLP_loop = 1.
 * Totals add exit (ret, 1 instance): (n * P + 1) / (n + 1). */
static void test_pbblp_ssa(void) {
  const unsigned n = 40;
  for (int prefix = 0; prefix < 2; prefix++) {
    reset();
    fn("main");
    blk();
    ins(BR, 0, 0);
    blk();
    uint32_t i = phi(IU, 2);
    uint32_t s = prefix ? phi(0, 2) : 0;
    uint32_t x = ins(LOAD, 0, 1, i);
    site(PROGRAM_SITE_LOAD, 8, NULL);
    uint32_t y = ins(LOAD, 0, 1, i);
    site(PROGRAM_SITE_LOAD, 8, NULL);
    uint32_t s2 = ins(FADD, 0, 2, prefix ? s : x, y);
    ins(STORE, 0, 2, s2, i);
    site(PROGRAM_SITE_STORE, 8, NULL);
    uint32_t A = ins(ADD, IU, 1, i);
    ins(BR, 0, 1, A);
    edge(i, 0, 0, VAL_NONE);
    edge(i, 1, 1, A);
    if (prefix) {
      edge(s, 0, 0, VAL_NONE);
      edge(s, 1, 1, s2);
    }
    blk();
    ins(RET, 0, 0);
    nt = 0;
    ev_block(0);
    for (unsigned k = 0; k < n; k++) {
      ev_block(1);
      ev_addr(0x10000 + 8 * k);
      ev_addr(0x20000 + 8 * k);
      ev_addr(0x30000 + 8 * k);
    }
    ev_block(2);
    struct par_result r = thread_result(&ALL);
    double N = n, loop = prefix ? 1 : N;
    NEAR(val(&r.pbblp), (N * loop + 1) / (N + 1));
  }
}

/* Through memory, with the dependency found after the instance already
 * stored something: loop: i = phi (index); store i -> X_k; x = load X_{k-1};
 * store x -> Z_k; A = add i (index); br.  Iteration k reads what iteration
 * k - 1 stored first, so levels are 1, 2, ..., n and PBBLP_loop = 1: the
 * level of X_{k-1} must be iteration k-1's final level, not the level it
 * had when it stored X_{k-1}.  With `gather`, a gather after the load reads
 * bytes 1 to 7 of X_k and byte 1 again (test_smaller_slots). */
static void build_loop_through_memory(unsigned n, int gather) {
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t i = phi(IU, 2);
  ins(STORE, 0, 1, i);
  site(PROGRAM_SITE_STORE, 8, NULL);
  uint32_t x = ins(LOAD, 0, 0);
  site(PROGRAM_SITE_LOAD, 8, NULL);
  if (gather) {
    ins(LOAD, 0, 0);
    site(PROGRAM_SITE_GATHER, 1, NULL);
  }
  ins(STORE, 0, 1, x);
  site(PROGRAM_SITE_STORE, 8, NULL);
  uint32_t A = ins(ADD, IU, 1, i);
  ins(BR, 0, 1, A);
  edge(i, 0, 0, VAL_NONE);
  edge(i, 1, 1, A);
  blk();
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < n; k++) {
    ev_block(1);
    ev_addr(0x50000 + 8 * k);                    /* X_k */
    ev_addr(k ? 0x50000 + 8 * (k - 1) : 0x1234); /* X_{k-1} */
    for (unsigned lane = 0; gather && lane < 8; lane++)
      ev_lane(0x50000 + 8 * k + lane % 7 + 1, ACCESS_GATHER_LANE, lane == 7);
    ev_addr(0x70000 + 8 * k); /* Z_k */
  }
  ev_block(2);
}

static void test_pbblp_memory(void) {
  build_loop_through_memory(30, 0);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.pbblp), 1.0);
}

/* Memory entries widen from 32 to 64 bits before a value could reach the
 * limit, in the middle of the stream, with stores of the previous
 * iteration still waiting for their level (the loop above); the results
 * are those of entries that never widen.  Unlimited: i_k is ready at k
 * (A_{k-1} = k), store X_k k + 1, load X_{k-1} k + 1 (after store X_{k-1}
 * at k; X_{-1} is free: 1), store Z_k k + 2, A_k k + 1, br k + 2; entry br
 * 1 and ret 1: 1 + 5 * 30 + 1 instructions, highest cycle 31.  Window 64
 * holds about 13 iterations, whose issues are all within 12 cycles of
 * iteration k's: no floor binds, the same 152/31. */
static void test_widening(void) {
  const uint64_t limits[] = {0, 2, 10, 25, 60, (uint64_t)1 << 32};
  for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
    build_loop_through_memory(30, 0);
    struct sched_config cfg = ALL;
    cfg.narrow_limit = limits[l];
    struct par_result r = thread_result(&cfg);
    NEAR(val(&r.win[0].ilp), 152.0 / 31);
    NEAR(val(&r.win[1].ilp), 152.0 / 31);
    NEAR(val(&r.pbblp), 1.0);
    EXPECT_EQ(r.untracked, 0);
  }
}

/* Beyond the memory limit accesses carry no memory dependency and the
 * families say so: the store/load/store block of test_memory_order then
 * issues everything at cycle 1 (ILP 4), approximate with its bound. */
static void test_memory_limit(void) {
  build_store_load_store(1);
  struct sched_config cfg = ALL;
  cfg.max_memory_bytes = 1;
  struct par_result r = thread_result(&cfg);
  NEAR(val(&r.win[0].ilp), 4.0);
  EXPECT_EQ(r.untracked, 3);
  json_object *o = json_object_new_object();
  par_to_json(&r, o);
  json_object *bblp, *bound, *limit;
  EXPECT(json_object_object_get_ex(o, "bblp", &bblp) &&
         json_object_object_get_ex(bblp, "approximate", NULL) &&
         json_object_object_get_ex(bblp, "bound", &bound) &&
         json_object_object_get_ex(bound, "max_memory_bytes", &limit) &&
         json_object_get_int64(limit) == 1);
  json_object_put(o);
  r = thread_result(&ALL); /* no limit: exact, not marked */
  EXPECT_EQ(r.untracked, 0);
}

/* Pages no access has stored to hold short entries (load ready cycles
 * only), made whole by their first store; the loads' cycles must move
 * with them.  load X; store X; load X; ret, X on a page first loaded:
 * unlimited 1, 2 (WAR after the load), 3 (RAW), ret 1: ILP 4/3 (2 if the
 * store lost the load's cycle); BBLP in order 1, 2, 3, 4: 1. */
static void test_short_entries(void) {
  const uint64_t a[3] = {0x9008, 0x9008, 0x9008};
  build_three_accesses(5, a);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), 4.0 / 3);
  NEAR(val(&r.win[1].ilp), 4.0 / 3);
  NEAR(val(&r.bblp), 1.0);
  EXPECT_EQ(r.untracked, 0);
}

/* One instruction whose first access loads from a new page and whose
 * second stores to the same page: the store makes the page's entries
 * whole while the load's entry is already taken, and the load's cycle
 * must land in the whole entry.  memcpy (source Y, destination Y + 8) 1;
 * store Y 2 (WAR after the memcpy's load); ret 1: ILP 3/2 (3 if lost).
 * The other way round (destination first) the page is whole from the
 * start: the same. */
static void test_short_entries_one_instruction(void) {
  for (int dest_first = 0; dest_first < 2; dest_first++) {
    reset();
    fn("main");
    blk();
    ins(CALL, 0, 0);
    site(PROGRAM_SITE_MEMCPY, 8, NULL);
    ins(STORE, 0, 0);
    site(PROGRAM_SITE_STORE, 8, NULL);
    ins(RET, 0, 0);
    nt = 0;
    ev_block(0);
    if (dest_first)
      ev_lane(0x7008, ACCESS_MEMCPY_DEST, 0);
    ev_lane(0x7000, ACCESS_MEMCPY_SOURCE, dest_first);
    if (!dest_first)
      ev_lane(0x7008, ACCESS_MEMCPY_DEST, 1);
    ev_addr(0x7000);
    struct par_result r = thread_result(&ALL);
    NEAR(val(&r.win[0].ilp), 3.0 / 2);
    EXPECT_EQ(r.untracked, 0);
  }
}

/* main: br; block 1, a loop (i): load Y [i]; i + 1; br; block 2, a loop
 * (j): store Y; load Y; j + 1; br; block 3: ret.  The streams choose Y
 * and the iterations; the loads' addresses wait for i (i_k is ready at
 * k, so load k issues at k + 1 in the unlimited window). */
static void build_read_then_write(void) {
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t i = phi(IU, 2);
  ins(LOAD, 0, 1, i);
  site(PROGRAM_SITE_LOAD, 8, NULL);
  uint32_t a = ins(ADD, IU, 1, i);
  ins(BR, 0, 1, a);
  edge(i, 0, 0, VAL_NONE);
  edge(i, 1, 1, a);
  blk();
  uint32_t j = phi(IU, 2);
  ins(STORE, 0, 0);
  site(PROGRAM_SITE_STORE, 8, NULL);
  ins(LOAD, 0, 0);
  site(PROGRAM_SITE_LOAD, 8, NULL);
  uint32_t c = ins(ADD, IU, 1, j);
  ins(BR, 0, 1, c);
  edge(j, 0, 1, VAL_NONE);
  edge(j, 1, 2, c);
  blk();
  ins(RET, 0, 0);
}

/* Short entries made whole and widened, in either order, in the middle of
 * the stream.  main: br; loop 1 (i): load Y_k [i]; i + 1; br; loop 2 (j):
 * store Y_k; load Y_k; j + 1; br; ret; 30 iterations each, Y_k alone on
 * its page.  Unlimited: i_k is ready at k, load Y_k k + 1 (its address
 * waits for i), add k + 1, br k + 2; store Y_k k + 2 (WAR), load Y_k k + 3
 * (RAW), j's add k + 1, br k + 2; entry br 1, ret 1: 1 + 90 + 120 + 1
 * instructions, highest cycle 32 (31 if the stores lost the loads'
 * cycles). */
static void test_short_entries_widening(void) {
  const uint64_t limits[] = {0, 2, 10, 25, 60, (uint64_t)1 << 32};
  for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
    build_read_then_write();
    nt = 0;
    ev_block(0);
    for (unsigned k = 0; k < 30; k++) {
      ev_block(1);
      ev_addr(0x400000 + 0x1000 * k);
    }
    for (unsigned k = 0; k < 30; k++) {
      ev_block(2);
      ev_addr(0x400000 + 0x1000 * k);
      ev_addr(0x400000 + 0x1000 * k);
    }
    ev_block(3);
    struct sched_config cfg = ALL;
    cfg.narrow_limit = limits[l];
    struct par_result r = thread_result(&cfg);
    NEAR(val(&r.win[0].ilp), 212.0 / 32);
    EXPECT_EQ(r.untracked, 0);
    cfg = (struct sched_config){.windows = {0}, .n_windows = 1};
    cfg.narrow_limit = limits[l];
    r = thread_result(&cfg);
    NEAR(val(&r.win[0].ilp), 212.0 / 32);
  }
}

/* A page of 8-byte slots (its first access stores 8 bytes) whose other
 * bytes are then read: their overflow entries move into the page once it
 * takes 1-byte slots, in the middle of an instance whose store waits for
 * its final level (the stores list must follow the entry) and in the
 * middle of one instruction's accesses.  The loop of test_pbblp_memory
 * with, after load X_{k-1}, a gather of bytes 1 to 7 of X_k (and byte 1
 * again; never stored): at k = 2 the 19th such address, at offset 4,
 * passes the 16 overflow entries that 4-byte slots would take (the page
 * then takes 1-byte slots, which the odd bytes need).  The gather issues
 * at 1 (no dependency; the window's floor stays below the highest
 * cycle), so the results are the loop's with one instruction more per
 * iteration: 1 + 6 * 30 + 1 instructions, highest cycle 31, PBBLP 1; with
 * entries widening before, after and while the page changes. */
static void test_smaller_slots(void) {
  const uint64_t limits[] = {0, 10, 60, (uint64_t)1 << 32};
  for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
    build_loop_through_memory(30, 1);
    struct sched_config cfg = ALL;
    cfg.narrow_limit = limits[l];
    struct sched *sc = run_stream(&cfg, 0);
    EXPECT(sc->entries_moved > 0);             /* the page took smaller slots */
    EXPECT_EQ(u64map_count(&sc->overflow), 0); /* and holds every address */
    struct par_result r;
    sched_thread_result(sc, &r);
    sched_free(sc);
    NEAR(val(&r.win[0].ilp), 182.0 / 31);
    NEAR(val(&r.win[1].ilp), 182.0 / 31);
    NEAR(val(&r.pbblp), 1.0);
    EXPECT_EQ(r.untracked, 0);
  }
}

/* Smaller slots taken in the middle of one instruction's accesses: the
 * accesses it took before (overflow entries then) must find their entries
 * in the page.  A scatter of four 8-byte words at P (the page's slots);
 * five adds in a chain; a gather [c5] of the bytes of those words at
 * offsets 1 to 3 and 5 to 7 (24 overflow entries), then P + 4 (past the
 * 16 that 4-byte slots would take: the page takes 1-byte slots, which
 * the odd bytes need); store 1 byte at P + 1; load it; ret.  Unlimited:
 * scatter 1, adds 1 to 5, gather 6, store 7 (WAR after the gather's
 * lane), load 8, ret 1: ILP 10/8 (10/6 if the lane's cycle were lost). */
static void test_smaller_slots_one_instruction(void) {
  const uint64_t P = 0x60000;
  reset();
  fn("main");
  blk();
  ins(STORE, 0, 0);
  site(PROGRAM_SITE_SCATTER, 8, NULL);
  uint32_t c = ins(ADD, 0, 0);
  for (int k = 1; k < 5; k++)
    c = ins(ADD, 0, 1, c);
  ins(LOAD, 0, 1, c);
  site(PROGRAM_SITE_GATHER, 1, NULL);
  ins(STORE, 0, 0);
  site(PROGRAM_SITE_STORE, 1, NULL);
  ins(LOAD, 0, 0);
  site(PROGRAM_SITE_LOAD, 1, NULL);
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  for (unsigned w = 0; w < 4; w++)
    ev_lane(P + 8 * w, ACCESS_SCATTER_LANE, w == 3);
  for (unsigned w = 0; w < 4; w++)
    for (unsigned b = 1; b < 8; b++)
      if (b != 4)
        ev_lane(P + 8 * w + b, ACCESS_GATHER_LANE, 0);
  ev_lane(P + 4, ACCESS_GATHER_LANE, 1);
  ev_addr(P + 1);
  ev_addr(P + 1);
  struct sched *sc = run_stream(&ALL, 0);
  EXPECT(sc->entries_moved > 0);
  struct par_result r;
  sched_thread_result(sc, &r);
  sched_free(sc);
  NEAR(val(&r.win[0].ilp), 10.0 / 8);
  NEAR(val(&r.win[1].ilp), 10.0 / 8);
  EXPECT_EQ(r.untracked, 0);
}

/* The short pages' memory: 1000 pages loaded, then stored to and loaded
 * again (test_short_entries_widening's loops, 1000 iterations).  A short
 * page of 8-byte slots is 32 key bytes and 32 entries of 4 words of 4
 * bytes, 544 bytes; runs of 256 KiB hold 481 of them, so the loads take
 * three runs.  Each store makes its page whole (32 + 32 * 11 * 4 = 1,440
 * bytes) and frees the short one: the first two runs are unmapped when their
 * last page goes, the third (being filled) stays.  Unlimited ILP: 1 + 3 * 1000
 * + 4 * 1000 + 1 instructions, highest cycle 999 + 3. */
static void test_short_runs(void) {
  EXPECT_EQ(budget_account_used(BUDGET_SCHED), 0); /* all given back */
  build_read_then_write();
  for (int stores = 0; stores < 2; stores++) {
    nt = 0;
    ev_block(0);
    for (unsigned k = 0; k < 1000; k++) {
      ev_block(1);
      ev_addr(0x10000000 + 0x1000 * k);
    }
    for (unsigned k = 0; stores && k < 1000; k++) {
      ev_block(2);
      ev_addr(0x10000000 + 0x1000 * k);
      ev_addr(0x10000000 + 0x1000 * k);
    }
    ev_block(3);
    struct sched *sc = run_stream(&ALL, 0);
    EXPECT_EQ(budget_account_used(BUDGET_SCHED),
              stores ? 1000 * 1440 + (256 << 10) : 3 * (256 << 10));
    struct par_result r;
    sched_thread_result(sc, &r);
    sched_free(sc);
    EXPECT_EQ(budget_account_used(BUDGET_SCHED), 0);
    if (stores)
      NEAR(val(&r.win[0].ilp), 7002.0 / 1002);
  }
}

/* Freed short pages serve the next short pages: 1000 pages loaded (three
 * runs, as in test_short_runs); all but the first page of each run stored
 * to (997 pages made whole, no run wholly freed); then 997 new pages
 * loaded, which take the freed short pages (cut from new runs instead,
 * they would take three more).  Budget: 3 runs and 997 whole pages. */
static void test_short_pages_reused(void) {
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  for (uint32_t b = 1; b <= 3; b++) { /* loops: load; store, load; load */
    blk();
    uint32_t i = phi(IU, 2);
    if (b == 2) {
      ins(STORE, 0, 0);
      site(PROGRAM_SITE_STORE, 8, NULL);
    }
    ins(LOAD, 0, 0);
    site(PROGRAM_SITE_LOAD, 8, NULL);
    uint32_t a = ins(ADD, IU, 1, i);
    ins(BR, 0, 1, a);
    edge(i, 0, b - 1, VAL_NONE);
    edge(i, 1, b, a);
  }
  blk();
  ins(RET, 0, 0);
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < 1000; k++) {
    ev_block(1);
    ev_addr(0x10000000 + 0x1000 * k);
  }
  for (unsigned k = 0; k < 1000; k++)
    if (k % 481) {
      ev_block(2);
      ev_addr(0x10000000 + 0x1000 * k);
      ev_addr(0x10000000 + 0x1000 * k);
    }
  for (unsigned k = 0; k < 997; k++) {
    ev_block(3);
    ev_addr(0x20000000 + 0x1000 * k);
  }
  ev_block(4);
  struct sched *sc = run_stream(&ALL, 0);
  EXPECT_EQ(budget_account_used(BUDGET_SCHED), 997 * 1440 + 3 * (256 << 10));
  sched_free(sc);
  EXPECT_EQ(budget_account_used(BUDGET_SCHED), 0);
}

/* Short pages that stay among freed ones move to new runs: 4000 pages
 * loaded, B and C in turn (nine runs of 481 pages, the last one part
 * full); then B's 2000 pages stored to and loaded.  No run is ever wholly
 * freed, and no short page comes to reuse the freed ones; when the lists
 * hold 1 MiB (1928 of B's 544-byte pages; more than half the 2072 pages
 * still short), those 2072 move into five new runs and the nine go, and
 * B's last 72 pages are made whole from there.  Budget: B's whole pages
 * and five runs (nine without the move).  Unlimited ILP:
 * 1 + 3 * 4000 + 4 * 2000 + 1 instructions, highest cycle 4001: the first
 * loop's last branch (k + 2 at k = 3999) and the second loop's last load
 * (B_k was loaded at iteration 2k, at 2k + 1, so its store issues at
 * 2k + 2 and the load after it at 2k + 3, k = 1999). */
static void test_short_pages_compacted(void) {
  build_read_then_write();
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < 4000; k++) { /* B_k, C_k in turn */
    ev_block(1);
    ev_addr((k % 2 ? 0x30000000 : 0x10000000) + 0x1000 * (k / 2));
  }
  for (unsigned k = 0; k < 2000; k++) {
    ev_block(2);
    ev_addr(0x10000000 + 0x1000 * k);
    ev_addr(0x10000000 + 0x1000 * k);
  }
  ev_block(3);
  struct sched *sc = run_stream(&ALL, 0);
  EXPECT_EQ(budget_account_used(BUDGET_SCHED), 2000 * 1440 + 5 * (256 << 10));
  struct par_result r;
  sched_thread_result(sc, &r);
  sched_free(sc);
  EXPECT_EQ(budget_account_used(BUDGET_SCHED), 0);
  NEAR(val(&r.win[0].ilp), 20002.0 / 4001);
}

/* ---- Regions of interest ----------------------------------------------
 * A region is a scope of the thread's one schedule (docs/metrics.md): the
 * span definition over what ran while it was open. */

/* Results a and b hold the same means with the same weights. */
static void expect_same_result(const struct par_result *a,
                               const struct par_result *b) {
  const struct par_ratio *x[] = {&a->dlp1, &a->dlp2, &a->bblp, &a->bblp_smart,
                                 &a->pbblp},
                         *y[] = {&b->dlp1, &b->dlp2, &b->bblp, &b->bblp_smart,
                                 &b->pbblp};
  for (unsigned k = 0; k < 5; k++) {
    NEAR(val(x[k]), val(y[k]));
    EXPECT_EQ(x[k]->n, y[k]->n);
  }
  for (unsigned w = 0; w < a->config.n_windows; w++) {
    NEAR(val(&a->win[w].ilp), val(&b->win[w].ilp));
    EXPECT_EQ(a->win[w].ilp.n, b->win[w].ilp.n);
    for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
      NEAR(val(&a->win[w].cat[c]), val(&b->win[w].cat[c]));
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      NEAR(val(&a->win[w].op[o]), val(&b->win[w].op[o]));
  }
}

/* Open around exactly the instances of figure 3's loop, a region has the
 * loop's instructions, so every result is the loop's (test_loop_figure3:
 * ILP 6n / (n + 2) over 600 instructions; DLP2 from the same accesses;
 * PBBLP n: the loop block's, all of whose instances it ran).  The same
 * stream one token per batch gives the same; a region never opened holds
 * nothing. */
static void test_region_is_its_loop(void) {
  const unsigned n = 100;
  build_figure3(n);
  LOOPS[0] = (struct program_loop){
      .parent = PROGRAM_NONE, .header = 1, .preheader = 0, .depth = 1};
  BS[1].loop = 0;
  struct sched_config loops = ALL;
  loops.loops = 1;
  /* tokens: block 0, then per iteration block 1 and two addresses */
  const struct opening o[] = {{1, {2}, 1}, {1 + 3 * n, {0}, 0}};
  for (int split = 0; split < 2; split++) {
    struct sched *s = run_regions(&loops, o, 2, split);
    struct par_result region, loop, never;
    sched_region_result(s, 2, &region);
    sched_loop_result(s, 0, &loop);
    sched_region_result(s, 1, &never);
    sched_free(s);
    NEAR(val(&region.win[0].ilp), 6.0 * n / (n + 2));
    EXPECT_EQ(region.win[0].ilp.n, 6 * n);
    NEAR(val(&region.pbblp), n);
    expect_same_result(&region, &loop);
    EXPECT_EQ(never.win[0].ilp.n, 0);
    EXPECT_EQ(never.pbblp.n, 0);
  }
}

/* Values produced before a region opened keep the cycles the thread's
 * schedule gave them.  E: a = add; b = add a; c = add b; br.  R: d = add c;
 * e = add; f = add e; g = add f; ret g.  Unlimited window: a 1, b 2, c 3,
 * br 1; d 4, e 1, f 2, g 3, ret 4.  Region 1 open over R only: d at 4 is
 * its first and highest issue, nothing issues later: span 1, ILP 5 (as a
 * machine of its own, starting empty, it would be d 1, e 1, f 2, g 3,
 * ret 4: 5/4).  Adds: d only sets a high, 4/1; ret 1/1; DLP1 = DLP2 =
 * (4 * 4 + 1 * 1) / 5.  BBLP in order: E 1, 2, 3, 4; R d 4, then 5, 6, 7,
 * 8: every one a new high, 5/5.  PBBLP: R's one instance, level 1: 1.
 * Region 3, open over E and R (nested: R opens region 1 inside it): the
 * new highs a 1, b 2, c 3, d 4: 9/4, the thread's ILP; with the 64 window
 * the same (no instruction waits for the window). */
static void test_region_thread_schedule(void) {
  reset();
  fn("main");
  blk();
  uint32_t a = ins(ADD, 0, 0), b = ins(ADD, 0, 1, a), c = ins(ADD, 0, 1, b);
  ins(BR, 0, 0);
  blk();
  ins(ADD, 0, 1, c);
  uint32_t e = ins(ADD, 0, 0), f = ins(ADD, 0, 1, e), g = ins(ADD, 0, 1, f);
  ins(RET, 0, 1, g);
  nt = 0;
  ev_block(0);
  ev_block(1);
  const struct opening o[] = {{0, {3}, 1}, {1, {1, 3}, 2}};
  for (int split = 0; split < 2; split++) {
    struct sched *s = run_regions(&ALL, o, 2, split);
    struct par_result r, outer, t;
    sched_region_result(s, 1, &r);
    sched_region_result(s, 3, &outer);
    sched_thread_result(s, &t);
    sched_free(s);
    for (unsigned w = 0; w < 2; w++) {
      NEAR(val(&r.win[w].ilp), 5.0);
      EXPECT_EQ(r.win[w].ilp.n, 5);
      NEAR(val(&r.win[w].op[ADD]), 4.0);
      NEAR(val(&r.win[w].op[RET]), 1.0);
      NEAR(val(&outer.win[w].ilp), 9.0 / 4);
      NEAR(val(&outer.win[w].ilp), val(&t.win[w].ilp));
    }
    NEAR(val(&r.dlp1), 17.0 / 5);
    NEAR(val(&r.dlp2), 17.0 / 5);
    NEAR(val(&r.bblp), 1.0);
    NEAR(val(&r.bblp_smart), 1.0);
    NEAR(val(&r.pbblp), 1.0);
    EXPECT_EQ(r.pbblp.n, 1);
  }
}

/* A region's PBBLP: its blocks' PBBLP (the thread's levels) weighted by
 * the instances that started while it was open.  L: x = load; y = add x;
 * store y; br, six times; instance k loads what an earlier one stored, so
 * its level is that one's + 1: A0 -> A1 (level 1), A1 -> A2 (2), A2 -> A3
 * (3), then with region 5 open Z0 -> Z1 (1), A3 -> A4 (4), Z1 -> Z2 (2):
 * PBBLP_L = 6 / 4.  M: w = add; store w; br, storing to a new address each
 * time: independent, 3 instances, PBBLP_M = 3; once before the region,
 * once in it, once after.  Region: (3 * 6/4 + 1 * 3) / 4 = 1.875 (the
 * blocks weighted by all their instances would give 2).  Freed, the region
 * holds nothing. */
static void test_region_pbblp(void) {
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t x = ins(LOAD, 0, 0);
  site(PROGRAM_SITE_LOAD, 8, NULL);
  uint32_t y = ins(ADD, 0, 1, x);
  ins(STORE, 0, 1, y);
  site(PROGRAM_SITE_STORE, 8, NULL);
  ins(BR, 0, 0);
  blk();
  uint32_t w = ins(ADD, 0, 0);
  ins(STORE, 0, 1, w);
  site(PROGRAM_SITE_STORE, 8, NULL);
  ins(BR, 0, 0);
  blk();
  ins(RET, 0, 0);
  static const uint64_t from[] = {0xa0, 0xa1, 0xa2, 0x20, 0xa3, 0x21},
                        to[] = {0xa1, 0xa2, 0xa3, 0x21, 0xa4, 0x22};
  nt = 0;
  ev_block(0);
  for (unsigned k = 0; k < 7; k++) {
    if (k == 3) { /* M before the region (tokens 10, 11) */
      ev_block(2);
      ev_addr(0x300 * 8);
      continue;
    }
    unsigned l = k < 3 ? k : k - 1;
    ev_block(1);
    ev_addr(from[l] * 8);
    ev_addr(to[l] * 8);
  }
  for (unsigned k = 1; k < 3; k++) { /* M in the region, then after it */
    ev_block(2);
    ev_addr((0x300 + k) * 8);
  }
  ev_block(3);
  const struct opening o[] = {{12, {5}, 1}, {23, {0}, 0}};
  for (int split = 0; split < 2; split++) {
    struct sched *s = run_regions(&ALL, o, 2, split);
    struct par_result r;
    uint64_t instances, levels;
    sched_region_result(s, 5, &r);
    NEAR(val(&r.pbblp), (3 * 6.0 / 4 + 1 * 3.0) / 4);
    EXPECT_EQ(r.pbblp.n, 4);
    EXPECT(sched_block_pbblp(s, 1, &instances, &levels));
    EXPECT_EQ(instances, 6);
    EXPECT_EQ(levels, 4);
    EXPECT(sched_block_pbblp(s, 2, &instances, &levels));
    EXPECT_EQ(instances, 3);
    EXPECT_EQ(levels, 1);
    sched_region_free(s, 5);
    sched_region_result(s, 5, &r);
    EXPECT_EQ(r.pbblp.n, 0);
    EXPECT_EQ(r.win[0].ilp.n, 0);
    sched_free(s);
  }
}

/* Merging: two threads' results weighted by their instruction counts. */
static void test_merge(void) {
  struct par_result a, b;
  par_init(&a, &ALL);
  par_init(&b, &ALL);
  a.win[0].ilp = (struct par_ratio){2.0 * 10, 10};
  b.win[0].ilp = (struct par_ratio){4.0 * 30, 30};
  par_merge(&a, &b);
  NEAR(val(&a.win[0].ilp), (2.0 * 10 + 4.0 * 30) / 40);
}

int main(void) {
  for (scalar_copies = 0; scalar_copies < 2; scalar_copies++) {
    if (scalar_copies)
      fprintf(stderr, "the scalar copies:\n");
    RUN(test_straight_line);
    RUN(test_memory_order);
    RUN(test_calls);
    RUN(test_window_floor);
    RUN(test_opcode_in_two_categories);
    RUN(test_phi_edges);
    RUN(test_figure3);
    RUN(test_loop_figure3);
    RUN(test_loop_nest);
    RUN(test_split_words);
    RUN(test_dlp);
    RUN(test_pbblp_ssa);
    RUN(test_pbblp_memory);
    RUN(test_widening);
    RUN(test_memory_limit);
    RUN(test_short_entries);
    RUN(test_short_entries_one_instruction);
    RUN(test_short_entries_widening);
    RUN(test_smaller_slots);
    RUN(test_smaller_slots_one_instruction);
    RUN(test_short_runs);
    RUN(test_short_pages_reused);
    RUN(test_short_pages_compacted);
    RUN(test_region_is_its_loop);
    RUN(test_region_thread_schedule);
    RUN(test_region_pbblp);
    RUN(test_merge);
  }
  return check_summary();
}
