/* test_reuse.c: the reuse-distance engine against a brute-force LRU stack
 * (a move-to-front array) on random, strided, cyclic and adversarial streams
 * at several line sizes and batch splits, plus hand-derived values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reuse.h"

#include "check.h"

static const unsigned shifts[] = {0, 3, 6, 9};
#define NSHIFTS (sizeof(shifts) / sizeof(shifts[0]))

/* ---- The reference: an LRU stack as a move-to-front array ---------------- */

/* Distance of each reference: its block's depth in the stack (the distinct
 * blocks referenced since), UINT64_MAX when the block is new. */
static void brute_distances(const uint64_t *addrs, size_t n, unsigned shift,
                            uint64_t *out) {
  uint64_t *stack = malloc((n + 1) * sizeof(*stack));
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] >> shift;
    size_t pos = 0;
    while (pos < depth && stack[pos] != block)
      pos++;
    out[i] = pos < depth ? pos : UINT64_MAX;
    if (pos == depth)
      depth++;
    memmove(stack + 1, stack, pos * sizeof(*stack));
    stack[0] = block;
  }
  free(stack);
}

/* The bin of docs/metrics.md: 0 for 0, i for [2^(i-1), 2^i), cold apart. */
static unsigned reference_bin(uint64_t distance) {
  if (distance == UINT64_MAX)
    return REUSE_COLD;
  unsigned bin = 0;
  while (bin < 64 && (distance >> bin) != 0)
    bin++;
  return bin;
}

/* How a stream is cut into batches. */
enum split { WHOLE, SINGLES, SMALL, ODD, RANDOM_CUTS, NSPLITS };

static size_t next_batch(enum split how, size_t left) {
  size_t len = left;
  switch (how) {
  case WHOLE:
    break;
  case SINGLES:
    len = 1;
    break;
  case SMALL:
    len = 7;
    break;
  case ODD:
    len = 4097;
    break;
  default:
    len = 1 + test_rng() % 20000;
    break;
  }
  return len < left ? len : left;
}

/* Runs the stream through an engine; distances and bins come back. */
/* Window sizes the runs cycle through (16 is the engine's own). */
static const unsigned windows[] = {16, 1, 2, 3, 5, 8, 15};
#define NWINDOWS (sizeof(windows) / sizeof(windows[0]))

/* 0: cycle through windows[]; else every engine gets this window. */
static unsigned forced_window;

/* How one run is set up: the window, the portable code or not. */
struct setup {
  unsigned window;
  int baseline;
};

/* The run with this setup; dist may be NULL (bins only). */
static struct reuse_engine *run_setup(const uint64_t *addrs, size_t n,
                                      unsigned shift, enum split how,
                                      uint32_t gap, struct setup setup,
                                      uint64_t *dist, uint8_t *bins) {
  struct reuse_engine *e = reuse_new(shift);
  EXPECT(e != NULL);
  reuse_test_set_window(e, setup.window);
  if (setup.baseline)
    reuse_test_use_baseline(e);
  if (gap > 1)
    reuse_test_set_stamp_gap(e, gap);
  for (size_t done = 0; done < n;) {
    size_t len = next_batch(how, n - done);
    reuse_batch(e, addrs + done, len, bins + done, dist ? dist + done : NULL);
    done += len;
  }
  return e;
}

/* The next run's setup: the windows in turn, every other run the portable
 * code. */
static struct setup next_setup(void) {
  static unsigned runs;
  struct setup setup = {forced_window ? forced_window
                                      : windows[runs % NWINDOWS],
                        (int)(runs % 2)};
  runs++;
  return setup;
}

static struct reuse_engine *run_engine(const uint64_t *addrs, size_t n,
                                       unsigned shift, enum split how,
                                       uint32_t gap, uint64_t *dist,
                                       uint8_t *bins) {
  return run_setup(addrs, n, shift, how, gap, next_setup(), dist, bins);
}

/* Bins alone (no distances asked, which lets the engine skip counting
 * within a line) against the brute force's, with the other code variant. */
static void check_bins_only(const uint64_t *addrs, size_t n, unsigned shift,
                            enum split how, uint32_t gap, struct setup setup,
                            const uint64_t *want) {
  uint8_t *bins = malloc(n);
  setup.baseline = !setup.baseline;
  reuse_free(run_setup(addrs, n, shift, how, gap, setup, NULL, bins));
  for (size_t i = 0; i < n && current_ok; i++)
    EXPECT_EQ(bins[i], reference_bin(want[i]));
  free(bins);
}

/* Compares every distance and bin with the brute force, and the number of
 * distinct blocks with the cold references; then the bins of a run that
 * asks for bins only. */
static void check_stream(const uint64_t *addrs, size_t n, unsigned shift,
                         enum split how, uint32_t gap) {
  uint64_t *want = malloc(n * sizeof(*want)), *got = malloc(n * sizeof(*got));
  uint8_t *bins = malloc(n);
  brute_distances(addrs, n, shift, want);
  struct setup setup = next_setup();
  struct reuse_engine *e =
      run_setup(addrs, n, shift, how, gap, setup, got, bins);
  uint64_t cold = 0;
  for (size_t i = 0; i < n && current_ok; i++) {
    if (got[i] != want[i] || bins[i] != reference_bin(want[i]))
      fprintf(stderr, "reference %zu of %zu (shift %u, split %d, gap %u):\n", i,
              n, shift, (int)how, gap);
    EXPECT_EQ(got[i], want[i]);
    EXPECT_EQ(bins[i], reference_bin(want[i]));
    cold += want[i] == UINT64_MAX;
  }
  EXPECT_EQ(reuse_distinct_blocks(e), cold);
  EXPECT(!reuse_out_of_memory(e));
  reuse_free(e);
  check_bins_only(addrs, n, shift, how, gap, setup, want);
  free(want);
  free(got);
  free(bins);
}

/* Checks a stream at every line shift, whole and cut in one other way. */
static void check_all_shifts(const uint64_t *addrs, size_t n, enum split how,
                             uint32_t gap) {
  for (size_t s = 0; s < NSHIFTS; s++) {
    check_stream(addrs, n, shifts[s], WHOLE, gap);
    if (how != WHOLE)
      check_stream(addrs, n, shifts[s], how, gap);
  }
}

/* Address of block b at line shift s, with random bits below the line. */
static uint64_t in_block(uint64_t b, unsigned s) {
  return (b << s) | (test_rng() & ((UINT64_C(1) << s) - 1));
}

/* ---- Hand-derived values
 * ------------------------------------------------------ */

/* Distances of a stream at line shift 0, given as block numbers. */
static void distances_of(const uint64_t *blocks, size_t n, uint64_t *dist,
                         uint8_t *bins) {
  reuse_free(run_engine(blocks, n, 0, WHOLE, 1, dist, bins));
}

static void test_single_pass_is_cold(void) {
  enum { N = 10000 };
  uint64_t addrs[N], dist[N];
  uint8_t bins[N];
  for (unsigned s = 0; s < NSHIFTS; s++) {
    for (size_t i = 0; i < N; i++)
      addrs[i] = in_block(i * 3 + 1, shifts[s]);
    struct reuse_engine *e =
        run_engine(addrs, N, shifts[s], WHOLE, 1, dist, bins);
    for (size_t i = 0; i < N; i++) {
      EXPECT_EQ(dist[i], UINT64_MAX);
      EXPECT_EQ(bins[i], REUSE_COLD);
    }
    EXPECT_EQ(reuse_distinct_blocks(e), N);
    reuse_free(e);
  }
}

/* Sweeping M blocks again and again: each reuse sees the other M - 1. */
static void test_cyclic_sweep(void) {
  static const size_t sizes[] = {2, 3, 64, 1000, 70000};
  enum { SWEEPS = 4 };
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    size_t m = sizes[k], n = m * SWEEPS;
    uint64_t *addrs = malloc(n * sizeof(*addrs)), *dist = malloc(n * 8);
    uint8_t *bins = malloc(n);
    for (unsigned s = 0; s < NSHIFTS; s++) {
      for (size_t i = 0; i < n; i++)
        addrs[i] = in_block(i % m, shifts[s]);
      struct reuse_engine *e =
          run_engine(addrs, n, shifts[s], ODD, 1, dist, bins);
      unsigned want_bin = reference_bin(m - 1);
      for (size_t i = 0; i < n; i++) {
        EXPECT_EQ(dist[i], i < m ? UINT64_MAX : m - 1);
        EXPECT_EQ(bins[i], i < m ? REUSE_COLD : want_bin);
      }
      EXPECT_EQ(reuse_distinct_blocks(e), m);
      reuse_free(e);
    }
    free(addrs);
    free(dist);
    free(bins);
  }
}

/* Block 0, then d other blocks, then block 0 again: distance d. */
static void test_bin_boundaries(void) {
  static const struct {
    uint64_t distance;
    unsigned bin;
  } cases[] = {{1, 1}, {2, 2},  {3, 2},  {4, 3},     {7, 3},
               {8, 4}, {15, 4}, {16, 5}, {1023, 10}, {1024, 11}};
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    uint64_t d = cases[k].distance, blocks[1100], dist[1100];
    uint8_t bins[1100];
    blocks[0] = 0;
    for (uint64_t i = 1; i <= d; i++)
      blocks[i] = 100 + i;
    blocks[d + 1] = 0;
    distances_of(blocks, d + 2, dist, bins);
    EXPECT_EQ(dist[d + 1], d);
    EXPECT_EQ(bins[d + 1], cases[k].bin);
  }
}

/* Repeats of one block have distance 0 (bin 0); repeats of a block whose
 * references are interleaved with others count the distinct others. */
static void test_repeats_and_alternation(void) {
  uint64_t blocks[64], dist[64];
  uint8_t bins[64];
  for (int i = 0; i < 64; i++)
    blocks[i] = UINT64_C(42);
  distances_of(blocks, 64, dist, bins);
  EXPECT_EQ(dist[0], UINT64_MAX);
  for (int i = 1; i < 64; i++) {
    EXPECT_EQ(dist[i], 0);
    EXPECT_EQ(bins[i], 0);
  }
  for (int i = 0; i < 64; i++)
    blocks[i] = (uint64_t)(i & 1); /* A B A B ... */
  distances_of(blocks, 64, dist, bins);
  for (int i = 2; i < 64; i++)
    EXPECT_EQ(dist[i], 1);
  for (int i = 0; i < 64; i++) /* A A B B A A B B ... */
    blocks[i] = (uint64_t)((i >> 1) & 1);
  distances_of(blocks, 64, dist, bins);
  EXPECT_EQ(dist[2], UINT64_MAX);
  for (int i = 3; i < 64; i++)
    EXPECT_EQ(dist[i], i & 1 ? 0 : 1);
}

/* 1..N then N..1: the i-th block from the end was followed by i others. */
static void test_forward_then_backward(void) {
  enum { N = 5000 };
  static uint64_t blocks[2 * N], dist[2 * N];
  static uint8_t bins[2 * N];
  for (int i = 0; i < N; i++) {
    blocks[i] = (uint64_t)i + 1;
    blocks[2 * N - 1 - i] = (uint64_t)i + 1;
  }
  distances_of(blocks, 2 * N, dist, bins);
  for (int i = 0; i < N; i++)
    EXPECT_EQ(dist[N + i], (uint64_t)i);
}

/* Addresses that differ only below the line share a block: 512 addresses
 * of one 512-byte line are one block at shift 9 and 512 at shift 0. */
static void test_low_bits_share_a_block(void) {
  enum { N = 512 };
  uint64_t addrs[N], dist[N];
  uint8_t bins[N];
  for (int i = 0; i < N; i++)
    addrs[i] = UINT64_C(0x7f0000001000) + (uint64_t)((i * 37) % N);
  reuse_free(run_engine(addrs, N, 9, SMALL, 1, dist, bins));
  EXPECT_EQ(dist[0], UINT64_MAX);
  for (int i = 1; i < N; i++)
    EXPECT_EQ(dist[i], 0);
  struct reuse_engine *e = run_engine(addrs, N, 0, SMALL, 1, dist, bins);
  EXPECT_EQ(reuse_distinct_blocks(e), N);
  reuse_free(e);
}

/* Line shifts up to 63 work (block 0 or 1); 64 and more are refused. */
static void test_line_shift_limits(void) {
  uint64_t addrs[4] = {0, UINT64_MAX, UINT64_C(1) << 62, UINT64_C(1) << 63};
  uint64_t dist[4];
  uint8_t bins[4];
  EXPECT(reuse_new(64) == NULL);
  struct reuse_engine *e = run_engine(addrs, 4, 63, SINGLES, 1, dist, bins);
  EXPECT_EQ(dist[0], UINT64_MAX);
  EXPECT_EQ(dist[1], UINT64_MAX);
  EXPECT_EQ(dist[2], 1);
  EXPECT_EQ(dist[3], 1);
  EXPECT_EQ(reuse_distinct_blocks(e), 2);
  reuse_free(e);
}

/* ---- Against the brute force ------------------------------------------------
 */

static void test_random_small_universe(void) {
  enum { N = 20000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  static const uint64_t universes[] = {1, 2, 5, 100, 3000};
  for (size_t u = 0; u < sizeof(universes) / sizeof(universes[0]); u++)
    for (size_t s = 0; s < NSHIFTS; s++) {
      for (size_t i = 0; i < N; i++)
        addrs[i] = in_block(test_rng() % universes[u], shifts[s]);
      check_stream(addrs, N, shifts[s], (enum split)(u % NSPLITS), 1);
    }
  free(addrs);
}

/* Random addresses seen at every shift: a coarser line merges blocks. */
static void test_random_addresses_all_shifts(void) {
  enum { N = 30000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (size_t i = 0; i < N; i++)
    addrs[i] = UINT64_C(0x600000) + test_rng() % (4096 * 8);
  check_all_shifts(addrs, N, RANDOM_CUTS, 1);
  free(addrs);
}

/* A larger universe, so the table grows many times and stamps compact. */
static void test_random_large_universe(void) {
  enum { N = 150000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (size_t i = 0; i < N; i++)
    addrs[i] = in_block(test_rng() % 12000, 3);
  check_stream(addrs, N, 3, RANDOM_CUTS, 1);
  free(addrs);
}

/* A hot set referenced often among a cold tail: small and huge distances. */
static void test_hot_and_cold_mix(void) {
  enum { N = 60000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (size_t i = 0; i < N; i++)
    addrs[i] = test_rng() % 4 ? test_rng() % 16 : 1000 + test_rng() % 40000;
  check_stream(addrs, N, 0, ODD, 1);
  check_stream(addrs, N, 0, SINGLES, 1);
  free(addrs);
}

static void test_strided_and_sequential(void) {
  enum { N = 16000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  static const uint64_t strides[] = {8, 24, 64, 4096, UINT64_C(1) << 33};
  for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++) {
    /* three sweeps over 2000 elements, then one long run */
    for (size_t i = 0; i < N; i++)
      addrs[i] = UINT64_C(0x10000) + strides[k] * (i < 6000 ? i % 2000 : i);
    check_all_shifts(addrs, N, (enum split)(k % NSPLITS), 1);
  }
  free(addrs);
}

/* Blocks near the top of the address space and around 0. */
static void test_extreme_addresses(void) {
  enum { N = 20000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (size_t i = 0; i < N; i++) {
    uint64_t r = test_rng() % 600;
    addrs[i] = r < 300 ? UINT64_MAX - r * 8 : r * 8 - 2400;
  }
  check_all_shifts(addrs, N, SMALL, 1);
  for (size_t i = 0; i < N; i++)
    addrs[i] = UINT64_MAX - (i % 3);
  check_all_shifts(addrs, N, SINGLES, 1);
  free(addrs);
}

/* Widely spread stamps (the test hook) reach every level of the counting
 * index and compact every few hundred references. */
static void test_spread_stamps(void) {
  static const struct {
    uint32_t gap;
    size_t n;
  } cases[] = {{3, 40000}, {997, 40000}, {65537, 20000}, {1u << 21, 3000}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    size_t n = cases[c].n;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    for (size_t i = 0; i < n; i++)
      addrs[i] = test_rng() % 8 ? test_rng() % 700 : test_rng() % 3000;
    check_stream(addrs, n, 0, RANDOM_CUTS, cases[c].gap);
    check_stream(addrs, n, 3, WHOLE, cases[c].gap);
    free(addrs);
  }
}

/* All distinct blocks, then the same ones again in random order. */
static void test_distinct_then_shuffled(void) {
  enum { M = 3000, N = 2 * M };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (size_t i = 0; i < M; i++)
    addrs[i] = addrs[M + i] = i * 64;
  for (size_t i = M - 1; i > 0; i--) {
    size_t j = test_rng() % (i + 1);
    uint64_t t = addrs[M + i];
    addrs[M + i] = addrs[M + j];
    addrs[M + j] = t;
  }
  check_all_shifts(addrs, N, RANDOM_CUTS, 1);
  free(addrs);
}

/* Around the window in front of the engine: universes just below, at and
 * above every window size, a hot set the size of the window with cold
 * blocks and far reuses mixed in, at every window size and gap. */
static void test_window_boundaries(void) {
  enum { N = 6000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  for (unsigned w = 1; w <= 16; w++) {
    forced_window = w;
    static const unsigned extra[] = {0, 1, 2, 5, 17};
    for (size_t u = 0; u < sizeof(extra) / sizeof(extra[0]); u++) {
      uint64_t universe = w + extra[u] > 1 ? w + extra[u] - 1 : 1;
      for (size_t i = 0; i < N; i++)
        addrs[i] = (test_rng() % (universe + 1)) * 8;
      check_stream(addrs, N, 3, u % 2 ? SMALL : RANDOM_CUTS, 1);
    }
    uint64_t fresh = 1000000;
    for (size_t i = 0; i < N; i++) {
      uint64_t r = test_rng() % 16;
      addrs[i] = r < 11   ? (test_rng() % w) * 64 /* hot: in the window */
                 : r < 13 ? (fresh++) * 64        /* cold */
                 : r < 15 ? (test_rng() % (fresh - 999999) + 999999) * 64
                          : (test_rng() % (4 * w + 4)) * 64; /* just beyond */
    }
    check_stream(addrs, N, 6, RANDOM_CUTS, 1);
    check_stream(addrs, N, 6, SINGLES, 3);
    check_stream(addrs, N, 0, WHOLE, 997);
  }
  forced_window = 0;
  free(addrs);
}

/* ---- Engines sharing a table of 64-byte neighbourhoods ----------------- */

/* Engines at 8, 16 and 32 bytes sharing one table (reuse_new_sharing), fed
 * in turns batch by batch as consume.c feeds them, engine k stream k; each
 * engine's distances and bins against the brute force at its line size. */
static void check_shared(const uint64_t *const streams[3], size_t n,
                         enum split how, uint32_t gap) {
  uint64_t *want[3], *got[3];
  uint8_t *bins[3];
  struct reuse_engine *e[3];
  for (unsigned k = 0; k < 3; k++) {
    want[k] = malloc(n * sizeof(uint64_t));
    got[k] = malloc(n * sizeof(uint64_t));
    bins[k] = malloc(n);
    brute_distances(streams[k], n, 3 + k, want[k]);
    e[k] = reuse_new_sharing(3 + k, k ? e[k - 1] : NULL);
    EXPECT(e[k] != NULL);
    struct setup setup = next_setup();
    reuse_test_set_window(e[k], setup.window);
    if (setup.baseline)
      reuse_test_use_baseline(e[k]);
    reuse_test_set_stamp_gap(e[k], gap);
  }
  for (size_t done = 0; done < n;) {
    size_t len = next_batch(how, n - done);
    for (unsigned k = 0; k < 3; k++)
      reuse_batch(e[k], streams[k] + done, len, bins[k] + done, got[k] + done);
    done += len;
  }
  for (unsigned k = 0; k < 3; k++) {
    uint64_t cold = 0;
    for (size_t i = 0; i < n && current_ok; i++) {
      if (got[k][i] != want[k][i])
        fprintf(stderr, "engine %u, reference %zu of %zu (split %d):\n", k, i,
                n, (int)how);
      EXPECT_EQ(got[k][i], want[k][i]);
      EXPECT_EQ(bins[k][i], reference_bin(want[k][i]));
      cold += want[k][i] == UINT64_MAX;
    }
    EXPECT_EQ(reuse_distinct_blocks(e[k]), cold);
    EXPECT(!reuse_out_of_memory(e[k]));
  }
  for (unsigned k = 0; k < 3; k++) {
    reuse_free(e[k]);
    free(want[k]);
    free(got[k]);
    free(bins[k]);
  }
}

/* The same stream for the three engines: random in small and large ranges
 * (the shared table grows), sweeps of 8-byte elements (consecutive
 * references share a neighbourhood), far and near reuses mixed; then
 * different streams per engine over overlapping ranges, and widely spread
 * stamps, so that one engine's compaction renumbers its stamps among the
 * others'. */
static void test_shared_neighbourhoods(void) {
  enum { N = 30000 };
  uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)),
           *c = malloc(N * sizeof(*c));
  const uint64_t *same[3] = {a, a, a}, *different[3] = {a, b, c};
  static const uint64_t ranges[] = {256, 8192, 1 << 18};
  for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
    for (size_t i = 0; i < N; i++)
      a[i] = UINT64_C(0x7f0000000000) + test_rng() % ranges[r];
    check_shared(same, N, (enum split)(r % NSPLITS), 1);
  }
  for (size_t i = 0; i < N; i++) /* three sweeps, then one long one */
    a[i] = UINT64_C(0x10000) + 8 * (i < 15000 ? i % 5000 : i);
  check_shared(same, N, ODD, 1);
  for (size_t i = 0; i < N; i++)
    a[i] = test_rng() % 4 ? UINT64_C(0x20000) + 8 * (i % 3000)
                          : test_rng() % (1 << 20);
  check_shared(same, N, RANDOM_CUTS, 1);
  for (size_t i = 0; i < N; i++) {
    a[i] = test_rng() % 16384;
    b[i] = 8192 + test_rng() % 16384;
    c[i] = i % 2 ? UINT64_MAX - test_rng() % 4096 : test_rng() % 512;
  }
  check_shared(different, N, SMALL, 1);
  check_shared(different, N, RANDOM_CUTS, 997);
  check_shared(same, 3000, SINGLES, 65537);
  free(a);
  free(b);
  free(c);
}

/* ---- Memory
 * ------------------------------------------------------------------ */

static void test_memory_per_block(void) {
  enum { N = 200000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  uint8_t *bins = malloc(N);
  struct reuse_engine *e = reuse_new(6);
  for (size_t i = 0; i < N; i++)
    addrs[i] = test_rng() << 6;
  reuse_batch(e, addrs, N, bins, NULL);
  reuse_batch(e, addrs, N, bins, NULL);
  EXPECT_EQ(reuse_distinct_blocks(e), N);
  size_t bytes = reuse_memory_bytes(e);
  EXPECT(bytes <= 32 * (size_t)N);
  EXPECT(bytes >= 12 * (size_t)N);
  for (size_t i = 0; i < N; i++)
    EXPECT_EQ(bins[i], reference_bin(N - 1));
  reuse_free(e);
  free(addrs);
  free(bins);
}

/* Sanitizers reserve far more address space than the limit below. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

/* With little address space the engines (at 1 byte, or at 8, 16 and 32
 * bytes sharing a table) run out of memory: they say so and keep producing
 * valid bins instead of crashing the program. */
static void check_out_of_memory(unsigned shift, unsigned engines) {
#ifdef UNDER_SANITIZER
  return;
#endif
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit limit = {(rlim_t)96 << 20, (rlim_t)96 << 20};
    enum { N = 16384 };
    static uint64_t addrs[N];
    static uint8_t bins[N];
    struct reuse_engine *e[3] = {NULL, NULL, NULL};
    if (setrlimit(RLIMIT_AS, &limit) != 0)
      _exit(3);
    for (unsigned k = 0; k < engines; k++)
      if (!(e[k] = reuse_new_sharing(shift + k, k ? e[k - 1] : NULL)))
        _exit(4);
    for (int round = 0; round < 400; round++) {
      for (size_t i = 0; i < N; i++)
        addrs[i] = test_rng();
      for (unsigned k = 0; k < engines; k++) {
        reuse_batch(e[k], addrs, N, bins, NULL);
        for (size_t i = 0; i < N; i++)
          if (bins[i] > REUSE_MAX_BIN && bins[i] != REUSE_COLD)
            _exit(5);
      }
    }
    for (unsigned k = 0; k < engines; k++)
      if (!reuse_out_of_memory(e[k]))
        _exit(6);
    _exit(0);
  }
  int status = 0;
  EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
  EXPECT(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

static void test_out_of_memory(void) {
  check_out_of_memory(0, 1);
  check_out_of_memory(3, 3);
}

int main(void) {
  RUN(test_single_pass_is_cold);
  RUN(test_cyclic_sweep);
  RUN(test_window_boundaries);
  RUN(test_bin_boundaries);
  RUN(test_repeats_and_alternation);
  RUN(test_forward_then_backward);
  RUN(test_low_bits_share_a_block);
  RUN(test_line_shift_limits);
  RUN(test_random_small_universe);
  RUN(test_random_addresses_all_shifts);
  RUN(test_random_large_universe);
  RUN(test_hot_and_cold_mix);
  RUN(test_strided_and_sequential);
  RUN(test_extreme_addresses);
  RUN(test_spread_stamps);
  RUN(test_distinct_then_shuffled);
  RUN(test_shared_neighbourhoods);
  RUN(test_memory_per_block);
  RUN(test_out_of_memory);
  return check_summary();
}
