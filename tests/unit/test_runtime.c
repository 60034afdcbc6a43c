/* test_runtime.c: the runtime end to end without LLVM: a hand-built module
 * is registered, several threads write record words exactly as
 * instrumented code does (segments, calls, RESUME words, memcpy, a segment
 * larger than the buffer, stray words), and the raw result must hold the
 * counts and footprints derived here by construction; and the decoder's
 * batches on words chosen by hand.  Also built with
 * ASan/UBSan and with TSan (see tests/CMakeLists.txt). */
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "jsonschema.h"
#include "rawdoc.h"
#include "report.h"
#include "threads.h"

extern __thread struct pisa_tls_buffer __pisa_buf;
/* pisa.h's region markers, declared there for instrumented code only */
void __pisa_roi_begin(const char *name);
void __pisa_roi_end(const char *name);

enum { LOAD = 32, STORE = 33, ADD = 13, BR = 2, CALL = 56, RET = 1 };
enum { THREADS = 4, CALLS = 1000, WIDE_SITES = 20000, COPY_BYTES = 24 };

/* alpha: A0 {load; add; br}  A1 {store; call beta; load; ret}
 * beta:  B0 {call *indirect; memcpy; ret}
 * wide:  W0 {WIDE_SITES loads of 4 bytes; ret} */
static struct pisa_instr instrs[10 + WIDE_SITES + 1];
static struct pisa_site sites[6 + WIDE_SITES];
static struct pisa_block blocks[4];
static struct pisa_function functions[3] = {
    {"alpha", "alpha", "alpha.c", 3, 0, 2, 0},
    {"beta", "beta", NULL, 0, 2, 1, 0},
    {"wide", "wide", "wide.c", 9, 3, 1, 0},
};
/* Loops (ABI 3): alpha's A0..A1 form a loop without a preheader, around a
 * loop of A1 alone whose preheader is A0; lines: A0 {line 4: load, add;
 * line 5: br}, A1 {line 4: all four}, B0 without locations, W0 {wide.c:10}. */
static const struct pisa_loop loops[2] = {
    {0, 0, PISA_INDEX_NONE, 0, PISA_INDEX_NONE, 1, 0, 3, 6},
    {0, 0, 0, 1, 0, 2, 0, 4, 4},
};
static const uint32_t block_loops[4] = {0, 1, PISA_INDEX_NONE, PISA_INDEX_NONE};
static const struct pisa_line lines[5] = {{0, 4, 2},
                                          {0, 5, 1},
                                          {0, 4, 4},
                                          {PISA_INDEX_NONE, 0, 3},
                                          {1, 10, WIDE_SITES + 1}};
static const uint32_t block_lines[5] = {0, 2, 3, 4, 5};
static const char *const files[2] = {"alpha.c", "wide.c"};
static uint64_t block_base;
static struct pisa_module module = {.abi_version = PISA_ABI_VERSION,
                                    .n_functions = 3,
                                    .n_blocks = 4,
                                    .n_instrs = 10 + WIDE_SITES + 1,
                                    .n_sites = 6 + WIDE_SITES,
                                    .name = "fake.c",
                                    .functions = functions,
                                    .blocks = blocks,
                                    .instrs = instrs,
                                    .sites = sites,
                                    .n_loops = 2,
                                    .n_lines = 5,
                                    .n_files = 2,
                                    .loops = loops,
                                    .block_loops = block_loops,
                                    .block_lines = block_lines,
                                    .lines = lines,
                                    .files = files,
                                    .block_base = &block_base};

static void build_module(void) {
  const uint8_t ops[10] = {LOAD, ADD, BR,   STORE, CALL,
                           LOAD, RET, CALL, CALL,  RET};
  for (int i = 0; i < 10; i++)
    instrs[i].opcode = ops[i];
  for (int i = 0; i < WIDE_SITES; i++)
    instrs[10 + i].opcode = LOAD;
  instrs[10 + WIDE_SITES].opcode = RET;
  sites[0] = (struct pisa_site){PISA_SITE_LOAD, 0, 1, 8, 0, 0, NULL};
  sites[1] = (struct pisa_site){PISA_SITE_STORE, 0, 1, 4, 3, 0, NULL};
  sites[2] = (struct pisa_site){PISA_SITE_CALL, 0, 1, 0, 4, 0, "beta"};
  sites[3] = (struct pisa_site){PISA_SITE_LOAD, 0, 1, 8, 5, 0, NULL};
  sites[4] = (struct pisa_site){PISA_SITE_CALL, 0, 1, 0, 7, 0, NULL};
  sites[5] = (struct pisa_site){PISA_SITE_MEMCPY, 0, 1, 0, 8, 0, NULL};
  for (int i = 0; i < WIDE_SITES; i++)
    sites[6 + i] = (struct pisa_site){PISA_SITE_LOAD, 0, 1, 4, 10 + i, 0, NULL};
  /* function, first_instr, n_instrs, first_site, n_sites, n_phis, bytes
   * loaded, bytes stored, first and number of successors, first phi, source
   * function (ABI 3: its own, nothing is inlined here) */
  blocks[0] = (struct pisa_block){0, 0, 3, 0, 1, 0, 8, 0, 0, 0, 0, 0};
  blocks[1] = (struct pisa_block){0, 3, 4, 1, 3, 1, 8, 4, 0, 0, 0, 0};
  blocks[2] = (struct pisa_block){1, 7, 3, 4, 2, 0, 0, 0, 0, 0, 0, 1};
  blocks[3] = (struct pisa_block){
      2, 10, WIDE_SITES + 1, 6, WIDE_SITES, 0, 4 * WIDE_SITES, 0, 0, 0, 0, 2};
  __pisa_register_module(&module);
}

/* What the pass emits for one segment. */
static void emit(const uint64_t *words, size_t n) {
  uint64_t *cur = __pisa_buf.cursor;
  if (!cur || (size_t)(__pisa_buf.limit - cur) < n)
    cur = __pisa_buffer_refill(n);
  memcpy(cur, words, n * sizeof *words);
  __pisa_buf.cursor = cur + n;
}

static uint64_t block_word(uint32_t local) { return block_base + local; }
static uint64_t resume_word(uint32_t local, uint64_t site) {
  return block_base + local + (PISA_REC_RESUME & ~PISA_REC_BLOCK) +
         (site << PISA_REC_SITE_SHIFT);
}

/* One call of alpha: loads at base + 8i and base + 64K + 8i, a store of 4
 * bytes at base + 128K + 4i, beta copying COPY_BYTES from base + 256K to
 * base + 512K + 32i. */
static void alpha(uint64_t base, uint64_t i) {
  emit((uint64_t[]){block_word(0), base + 8 * i}, 2);
  emit((uint64_t[]){block_word(1), base + 0x20000 + 4 * i}, 2);
  emit((uint64_t[]){block_word(2)}, 1); /* beta's entry, then its call */
  emit((uint64_t[]){resume_word(2, 0), base + 0x80000 + 32 * i, base + 0x40000,
                    COPY_BYTES},
       4);
  emit((uint64_t[]){resume_word(1, 1), base + 0x10000 + 8 * i}, 2);
}

static uint64_t thread_base(int t) { return UINT64_C(0x10000000) * (t + 1); }

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  if (t == 0) /* a stray address word with no block: dropped, harmless */
    emit((uint64_t[]){0x1234}, 1);
  for (uint64_t i = 0; i < CALLS; i++) {
    if (i == CALLS / 2) /* the second half of the calls is region "half" */
      __pisa_roi_begin("half");
    alpha(thread_base(t), i);
  }
  __pisa_roi_end("half");
  return NULL;
}

static void run_wide(void) {
  uint64_t *words = malloc((WIDE_SITES + 1) * sizeof *words);
  words[0] = block_word(3);
  for (int i = 0; i < WIDE_SITES; i++)
    words[1 + i] = UINT64_C(0x7000000) + 4 * (uint64_t)i;
  emit(words, WIDE_SITES + 1); /* larger than the default buffer */
  free(words);
}

static json_object *get(json_object *o, const char *path) {
  char key[64];
  while (o && *path) {
    size_t n = strcspn(path, "/");
    snprintf(key, sizeof key, "%.*s", (int)n, path);
    o = json_object_is_type(o, json_type_array)
            ? json_object_array_get_idx(o, (size_t)atoi(key))
            : json_object_object_get(o, key);
    path += n + (path[n] == '/');
  }
  return o;
}

static uint64_t num(json_object *o, const char *path) {
  return (uint64_t)json_object_get_int64(get(o, path));
}

static json_object *function(json_object *doc, const char *name) {
  json_object *fns = get(doc, "functions");
  for (size_t i = 0; i < json_object_array_length(fns); i++) {
    json_object *f = json_object_array_get_idx(fns, i);
    if (!strcmp(json_object_get_string(get(f, "name")), name))
      return f;
  }
  return NULL;
}

static json_object *doc;

static void produce_result(void) {
  build_module();
  pthread_t tids[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&tids[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; t++)
    pthread_join(tids[t], NULL);
  run_wide();
  pisa_thread_drain(pisa_thread_self());
  EXPECT(pisa_write_result(1, 0, PISA_RESULT_STEM) == 0);
  char path[8192];
  snprintf(path, sizeof path, "%s/raw.%ld.json", getenv("PISA_OUTPUT_DIR"),
           (long)getpid());
  doc = json_object_from_file(path);
  EXPECT(doc != NULL);
}

static void test_valid_raw_document(void) {
  char err[512] = "";
  const struct pisa_schema *s =
      pisa_schema_builtin("pisa-char-raw-1.schema.json");
  EXPECT(s && pisa_schema_validate(s, doc, err, sizeof err) == 0);
  if (err[0])
    fprintf(stderr, "schema: %s\n", err);
}

/* Per alpha call: 10 instructions (3 + 4 + 3), 2 loads, 1 store, 1 memcpy;
 * bytes loaded 16 + COPY_BYTES, stored 4 + COPY_BYTES. */
static void test_totals(void) {
  uint64_t calls = THREADS * CALLS;
  EXPECT_EQ(num(doc, "totals/instructions"), 10 * calls + WIDE_SITES + 1);
  EXPECT_EQ(num(doc, "totals/instruction_mix/opcodes/load"),
            2 * calls + WIDE_SITES);
  EXPECT_EQ(num(doc, "totals/instruction_mix/opcodes/call"), 3 * calls);
  EXPECT_EQ(num(doc, "totals/memory_accesses/loads"), 2 * calls + WIDE_SITES);
  EXPECT_EQ(num(doc, "totals/memory_accesses/stores"), calls);
  EXPECT_EQ(num(doc, "totals/memory_accesses/memcpy"), calls);
  EXPECT_EQ(num(doc, "totals/instruction_mix/bytes_loaded"),
            (16 + COPY_BYTES) * calls + 4 * WIDE_SITES);
  EXPECT_EQ(num(doc, "totals/instruction_mix/bytes_stored"),
            (4 + COPY_BYTES) * calls);
  EXPECT_EQ(num(doc, "totals/instruction_mix/phi"), calls);
  /* References for entropy and reuse distance: per call 2 loads, 1 store
   * and the memcpy's source and destination; all sites are irregular. */
  EXPECT_EQ(num(doc, "totals/access_classes/irregular/accesses"),
            5 * calls + WIDE_SITES);
  EXPECT_EQ(num(doc, "totals/access_classes/constant/accesses"), 0);
  EXPECT(get(doc, "totals/memory_entropy/12") != NULL);
  EXPECT(get(doc, "totals/memory_entropy/13") == NULL);
  /* Every reference is counted once in each line size's histogram. */
  json_object *h = get(doc, "totals/reuse_distance/0");
  uint64_t refs = num(h, "cold");
  json_object *bins = get(h, "bins");
  for (size_t i = 0; i < json_object_array_length(bins); i++)
    refs += (uint64_t)json_object_get_int64(json_object_array_get_idx(bins, i));
  EXPECT_EQ(refs, 5 * calls + WIDE_SITES);
  /* beta is instrumented, so only the indirect call is external. */
  EXPECT(get(doc, "totals/external_calls/beta") == NULL);
  EXPECT_EQ(num(doc, "totals/external_calls/(indirect)"), calls);
}

/* Deep intervals (on by default): every thread's add up to the totals.
 * Per alpha call 2 loads, a store and a memcpy whose source reads and
 * whose destination writes, plus the WIDE_SITES loads: 3 reads and 2
 * writes per call. */
static void test_intervals(void) {
  json_object *list = get(doc, "intervals");
  uint64_t calls = THREADS * CALLS, instructions = 0, loads = 0, stores = 0;
  EXPECT(list && json_object_array_length(list) > 0);
  for (size_t i = 0; list && i < json_object_array_length(list); i++) {
    json_object *e = json_object_array_get_idx(list, i);
    instructions += num(e, "instructions");
    loads += num(e, "memory_accesses/loads");
    stores += num(e, "memory_accesses/stores");
  }
  EXPECT_EQ(instructions, num(doc, "totals/instructions"));
  EXPECT_EQ(loads, 3 * calls + WIDE_SITES);
  EXPECT_EQ(stores, 2 * calls);
}

/* Per thread: loads 8 * CALLS bytes twice, stores 4 * CALLS, the copy's
 * source COPY_BYTES once and destinations COPY_BYTES every 32 bytes. */
static void test_footprints(void) {
  uint64_t per_thread =
      2 * 8 * CALLS + 4 * CALLS + COPY_BYTES + COPY_BYTES * CALLS;
  EXPECT_EQ(num(doc, "totals/footprint/bytes"),
            THREADS * per_thread + 4 * WIDE_SITES);
  /* 64-byte blocks of one thread: 125 + 125 (loads), 63 (stores, 4000
   * bytes from a 64-aligned base), 1 (source), 1000 / 2 (a 24-byte copy
   * every 32 bytes: two per block). */
  EXPECT_EQ(num(doc, "threads/1/footprint/blocks/64"),
            125 + 125 + 63 + 1 + 500);
  json_object *beta = function(doc, "beta");
  EXPECT(beta != NULL);
  EXPECT_EQ(num(beta, "footprint/bytes"),
            THREADS * (COPY_BYTES + COPY_BYTES * CALLS));
  EXPECT(get(beta, "file") == NULL && get(beta, "line") == NULL);
  json_object *wide = function(doc, "wide");
  EXPECT_EQ(num(wide, "footprint/bytes"), 4 * WIDE_SITES);
  EXPECT_EQ(num(wide, "memory_accesses/loads"), WIDE_SITES);
  EXPECT_EQ(num(wide, "line"), 9);
}

static void test_threads(void) {
  json_object *threads = get(doc, "threads");
  EXPECT_EQ(json_object_array_length(threads), THREADS + 1);
  uint64_t sum = 0;
  for (size_t i = 0; i < json_object_array_length(threads); i++) {
    json_object *t = json_object_array_get_idx(threads, i);
    EXPECT_EQ(num(t, "thread"), i); /* listed in creation order */
    sum += num(t, "instructions");
  }
  EXPECT_EQ(sum, num(doc, "totals/instructions"));
  json_object *alpha_fn = function(doc, "alpha");
  EXPECT_EQ(num(alpha_fn, "instructions"), 7 * THREADS * CALLS);
  EXPECT_EQ(num(alpha_fn, "memory_accesses/loads"), 2 * THREADS * CALLS);
}

/* A0 and A1 run once per alpha call (C = THREADS * CALLS calls): the outer
 * loop counts both blocks (7 instructions, 2 loads, 1 store of 4 bytes, 16
 * bytes loaded per call), the inner one A1 (4 instructions, 1 load, 1
 * store), entered from its preheader A0 once per call.  The outer loop has
 * no preheader, so its entries are the instances of A0 that follow a block
 * outside it: none, as A0 is alpha's entry block (which LLVM never makes a
 * loop header) and the uninstrumented test calls alpha again and again, so
 * A1 runs just before every A0 but the first (which nothing precedes). */
static void test_loops(void) {
  uint64_t calls = THREADS * CALLS;
  json_object *outer = get(doc, "loops/0"), *inner = get(doc, "loops/1");
  EXPECT_EQ(json_object_array_length(get(doc, "loops")), 2);
  EXPECT(!strcmp(json_object_get_string(get(outer, "function")), "alpha"));
  EXPECT(!strcmp(json_object_get_string(get(outer, "file")), "alpha.c"));
  EXPECT_EQ(num(outer, "line"), 3);
  EXPECT_EQ(num(outer, "last_line"), 6);
  EXPECT(get(outer, "parent") == NULL);
  EXPECT_EQ(num(outer, "entries"), 0);
  EXPECT_EQ(num(outer, "iterations"), calls);
  EXPECT_EQ(num(outer, "instructions"), 7 * calls);
  EXPECT_EQ(num(outer, "memory_accesses/loads"), 2 * calls);
  EXPECT_EQ(num(outer, "memory_accesses/stores"), calls);
  EXPECT_EQ(num(outer, "instruction_mix/bytes_loaded"), 16 * calls);
  EXPECT_EQ(num(outer, "instruction_mix/bytes_stored"), 4 * calls);
  EXPECT_EQ(num(inner, "parent"), num(outer, "id"));
  EXPECT_EQ(num(inner, "depth"), 2);
  EXPECT_EQ(num(inner, "iterations"), calls);
  EXPECT_EQ(num(inner, "entries"), calls);
  EXPECT_EQ(num(inner, "instructions"), 4 * calls);
  EXPECT_EQ(num(inner, "memory_accesses/loads"), calls);
}

/* alpha.c:4 holds A0's load and add and all of A1 (its store, call, load
 * and ret); alpha.c:5 A0's br; wide.c:10 all of W0, run once; B0 has no
 * line.  The call is no access. */
static void test_lines(void) {
  uint64_t calls = THREADS * CALLS;
  json_object *l4 = get(doc, "lines/0"), *l5 = get(doc, "lines/1"),
              *w = get(doc, "lines/2");
  EXPECT_EQ(json_object_array_length(get(doc, "lines")), 3);
  EXPECT_EQ(num(l4, "line"), 4);
  EXPECT_EQ(num(l4, "instructions"), 6 * calls);
  EXPECT_EQ(num(l4, "loads"), 2 * calls);
  EXPECT_EQ(num(l4, "stores"), calls);
  EXPECT_EQ(num(l4, "accesses"), 3 * calls);
  EXPECT_EQ(num(l5, "line"), 5);
  EXPECT_EQ(num(l5, "instructions"), calls);
  EXPECT_EQ(num(l5, "accesses"), 0);
  EXPECT(!strcmp(json_object_get_string(get(w, "file")), "wide.c"));
  EXPECT_EQ(num(w, "instructions"), WIDE_SITES + 1);
  EXPECT_EQ(num(w, "loads"), WIDE_SITES);
}

/* The decoder alone (events.h), on words chosen by hand: a stray word, a
 * call to beta with an indirect call that ran nothing and a memcpy, a
 * buffer ending inside alpha's A1 (continued by the next), and an unknown
 * block id losing the context. */
static void test_decoded_batch(void) {
  struct pisa_thread t = {.block = UINT32_MAX};
  struct event_batch b;
  event_batch_init(&b);
  uint32_t a0 = (uint32_t)(block_base & PISA_REC_ID_MASK), a1 = a0 + 1,
           b0 = a0 + 2;
  const uint64_t first[] = {
      0x1234,           block_word(0),     0x100, block_word(1), 0x200,
      block_word(2),    resume_word(2, 0), 0x300, 0x400,         24,
      resume_word(1, 1)};
  pisa_decode_words(&t, first, sizeof first / sizeof *first, &b);
  EXPECT_EQ(b.desync, 1); /* the stray word */
  EXPECT_EQ(b.block_before, PROGRAM_NONE);
  EXPECT_EQ(b.n_instances, 5);
  const uint32_t blocks[] = {a0, a1, b0, b0, a1};
  const uint8_t starts[] = {
      INSTANCE_ENTERED, INSTANCE_ENTERED, INSTANCE_ENTERED,
      INSTANCE_RESUMED | INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE, /* memcpy */
      INSTANCE_RESUMED};
  /* A1 stops at its call (site 1), beta at its indirect call (site 0). */
  const uint32_t firsts[] = {0, 0, 0, 1, 2}, ends[] = {1, 1, 0, 2, 2},
                 accesses[] = {0, 1, 2, 2, 4, 4};
  for (size_t i = 0; i < 5 && i < b.n_instances; i++) {
    EXPECT_EQ(b.block[i], blocks[i]);
    EXPECT_EQ(b.start[i], starts[i]);
    EXPECT_EQ(b.first_site[i], firsts[i]);
    EXPECT_EQ(b.end_site[i], ends[i]);
    EXPECT_EQ(b.first_access[i], accesses[i]);
  }
  EXPECT_EQ(b.first_access[5], 4);
  /* load 8 bytes, store 4, the memcpy's source then destination. */
  const uint64_t addrs[] = {0x100, 0x200, 0x400, 0x300},
                 sizes[] = {8, 4, 24, 24};
  const uint8_t kinds[] = {ACCESS_LOAD, ACCESS_STORE, ACCESS_MEMCPY_SOURCE,
                           ACCESS_MEMCPY_DEST};
  const uint32_t sites_at[] = {0, 0, 1, 1};
  EXPECT_EQ(b.n_accesses, 4);
  for (size_t a = 0; a < 4 && a < b.n_accesses; a++) {
    EXPECT_EQ(b.addr[a], addrs[a]);
    EXPECT_EQ(b.size[a], sizes[a]);
    EXPECT_EQ(b.kind[a], kinds[a]);
    EXPECT_EQ(b.site[a], sites_at[a]);
  }

  const uint64_t second[] = {0x500}; /* A1's last load, in the next buffer */
  pisa_decode_words(&t, second, 1, &b);
  EXPECT_EQ(b.block_before, a1);
  EXPECT_EQ(b.n_instances, 1);
  EXPECT_EQ(b.start[0], INSTANCE_CONTINUED);
  EXPECT_EQ(b.first_site[0], 2);
  EXPECT_EQ(b.end_site[0], 3);
  EXPECT(b.n_accesses == 1 && b.addr[0] == 0x500 && b.site[0] == 2);

  const uint64_t third[] = {PISA_REC_BLOCK | PISA_REC_ID_MASK, 0x600,
                            block_word(0), 0x700};
  pisa_decode_words(&t, third, 4, &b);
  EXPECT_EQ(b.desync, 2); /* the unknown block and its word */
  EXPECT_EQ(b.n_instances, 1);
  EXPECT_EQ(b.start[0], INSTANCE_ENTERED | INSTANCE_LOST_CONTEXT);
  EXPECT_EQ(t.desync, 3);

  /* A region marker (the end of region 3) inside A0, before its load: a
   * mark before the next instance; the decoder's place does not move. */
  const uint64_t fourth[] = {
      block_word(0), PISA_REC_BLOCK | PISA_REC_REGION | 3 << 1 | 1, 0x800};
  pisa_decode_words(&t, fourth, 3, &b);
  EXPECT_EQ(b.desync, 0);
  EXPECT_EQ(b.n_instances, 1);
  EXPECT_EQ(b.n_marks, 1);
  EXPECT(b.n_marks == 1 && b.mark_instance[0] == 1 &&
         b.mark_region[0] == (3 << 1 | EVENT_MARK_END));
  EXPECT(b.n_accesses == 1 && b.addr[0] == 0x800 && b.site[0] == 0);
  event_batch_free(&b);
}

/* The two copies of the decoder's loop, runs one word at a time and runs
 * eight at a time (where the processor has them), on the same random
 * words: W0's loads torn at every length, A1's segments, stray words and
 * buffers ending anywhere.  Their batches must be the same, entry by
 * entry. */
static void expect_same_batch(const struct event_batch *x,
                              const struct event_batch *y) {
  EXPECT_EQ(x->n_instances, y->n_instances);
  EXPECT_EQ(x->n_accesses, y->n_accesses);
  EXPECT_EQ(x->desync, y->desync);
  EXPECT_EQ(x->block_before, y->block_before);
  int sites = pisa_consume_reads_sites();
  size_t bad = 0;
  for (size_t i = 0; i < x->n_instances && i < y->n_instances; i++)
    bad += x->block[i] != y->block[i] || x->start[i] != y->start[i] ||
           x->first_site[i] != y->first_site[i] ||
           x->end_site[i] != y->end_site[i] ||
           x->first_access[i] != y->first_access[i];
  for (size_t a = 0; a < x->n_accesses && a < y->n_accesses; a++)
    bad += x->addr[a] != y->addr[a] || x->size[a] != y->size[a] ||
           x->kind[a] != y->kind[a] ||
           (sites && (x->site[a] != y->site[a] ||
                      x->access_class[a] != y->access_class[a]));
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(x->first_access[x->n_instances], y->first_access[y->n_instances]);
}

static void test_vector_decoder(void) {
  if (!pisa_decode_vectors()) {
    printf("  (no vector runs on this processor: one copy only)\n");
    return;
  }
  enum { WORDS = 200000 };
  uint64_t *w = malloc(WORDS * sizeof *w);
  EXPECT(w != NULL);
  if (!w)
    return;
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < WORDS;) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    unsigned r = (unsigned)(seed >> 33);
    switch (r % 4) {
    case 0: /* W0, torn after 0 to 40 of its loads */
    case 1:
      w[i++] = block_word(3);
      for (unsigned k = (r >> 2) % 41; k-- > 0 && i < WORDS;)
        w[i++] = ((uint64_t)(r >> 8) << 12) + 4 * k;
      break;
    case 2: /* A1: its store, then (resumed after the call) its load */
      w[i++] = block_word(1);
      if (i < WORDS)
        w[i++] = 0x10000 + r;
      if (i < WORDS)
        w[i++] = resume_word(1, 1);
      if (i < WORDS && r & 16)
        w[i++] = 0x20000 + r;
      break;
    default: /* a stray word, or A0's load */
      if (r & 32)
        w[i++] = block_word(0);
      if (i < WORDS)
        w[i++] = 0x30000 + r;
    }
  }
  struct pisa_thread one = {.block = UINT32_MAX}, eight = one;
  struct event_batch x, y;
  event_batch_init(&x);
  event_batch_init(&y);
  for (size_t at = 0, part; at < WORDS; at += part) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    part = 1 + (size_t)(seed >> 33) % 3000;
    part = part < WORDS - at ? part : WORDS - at;
    pisa_decode_words_with(&one, w + at, part, &x, 0);
    pisa_decode_words_with(&eight, w + at, part, &y, 1);
    expect_same_batch(&x, &y);
    EXPECT(one.block == eight.block && one.site == eight.site &&
           one.desync == eight.desync);
  }
  EXPECT(one.desync > 0); /* the stray words were there */
  event_batch_free(&x);
  event_batch_free(&y);
  free(w);
}

/* The runtime reads its configuration at start-up, so the test runs itself
 * again with PISA_OUTPUT_DIR set, and cleans the directory up after.
 * Snapshots off: the test builds the result itself, outside the lifecycle's
 * lock, so no snapshot thread may build one beside it. */
static int rerun_with_output_dir(char **argv) {
  char dir[] = "/tmp/pisa-test-runtime-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    setenv("PISA_OUTPUT_DIR", dir, 1);
    setenv("PISA_SNAPSHOT_INTERVAL", "off", 1);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  int status = 1;
  waitpid(pid, &status, 0);
  char path[sizeof dir + 64];
  snprintf(path, sizeof path, "%s/raw.%ld.json", dir, (long)pid);
  unlink(path);
  rmdir(dir);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Region "half" (the second half of every thread's calls of alpha): its
 * executions, one per thread, and its alpha's loads, one per call. */
static void test_region(void) {
  json_object *regions = get(doc, "regions"), *half = get(doc, "regions/0");
  EXPECT(regions && json_object_array_length(regions) == 1);
  EXPECT(half && !strcmp(json_object_get_string(get(half, "name")), "half"));
  EXPECT(num(half, "executions") == THREADS);
  EXPECT(num(half, "memory_accesses/loads") ==
         THREADS * (CALLS / 2) * 2); /* A0's and A1's */
}

/* The process's last result frees each region's state once the region is
 * written (report.h): its document is the first one's, and under ASan and
 * TSan nothing is read after it is freed.  The exit handler writes once
 * more, over the freed states. */
static void test_last_result(void) {
  pisa_threads_lock();
  pisa_threads_freeze();
  EXPECT(pisa_write_last_result(1, 0, PISA_RESULT_STEM) == 0);
  pisa_threads_unlock();
  char path[8192];
  snprintf(path, sizeof path, "%s/raw.%ld.json", getenv("PISA_OUTPUT_DIR"),
           (long)getpid());
  json_object *last = json_object_from_file(path);
  EXPECT(last != NULL);
  static const char *const same[] = {"regions",   "functions", "totals",
                                     "intervals", "loops",     "lines"};
  for (size_t i = 0; last && i < sizeof same / sizeof *same; i++)
    EXPECT(json_object_equal(get(doc, same[i]), get(last, same[i])));
  json_object_put(last);
}

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("PISA_OUTPUT_DIR"))
    return rerun_with_output_dir(argv);
  RUN(produce_result);
  if (doc) {
    RUN(test_valid_raw_document);
    RUN(test_totals);
    RUN(test_footprints);
    RUN(test_intervals);
    RUN(test_threads);
    RUN(test_loops);
    RUN(test_lines);
    RUN(test_decoded_batch);
    RUN(test_vector_decoder);
    RUN(test_region);
    RUN(test_last_result);
    json_object_put(doc);
  }
  return check_summary();
}
