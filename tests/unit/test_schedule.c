/* test_schedule.c: the ILP, DLP, BBLP and PBBLP schedules on small programs
 * built here as static tables (the pass's format) with hand-written record
 * streams.  Every expected value is derived by hand from METRICS.md in the
 * comment next to it. */
#include "check.h"
#include "schedule.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- A tiny program builder ------------------------------------------- */

static struct pisa_block B[32];
static struct pisa_instr I[256];
static struct pisa_site S[64];
static struct pisa_phi P[32];
static uint32_t OPS[512], INC[128];
static unsigned nb, ni, ns, np, nops, ninc;
static struct {
  const char *name;
  uint32_t first_block, n_blocks;
} F[8];
static unsigned nf;

enum { BR = 2, RET = 1, ADD = 13, FADD = 14, MUL = 17, FMUL = 18 };
enum { LOAD = 32, STORE = 33, ICMP = 53, CALL = 56 };
#define IU PISA_INSTR_INDEX_UPDATE
#define ARG(n) PISA_SOURCE(PISA_SRC_ARG, n)

static void reset(void) {
  memset(B, 0, sizeof B);
  memset(I, 0, sizeof I);
  memset(S, 0, sizeof S);
  memset(P, 0, sizeof P);
  nb = ni = ns = np = nops = ninc = nf = 0;
}

static void fn(const char *name) {
  F[nf].name = name;
  F[nf].first_block = nb;
  F[nf].n_blocks = 0;
  nf++;
}

static uint32_t blk(void) {
  B[nb] = (struct pisa_block){
      .function = nf - 1, .first_instr = ni, .first_site = ns, .first_phi = np};
  F[nf - 1].n_blocks++;
  return nb++;
}

/* An instruction with n operand sources; returns its source. */
static uint32_t ins(uint8_t opcode, uint8_t flags, unsigned n, ...) {
  va_list ap;
  va_start(ap, n);
  I[ni] = (struct pisa_instr){
      .opcode = opcode, .flags = flags, .first_operand = nops, .n_operands = n};
  for (unsigned k = 0; k < n; k++)
    OPS[nops++] = va_arg(ap, uint32_t);
  va_end(ap);
  B[nb - 1].n_instrs++;
  return PISA_SOURCE(PISA_SRC_INSTR, ni++);
}

/* Makes the last instruction an access site. */
static void site(uint8_t kind, uint32_t size, const char *callee) {
  S[ns++] = (struct pisa_site){.kind = kind,
                               .lanes = 1,
                               .size = size,
                               .instr = ni - 1,
                               .callee = callee};
  B[nb - 1].n_sites++;
}

/* A phi with n incoming edges, filled later by edge(). */
static uint32_t phi(uint32_t flags, unsigned n) {
  P[np] = (struct pisa_phi){nb - 1, ninc / 2, n, flags};
  ninc += 2 * n;
  B[nb - 1].n_phis++;
  return PISA_SOURCE(PISA_SRC_PHI, np++);
}

static void edge(uint32_t phi_src, unsigned k, uint32_t pred, uint32_t src) {
  const struct pisa_phi *p = &P[phi_src & PISA_SRC_INDEX_MASK];
  INC[2 * (p->first_incoming + k)] = pred;
  INC[2 * (p->first_incoming + k) + 1] = src;
}

static int describe(void *ctx, uint32_t id, struct sched_block *d) {
  (void)ctx;
  if (id >= nb)
    return -1;
  uint32_t f = B[id].function, first = F[f].first_block;
  memset(d, 0, sizeof *d);
  d->table = &B[id];
  d->instrs = &I[B[id].first_instr];
  d->sites = &S[B[id].first_site];
  d->phis = &P[B[id].first_phi];
  d->operands = OPS;
  d->incoming = INC;
  d->function_name = F[f].name;
  d->local = id;
  d->function = f;
  d->entry = id == first;
  d->instr_base = B[first].first_instr;
  d->phi_base = B[first].first_phi;
  for (uint32_t b = first; b < first + F[f].n_blocks; b++) {
    d->n_instrs += B[b].n_instrs;
    d->n_phis += B[b].n_phis;
    for (uint32_t k = 0; k < B[b].n_instrs; k++) {
      const struct pisa_instr *in = &I[B[b].first_instr + k];
      d->n_args =
          sched_args_used(OPS + in->first_operand, in->n_operands, d->n_args);
    }
    for (uint32_t p = 0; p < B[b].n_phis; p++)
      for (uint32_t k = 0; k < P[B[b].first_phi + p].n_incoming; k++)
        d->n_args = sched_args_used(
            &INC[2 * (P[B[b].first_phi + p].first_incoming + k) + 1], 1,
            d->n_args);
  }
  return 0;
}

/* ---- Record streams ----------------------------------------------------- */

static uint64_t W[1 << 16];
static size_t nw;

static void w_block(uint32_t id) { W[nw++] = PISA_REC_BLOCK | id; }
static void w_resume(uint32_t site_in_block, uint32_t id) {
  W[nw++] =
      PISA_REC_RESUME | (uint64_t)site_in_block << PISA_REC_SITE_SHIFT | id;
}
static void w_addr(uint64_t a) { W[nw++] = a; }

static const struct sched_config ALL = {
    .windows = {0, 64}, .n_windows = 2, .bblp = 1};

static struct sched *run_stream(const struct sched_config *cfg,
                                int word_by_word) {
  struct sched *s = sched_new(cfg, describe, NULL);
  EXPECT(s != NULL);
  if (word_by_word)
    for (size_t i = 0; i < nw; i++)
      sched_words(s, W + i, 1);
  else
    sched_words(s, W, nw);
  EXPECT_EQ(sched_desync(s), 0);
  return s;
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
  nw = 0;
  w_block(0);
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
static void build_store_load_store(int same) {
  reset();
  fn("main");
  blk();
  ins(STORE, 0, 0);
  site(PISA_SITE_STORE, 8, NULL);
  ins(LOAD, 0, 0);
  site(PISA_SITE_LOAD, 8, NULL);
  ins(STORE, 0, 0);
  site(PISA_SITE_STORE, 8, NULL);
  ins(RET, 0, 0);
  nw = 0;
  w_block(0);
  w_addr(0x1000);
  w_addr(same ? 0x1000 : 0x2000);
  w_addr(0x1000);
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
  uint32_t r = ins(CALL, 0, 2, a, (uint32_t)PISA_SRC_NONE);
  site(PISA_SITE_CALL, 0, "f");
  uint32_t s = ins(ADD, 0, 1, r);
  ins(RET, 0, 1, s);
  fn("f");
  blk();
  uint32_t y = ins(ADD, 0, 2, ARG(0), ARG(0));
  ins(ADD, 0, 0);
  ins(RET, 0, 1, y);

  nw = 0;
  w_block(0);
  w_block(1);
  w_resume(0, 0);
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

  nw = 0; /* f never ran: the call went to code without instrumentation */
  w_block(0);
  w_resume(0, 0);
  struct par_result e = thread_result(&ALL);
  NEAR(val(&e.win[0].ilp), 1.0);
  NEAR(val(&e.bblp), 1.0);
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
  nw = 0;
  w_block(0);
  w_block(2);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.win[0].ilp), 5.0 / 4);
  nw = 0;
  w_block(0);
  w_block(1);
  w_block(2);
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
  site(PISA_SITE_LOAD, 8, NULL);
  uint32_t M = ins(FMUL, 0, 2, L, L);
  ins(STORE, 0, 2, M, i);
  site(PISA_SITE_STORE, 8, NULL);
  uint32_t A = ins(ADD, IU, 1, i);
  uint32_t C = ins(ICMP, 0, 1, A);
  ins(BR, 0, 1, C);
  edge(i, 0, 0, PISA_SRC_NONE);
  edge(i, 1, 1, A);
  blk();
  ins(RET, 0, 0);
  nw = 0;
  w_block(0);
  for (unsigned k = 0; k < n; k++) {
    w_block(1);
    w_addr(0x100000 + 8 * k);
    w_addr(0x900000 + 8 * k);
  }
  w_block(2);
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

/* The same stream one word per call gives the same schedule. */
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
 * f n + 1 - f.  Scattered addresses: f = 0, ILP2_load = 1. */
static void test_dlp(void) {
  const unsigned n = 64;
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    reset();
    fn("main");
    blk();
    ins(BR, 0, 0);
    blk();
    ins(LOAD, 0, 0);
    site(PISA_SITE_LOAD, 8, NULL);
    ins(BR, 0, 0);
    blk();
    ins(RET, 0, 0);
    nw = 0;
    w_block(0);
    for (unsigned k = 0; k < n; k++) {
      w_block(1);
      w_addr(contiguous ? 0x4000 + 8 * k : 0x4000 + 64 * ((k * 37) % n));
    }
    w_block(2);
    struct par_result r = thread_result(&ALL);
    double N = n, f = contiguous ? (N - 1) / N : 0;
    double dlp1 = (N * N + (N + 1) * (N + 1) + 1) / (2 * N + 2);
    double dlp2 = ((f * N + 1 - f) * N + (N + 1) * (N + 1) + 1) / (2 * N + 2);
    NEAR(val(&r.win[0].op[LOAD]), N);
    NEAR(val(&r.dlp1), dlp1);
    NEAR(val(&r.dlp2), dlp2);
    EXPECT(val(&r.dlp2) <= val(&r.dlp1));
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
    site(PISA_SITE_LOAD, 8, NULL);
    uint32_t y = ins(LOAD, 0, 1, i);
    site(PISA_SITE_LOAD, 8, NULL);
    uint32_t s2 = ins(FADD, 0, 2, prefix ? s : x, y);
    ins(STORE, 0, 2, s2, i);
    site(PISA_SITE_STORE, 8, NULL);
    uint32_t A = ins(ADD, IU, 1, i);
    ins(BR, 0, 1, A);
    edge(i, 0, 0, PISA_SRC_NONE);
    edge(i, 1, 1, A);
    if (prefix) {
      edge(s, 0, 0, PISA_SRC_NONE);
      edge(s, 1, 1, s2);
    }
    blk();
    ins(RET, 0, 0);
    nw = 0;
    w_block(0);
    for (unsigned k = 0; k < n; k++) {
      w_block(1);
      w_addr(0x10000 + 8 * k);
      w_addr(0x20000 + 8 * k);
      w_addr(0x30000 + 8 * k);
    }
    w_block(2);
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
 * had when it stored X_{k-1}. */
static void test_pbblp_memory(void) {
  const unsigned n = 30;
  reset();
  fn("main");
  blk();
  ins(BR, 0, 0);
  blk();
  uint32_t i = phi(IU, 2);
  ins(STORE, 0, 1, i);
  site(PISA_SITE_STORE, 8, NULL);
  uint32_t x = ins(LOAD, 0, 0);
  site(PISA_SITE_LOAD, 8, NULL);
  ins(STORE, 0, 1, x);
  site(PISA_SITE_STORE, 8, NULL);
  uint32_t A = ins(ADD, IU, 1, i);
  ins(BR, 0, 1, A);
  edge(i, 0, 0, PISA_SRC_NONE);
  edge(i, 1, 1, A);
  blk();
  ins(RET, 0, 0);
  nw = 0;
  w_block(0);
  for (unsigned k = 0; k < n; k++) {
    w_block(1);
    w_addr(0x50000 + 8 * k);                    /* X_k */
    w_addr(k ? 0x50000 + 8 * (k - 1) : 0x1234); /* X_{k-1} */
    w_addr(0x70000 + 8 * k);                    /* Z_k */
  }
  w_block(2);
  struct par_result r = thread_result(&ALL);
  NEAR(val(&r.pbblp), 1.0);
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
  RUN(test_straight_line);
  RUN(test_memory_order);
  RUN(test_calls);
  RUN(test_phi_edges);
  RUN(test_figure3);
  RUN(test_split_words);
  RUN(test_dlp);
  RUN(test_pbblp_ssa);
  RUN(test_pbblp_memory);
  RUN(test_memory_limit);
  RUN(test_merge);
  return check_summary();
}
