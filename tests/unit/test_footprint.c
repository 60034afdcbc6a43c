/* test_footprint.c: the exact footprint against a brute-force byte set (one
 * bit per byte over two address windows) on random, sequential, straddling,
 * overlapping and memcpy-sized accesses; blocks, merge, sharing and JSON. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "footprint.h"

#include "check.h"

/* ---- The reference: a bitmap over two windows ------------------------- */

/* Window 0 starts at address 0 (line 0, the map's special key); window 1
 * sits where a stack would.  Both are aligned to far more than 4 KiB. */
#define WINDOW_BYTES (UINT64_C(1) << 18)
static const uint64_t window_base[2] = {0, UINT64_C(0x7ffc00000000)};

struct byteset {
  uint64_t bits[2][WINDOW_BYTES / 64];
};

static struct byteset *byteset_new(void) {
  return calloc(1, sizeof(struct byteset));
}

/* Records [addr, addr + size) in both the footprint and the reference;
 * the access must lie inside window w. */
static void touch(struct footprint *f, struct byteset *s, int w, uint64_t off,
                  uint64_t size) {
  if (off + size > WINDOW_BYTES)
    size = WINDOW_BYTES - off;
  footprint_add(f, window_base[w] + off, size);
  for (uint64_t b = off; b < off + size; b++)
    s->bits[w][b / 64] |= UINT64_C(1) << (b % 64);
}

static uint64_t byteset_bytes(const struct byteset *s) {
  uint64_t n = 0;
  for (int w = 0; w < 2; w++)
    for (size_t i = 0; i < WINDOW_BYTES / 64; i++)
      n += (uint64_t)__builtin_popcountll(s->bits[w][i]);
  return n;
}

/* Calls visit(block id) for every distinct block of line_bytes holding a
 * touched byte, in increasing order: walks the touched bytes one by one. */
static size_t byteset_block_ids(const struct byteset *s, uint64_t line_bytes,
                                uint64_t *ids) {
  size_t n = 0;
  for (int w = 0; w < 2; w++)
    for (size_t i = 0; i < WINDOW_BYTES / 64; i++)
      for (uint64_t word = s->bits[w][i]; word; word &= word - 1) {
        uint64_t addr =
            window_base[w] + i * 64 + (uint64_t)__builtin_ctzll(word);
        uint64_t id = addr / line_bytes;
        if (n == 0 || ids[n - 1] != id)
          ids[n++] = id;
      }
  return n;
}

static uint64_t *id_buffer(void) {
  return malloc(2 * WINDOW_BYTES * sizeof(uint64_t));
}

static uint64_t byteset_blocks(const struct byteset *s, uint64_t line_bytes) {
  uint64_t *ids = id_buffer();
  uint64_t n = byteset_block_ids(s, line_bytes, ids);
  free(ids);
  return n;
}

/* Checks bytes and blocks at every line size from 1 to 4096 and at 2^30. */
static void check_against(const struct footprint *f, const struct byteset *s) {
  EXPECT_EQ(footprint_bytes(f), byteset_bytes(s));
  for (uint64_t b = 1; b <= 4096; b *= 2)
    EXPECT_EQ(footprint_blocks(f, b), byteset_blocks(s, b));
  EXPECT_EQ(footprint_blocks(f, UINT64_C(1) << 30),
            byteset_blocks(s, UINT64_C(1) << 30));
}

/* ---- Access patterns -------------------------------------------------- */

static void random_accesses(struct footprint *f, struct byteset *s, int n,
                            uint64_t max_size) {
  for (int i = 0; i < n; i++)
    touch(f, s, (int)(test_rng() & 1), test_rng() % WINDOW_BYTES,
          1 + test_rng() % max_size);
}

/* A loop over three arrays: c[i] = a[i] + b[i] with 8-byte elements. */
static void streaming_accesses(struct footprint *f, struct byteset *s) {
  for (uint64_t i = 0; i < 4000; i++) {
    touch(f, s, 0, 0x1000 + 8 * i, 8);
    touch(f, s, 1, 0x2000 + 8 * i, 8);
    touch(f, s, 0, 0x9000 + 8 * i, 8);
  }
}

static void test_empty_and_zero_size(void) {
  struct footprint f;
  footprint_init(&f);
  EXPECT_EQ(footprint_bytes(&f), 0);
  EXPECT_EQ(footprint_blocks(&f, 64), 0);
  EXPECT_EQ(footprint_blocks(&f, 4096), 0);
  footprint_add(&f, 0x1234, 0);
  footprint_add(&f, 0, 0);
  EXPECT_EQ(footprint_bytes(&f), 0);
  footprint_add(&f, 0x1234, 1);
  footprint_add(&f, 0x1234, 0); /* same line, size 0: still nothing new */
  EXPECT_EQ(footprint_bytes(&f), 1);
  EXPECT_EQ(footprint_blocks(&f, 3), 0); /* not a power of two */
  footprint_free(&f);
}

/* Hand-computed cases: straddling, overlapping, the top of the space. */
static void test_by_hand(void) {
  struct footprint f;
  footprint_init(&f);
  footprint_add(&f, 60, 8); /* bytes 60..67: lines 0 and 1 */
  EXPECT_EQ(footprint_bytes(&f), 8);
  EXPECT_EQ(footprint_blocks(&f, 64), 2);
  EXPECT_EQ(footprint_blocks(&f, 8), 2); /* blocks 7 and 8 */
  EXPECT_EQ(footprint_blocks(&f, 4), 2); /* blocks 15 and 16 */
  EXPECT_EQ(footprint_blocks(&f, 128), 1);
  footprint_add(&f, 64, 4); /* inside the previous access */
  footprint_add(&f, 62, 2);
  EXPECT_EQ(footprint_bytes(&f), 8);
  footprint_add(&f, 0, 1);
  EXPECT_EQ(footprint_bytes(&f), 9);
  EXPECT_EQ(footprint_blocks(&f, 1), 9);
  EXPECT_EQ(footprint_blocks(&f, 2), 5);  /* {0}, {60,61}, ..., {66,67} */
  footprint_add(&f, UINT64_MAX - 9, 100); /* clipped to the last 10 bytes */
  EXPECT_EQ(footprint_bytes(&f), 19);
  EXPECT_EQ(footprint_blocks(&f, UINT64_C(1) << 30), 2);
  footprint_add(&f, 0x10000, 1 << 20); /* 1 MiB: 16384 lines */
  EXPECT_EQ(footprint_bytes(&f), 19 + (1 << 20));
  EXPECT_EQ(footprint_blocks(&f, 4096), 1 + 256 + 1);
  footprint_free(&f);
}

/* An access after one to the same line, at every offset and size around
 * the line's end: only accesses that stay in the line take the fast path.
 * Expected: byte 0 plus [off, off + size), distinct from byte 0 when off > 0.
 */
static void test_line_boundaries(void) {
  const uint64_t base = 0x5000;
  for (uint64_t off = 0; off < 64; off++)
    for (uint64_t size = 1; size <= 130; size++) {
      struct footprint f;
      footprint_init(&f);
      footprint_add(&f, base, 1);
      footprint_add(&f, base + off, size);
      EXPECT_EQ(footprint_bytes(&f), size + (off > 0 ? 1 : 0));
      EXPECT_EQ(footprint_blocks(&f, 64), (off + size - 1) / 64 + 1);
      footprint_free(&f);
    }
}

/* A 64 MiB memset: 16384 pages, past the point where page masks come in
 * huge-page slabs; blocks by hand from the aligned region's size. */
static void test_huge_region(void) {
  struct footprint f;
  const uint64_t base = UINT64_C(0x7f0000000000), bytes = UINT64_C(64) << 20;
  footprint_init(&f);
  footprint_add(&f, base, bytes);
  footprint_add(&f, base + 12345, 8); /* inside: nothing new */
  footprint_add(&f, base + bytes, 1); /* one byte past the end */
  EXPECT_EQ(footprint_bytes(&f), bytes + 1);
  EXPECT_EQ(footprint_blocks(&f, 8), bytes / 8 + 1);
  EXPECT_EQ(footprint_blocks(&f, 64), bytes / 64 + 1);
  EXPECT_EQ(footprint_blocks(&f, 4096), bytes / 4096 + 1);
  EXPECT_EQ(footprint_blocks(&f, 1 << 20), 64 + 1);
  EXPECT_EQ(footprint_blocks(&f, UINT64_C(1) << 30), 1);
  EXPECT(footprint_memory(&f) >= bytes / 8);
  EXPECT(footprint_memory(&f) < bytes / 8 + (UINT64_C(4) << 20));
  footprint_free(&f);
}

static void test_random_small(void) {
  struct footprint f;
  struct byteset *s = byteset_new();
  footprint_init(&f);
  random_accesses(&f, s, 2000, 16);
  check_against(&f, s);
  random_accesses(&f, s, 2000, 200); /* straddles up to 5 lines */
  check_against(&f, s);
  footprint_free(&f);
  free(s);
}

static void test_sequential_and_streams(void) {
  struct footprint f;
  struct byteset *s = byteset_new();
  footprint_init(&f);
  for (uint64_t i = 0; i < 10000; i++)
    touch(&f, s, 1, 3 + 4 * i, 4); /* unaligned 4-byte stream */
  check_against(&f, s);
  streaming_accesses(&f, s);
  check_against(&f, s);
  for (uint64_t i = 0; i < 2000; i++) /* overlapping 16-byte windows */
    touch(&f, s, 0, 0x30000 + 5 * i, 16);
  check_against(&f, s);
  footprint_free(&f);
  free(s);
}

static void test_large_accesses(void) {
  struct footprint f;
  struct byteset *s = byteset_new();
  footprint_init(&f);
  touch(&f, s, 0, 17, 100000); /* memcpy-sized, unaligned both ends */
  touch(&f, s, 1, 4096, 65536);
  check_against(&f, s);
  for (int i = 0; i < 20; i++)
    touch(&f, s, (int)(test_rng() & 1), test_rng() % WINDOW_BYTES,
          1 + test_rng() % 20000);
  random_accesses(&f, s, 3000, 8);
  check_against(&f, s);
  footprint_free(&f);
  free(s);
}

static void test_merge(void) {
  struct footprint a, b;
  struct byteset *sa = byteset_new(), *sb = byteset_new();
  footprint_init(&a);
  footprint_init(&b);
  touch(&a, sa, 1, 0x100, 1);
  random_accesses(&b, sb, 3000, 64);
  footprint_merge(&a, &b); /* a's table grows under its cached page */
  touch(&a, sa, 1, 0x101, 1);
  for (int w = 0; w < 2; w++)
    for (size_t i = 0; i < WINDOW_BYTES / 64; i++)
      sa->bits[w][i] |= sb->bits[w][i];
  check_against(&a, sa);
  random_accesses(&a, sa, 3000, 64);
  random_accesses(&b, sb, 3000, 64);
  streaming_accesses(&b, sb);
  footprint_merge(&a, &b);
  for (int w = 0; w < 2; w++)
    for (size_t i = 0; i < WINDOW_BYTES / 64; i++)
      sa->bits[w][i] |= sb->bits[w][i];
  check_against(&a, sa);
  check_against(&b, sb); /* the source is unchanged */
  /* adding after a merge (the cached line must not be stale) */
  random_accesses(&a, sa, 3000, 64);
  check_against(&a, sa);
  footprint_free(&a);
  footprint_free(&b);
  free(sa);
  free(sb);
}

/* ---- Sharing ---------------------------------------------------------- */

#define THREADS 4

static int compare_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* Blocks that two or more byte sets touch: each set's distinct block ids,
 * all concatenated and sorted, then ids that occur more than once. */
static uint64_t brute_shared_blocks(struct byteset *const *s, int n,
                                    uint64_t line_bytes) {
  uint64_t *all = malloc(n * 2 * WINDOW_BYTES * sizeof(uint64_t));
  size_t total = 0;
  for (int t = 0; t < n; t++)
    total += byteset_block_ids(s[t], line_bytes, all + total);
  qsort(all, total, sizeof(*all), compare_u64);
  uint64_t shared = 0;
  for (size_t i = 1; i < total; i++)
    if (all[i] == all[i - 1] && (i < 2 || all[i - 2] != all[i]))
      shared++;
  free(all);
  return shared;
}

static void test_shared(void) {
  struct footprint f[THREADS];
  struct byteset *s[THREADS];
  const struct footprint *fps[THREADS];
  for (int t = 0; t < THREADS; t++) {
    footprint_init(&f[t]);
    s[t] = byteset_new();
    fps[t] = &f[t];
    /* private data far apart per thread, plus a shared region */
    for (uint64_t i = 0; i < 500; i++)
      touch(&f[t], s[t], 1, 0x8000 * (uint64_t)(t + 1) + 8 * i, 8);
    random_accesses(&f[t], s[t], 300, 32);
  }
  /* false sharing: thread t writes byte t of each 8-byte element */
  for (int t = 0; t < THREADS; t++)
    for (uint64_t i = 0; i < 100; i++)
      touch(&f[t], s[t], 0, 0x8000 + 8 * i + (uint64_t)t, 1);
  EXPECT_EQ(footprint_shared_bytes(fps, THREADS),
            brute_shared_blocks(s, THREADS, 1));
  for (uint64_t b = 1; b <= 4096; b *= 2)
    EXPECT_EQ(footprint_shared_blocks(fps, THREADS, b),
              brute_shared_blocks(s, THREADS, b));
  EXPECT_EQ(footprint_shared_blocks(fps, THREADS, UINT64_C(1) << 30),
            brute_shared_blocks(s, THREADS, UINT64_C(1) << 30));
  EXPECT_EQ(footprint_shared_bytes(fps, 1), 0);
  EXPECT_EQ(footprint_shared_bytes(fps, 0), 0);
  for (int t = 0; t < THREADS; t++) {
    footprint_free(&f[t]);
    free(s[t]);
  }
}

/* Two threads by hand: false sharing shows at 8 bytes, not at 1. */
static void test_shared_by_hand(void) {
  struct footprint a, b;
  const struct footprint *fps[2] = {&a, &b};
  footprint_init(&a);
  footprint_init(&b);
  footprint_add(&a, 0x1000, 4);
  footprint_add(&b, 0x1004, 4); /* same 8-byte block, other bytes */
  footprint_add(&a, 0x2000, 16);
  footprint_add(&b, 0x2008, 16); /* 8 bytes in common */
  footprint_add(&a, 0x3000, 64);
  footprint_add(&b, 0x3040, 64); /* adjacent lines, one 128-byte block */
  EXPECT_EQ(footprint_shared_bytes(fps, 2), 8);
  EXPECT_EQ(footprint_shared_blocks(fps, 2, 8), 2);
  EXPECT_EQ(footprint_shared_blocks(fps, 2, 64), 2);
  EXPECT_EQ(footprint_shared_blocks(fps, 2, 128), 3);
  EXPECT_EQ(footprint_shared_blocks(fps, 2, 4096), 3);
  EXPECT_EQ(footprint_shared_blocks(fps, 2, 8192), 2); /* 0x0, 0x2000 */
  footprint_free(&a);
  footprint_free(&b);
}

/* ---- JSON ------------------------------------------------------------- */

static uint64_t json_u64(struct json_object *obj, const char *key) {
  struct json_object *v;
  if (!json_object_object_get_ex(obj, key, &v) ||
      !json_object_is_type(v, json_type_int))
    return UINT64_MAX;
  return (uint64_t)json_object_get_int64(v);
}

static void test_json(void) {
  struct footprint f;
  struct byteset *s = byteset_new();
  const uint64_t sizes[] = {8, 16, 64, 512, 4096};
  footprint_init(&f);
  random_accesses(&f, s, 1000, 64);
  struct json_object *obj = footprint_to_json(&f, sizes, 5);
  struct json_object *blocks;
  EXPECT(obj != NULL);
  EXPECT_EQ(json_u64(obj, "bytes"), byteset_bytes(s));
  EXPECT(json_object_object_get_ex(obj, "blocks", &blocks));
  EXPECT_EQ(json_object_object_length(blocks), 5);
  EXPECT_EQ(json_u64(blocks, "8"), byteset_blocks(s, 8));
  EXPECT_EQ(json_u64(blocks, "16"), byteset_blocks(s, 16));
  EXPECT_EQ(json_u64(blocks, "64"), byteset_blocks(s, 64));
  EXPECT_EQ(json_u64(blocks, "512"), byteset_blocks(s, 512));
  EXPECT_EQ(json_u64(blocks, "4096"), byteset_blocks(s, 4096));
  EXPECT(!json_object_object_get_ex(obj, "approximate", NULL));
  json_object_put(obj);

  const struct footprint *fps[2] = {&f, &f}; /* a footprint shares all */
  obj = footprint_shared_to_json(fps, 2, sizes, 2);
  EXPECT_EQ(json_u64(obj, "bytes"), byteset_bytes(s));
  EXPECT(json_object_object_get_ex(obj, "blocks", &blocks));
  EXPECT_EQ(json_u64(blocks, "16"), byteset_blocks(s, 16));
  json_object_put(obj);
  footprint_free(&f);
  free(s);
}

int main(void) {
  test_seed(0x13198a2e03707344);
  RUN(test_empty_and_zero_size);
  RUN(test_by_hand);
  RUN(test_line_boundaries);
  RUN(test_huge_region);
  RUN(test_random_small);
  RUN(test_sequential_and_streams);
  RUN(test_large_accesses);
  RUN(test_merge);
  RUN(test_shared);
  RUN(test_shared_by_hand);
  RUN(test_json);
  return check_summary();
}
