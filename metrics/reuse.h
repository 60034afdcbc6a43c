/* reuse.h: exact LRU reuse (stack) distance at one line size (docs/metrics.md
 * "Reuse distance"): each reference's distance and histogram bin, in
 * O(log n) per reference and 16 to 25 bytes per distinct block (at 8 to 32
 * bytes, 92 to 137 bytes per distinct 64-byte neighbourhood, shared). */
#ifndef PISA_METRICS_REUSE_H
#define PISA_METRICS_REUSE_H

#include <stddef.h>
#include <stdint.h>

#define REUSE_COLD 255   /* bin of a first reference */
#define REUSE_MAX_BIN 47 /* finite bins are 0..47 (distance < 2^47) */

struct reuse_engine;

/* An engine for line size 1 << line_shift (line_shift <= 63); NULL when out
 * of memory or line_shift is too large. */
struct reuse_engine *reuse_new(unsigned line_shift);

/* reuse_new, except that engines of 8-, 16- and 32-byte lines keep their
 * blocks' latest references in one table of 64-byte neighbourhoods: one
 * probe then finds a neighbourhood's blocks at the three sizes.  The new
 * engine shares partner's table when both line sizes are among those
 * (partner may be NULL).  Engines sharing a table must not run at the same
 * time; running out of memory, they forget their history together. */
struct reuse_engine *reuse_new_sharing(unsigned line_shift,
                                       struct reuse_engine *partner);
void reuse_free(struct reuse_engine *e);

/* For the n start addresses (program order), writes each access's bin at
 * this line size into bins[i] (0..REUSE_MAX_BIN or REUSE_COLD): bin 0 is
 * distance 0, bin i >= 1 distances in [2^(i-1), 2^i).  If distances is not
 * NULL, also the exact distance (UINT64_MAX for cold).  State persists
 * across calls, so a stream may be split into batches anywhere. */
void reuse_batch(struct reuse_engine *e, const uint64_t *addrs, size_t n,
                 uint8_t *bins, uint64_t *distances);

/* Keeps, in engines[0..n) (ascending line sizes, each sharing the table of
 * the one before where they can), only the blocks whose address `keep`
 * accepts, in the same LRU order: the engines are rebuilt from their blocks
 * in recency order, least recent first, so every later distance counts the
 * kept blocks only.  Engines that are NULL stay NULL.  0, or -1 when memory
 * ran out (the engines are then unchanged). */
int reuse_keep(struct reuse_engine **engines, size_t n,
               int (*keep)(const void *ctx, uint64_t addr), const void *ctx);

/* A new engine, at e's line size and with a table of its own, that has
 * seen e's blocks that `keep` accepts, in e's LRU order (as reuse_keep
 * rebuilds them); NULL when memory ran out. */
struct reuse_engine *
reuse_kept_copy(const struct reuse_engine *e,
                int (*keep)(const void *ctx, uint64_t addr), const void *ctx);

/* Distinct blocks referenced so far (the cold references). */
uint64_t reuse_distinct_blocks(const struct reuse_engine *e);

/* All memory the engine holds now, the engine itself and a shared table
 * included. */
size_t reuse_memory_bytes(const struct reuse_engine *e);

/* 1 if memory ran out at some point.  The engine then forgot its history:
 * a reference whose previous reference came before that point counts as
 * cold; every finite distance it reports is still exact. */
int reuse_out_of_memory(const struct reuse_engine *e);

/* For tests only: every new time stamp advances the clock by gap (>= 1)
 * instead of 1, so that few references spread over the whole range of
 * stamps, reach every level of the counting index and force frequent
 * compactions.  Distances do not change. */
void reuse_test_set_stamp_gap(struct reuse_engine *e, uint32_t gap);

/* For tests only, before the first reference: keep only the size (1 to 16)
 * most recent blocks in the window in front of the engine proper, so that
 * streams with few blocks exercise the engine too.  Distances do not
 * change. */
void reuse_test_set_window(struct reuse_engine *e, unsigned size);

/* For tests only: use the portable code even where the CPU has AVX2. */
void reuse_test_use_baseline(struct reuse_engine *e);

#endif /* PISA_METRICS_REUSE_H */
