/* unit_counts.h: what a sampled run learns of every sampling unit, not
 * only of the sampled ones (docs/metrics-implementation.md "Sampling",
 * "Units").  The space group's filter keeps every access to a hashed
 * sample of units (sample.h); a unit the hash did not pick is seen here,
 * through a second, temporal sample of all the accesses: one in
 * UNIT_SAMPLE on average, whatever its unit.  That sample counts the
 * accesses per unit, and, for the hot units the hash missed ("held" once
 * found hot), per byte address within the unit (a dense array: a table
 * keyed by address cost 70 ns per access of floyd-warshall, which holds
 * every unit).  From them:
 *
 *   - memory entropy by the chain rule, H_k = H_u + sum_p w_p h_p(k), where
 *     H_u is the entropy of the units (the dense units' counts from the
 *     temporal sample, the sparse ones' from the hashed sparse units), w_p
 *     the units' shares and h_p(k) the entropy within unit p: exact for
 *     the hashed units, from the held units' sampled addresses, and for
 *     the rest the hashed units' weighted mean (a ratio estimate);
 *   - footprints as the hashed units' footprint times the units the
 *     temporal sample saw over the hashed units it saw.
 *
 * A unit is addr >> shift, the filter's block.  Counting every access per
 * unit was measured first: 1.5 to 2 ns per access and scope, +58% CPU on
 * the kernels at 1%; one access in 64, drawn per scope, about +10%
 * (performance.md, "Sampled memory entropy and footprint from every
 * unit"). */
#ifndef PISA_METRICS_UNIT_COUNTS_H
#define PISA_METRICS_UNIT_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "entropy.h"
#include "sample.h"
#include "u64map.h"

/* The mean gap between two accesses of the temporal sample; the gaps are
 * drawn at random from 1 to 2 UNIT_SAMPLE - 1, so that no loop's period
 * can alias with them.  (64 gave errors half as large on the unit tests'
 * small streams, and cost more; performance.md.) */
#define UNIT_SAMPLE 128
/* A unit with this many accesses in the temporal sample is dense: its
 * count is scaled from the sample; the sparse ones' from the hashed
 * sparse units (unit_entropy_estimate). */
#define UNIT_DENSE 64
/* A unit the hash did not pick is held once the temporal sample has seen
 * UNIT_HOLD_MIN of its accesses and they are 1 / UNIT_HOLD_SHARE of those
 * seen so far; at most UNIT_HOLD_MAX units per table, each with a
 * 32-bit count per byte of the unit, and only units of up to
 * UNIT_HOLD_SHIFT bits (4 KiB: 16 KiB of counts).  A hashed unit that
 * passes the same test takes a place too, marked and without counts, so
 * that the estimate can leave it out of the ratio for the units not
 * held. */
#define UNIT_HOLD_SHIFT 12
#define UNIT_HOLD_MIN 256
#define UNIT_HOLD_SHARE 1024
#define UNIT_HOLD_MAX 64
/* Recent units whose counts are pending, direct-mapped; a unit not held
 * goes to the table every UNIT_FLUSH sampled accesses even while it
 * stays, to be found hot. */
#define UNIT_CACHE 16
#define UNIT_FLUSH 256

/* A held unit's counts per byte offset.  Its sampled accesses are
 * counted one in 2^weight_log (the gaps drawn at random), each adding
 * 2^weight_log, and weight_log grows by one every UNIT_HELD_LEVEL counted
 * ones: a counted access misses the caches (9 ns and 75% of the units'
 * time on atax, whose vectors are held), and a very hot unit needs no
 * more than that many to give its entropy. */
#define UNIT_HELD_LEVEL 32768

struct held_unit {
  uint64_t samples;    /* accesses counted */
  uint32_t left;       /* sampled accesses until the next one counted */
  uint32_t weight_log; /* what a counted access adds, log2 */
  uint32_t counts[];   /* 1 << shift of them, saturating */
};

struct unit_pending {
  uint64_t unit;          /* UINT64_MAX: none */
  uint64_t count;         /* sampled accesses not yet in the table */
  struct held_unit *held; /* when the unit is held */
};

/* Gaps drawn at random (xorshift64): the accesses until the next one
 * taken. */
struct unit_gaps {
  uint64_t random;
  uint64_t left;
};

struct unit_counts {
  struct u64map units; /* unit -> sampled accesses (with `pending`);
                          0 for a unit only a memcpy or memset
                          touched */
  struct u64map held;  /* held unit -> its struct held_unit
                          (pisa_table_alloc); 1 for a hashed unit
                          that would have been held */
  struct unit_pending pending[UNIT_CACHE];
  struct unit_gaps held_gaps;
  uint64_t accesses; /* N: every access */
  uint64_t sampled;  /* the temporal sample's accesses */
  unsigned shift;    /* a unit is addr >> shift */
  int out_of_memory; /* some accesses were not counted */
};

/* Units of 1 << shift bytes. */
void unit_counts_init(struct unit_counts *u, unsigned shift);
void unit_counts_free(struct unit_counts *u);

/* A thread's temporal sample, drawn once per batch for every state the
 * batch's accesses go to (a function's, a region's): drawing it per state
 * cost a call per run of one function's instances, 2.5% of hashtable's
 * time. */
struct unit_sample {
  struct unit_gaps gaps;
  uint32_t *at; /* the batch's sampled accesses, increasing */
  size_t n, capacity;
  size_t cursor; /* where the last unit_counts_add_sampled stopped: the
                    runs of a pass come in order, so each pass reads at[]
                    once (a binary search per run cost 8.8% of
                    hashtable's time) */
};

/* A zeroed struct unit_sample is initialised at its first batch; `seed`
 * (0 for the default draw) is xored into its generator's start. */
void unit_sample_init(struct unit_sample *s, uint64_t seed);
void unit_sample_free(struct unit_sample *s);
/* s->at[0..n) = the accesses of [first, end) the sample takes (the gaps
 * run on from the last batch; the first batch initialises s with `seed`);
 * 0, or -1 when memory ran out (none). */
int unit_sample_batch(struct unit_sample *s, uint32_t first, uint32_t end,
                      uint64_t seed);

/* The sampled accesses from s->cursor below `to`, counted for their
 * units (unit_counts_add_sampled's slow path). */
void unit_counts_add_positions(struct unit_counts *u, const uint64_t *addrs,
                               uint32_t to, struct unit_sample *s,
                               const struct sample_filter *f);

/* Counts the accesses addrs[from, to) (start addresses) of a batch whose
 * sample is s: each of them the sample took is counted for its unit;
 * units that f does not sample can become held.  Counts wait in `pending`
 * until their unit leaves it: the queries below read the table, so merge
 * u into an empty one first (as the report does).  Inline: most runs of
 * one state's instances hold no sampled access, and a call per run cost
 * 5% of hashtable's time. */
static inline void unit_counts_add_sampled(struct unit_counts *u,
                                           const uint64_t *addrs, uint32_t from,
                                           uint32_t to, struct unit_sample *s,
                                           const struct sample_filter *f) {
  size_t i = s->cursor;
  if (i && s->at[i - 1] >= from)
    i = 0; /* a pass over the batch again (the regions') */
  while (i < s->n && s->at[i] < from)
    i++;
  s->cursor = i;
  u->accesses += to - from;
  if (i < s->n && s->at[i] < to)
    unit_counts_add_positions(u, addrs, to, s, f);
}

/* The units first..last (inclusive) are touched (a memcpy or memset
 * covers them), with no access of their own. */
void unit_counts_touch(struct unit_counts *u, uint64_t first, uint64_t last);

/* dst counts src's accesses as well, pending ones included; a unit held
 * in either is held. */
void unit_counts_merge(struct unit_counts *dst, const struct unit_counts *src);

/* Units held (not counting the hashed ones marked). */
size_t unit_counts_held(const struct unit_counts *u);

/* Units seen (by the temporal sample or a memcpy or memset), and those of
 * them f samples. */
size_t unit_counts_units(const struct unit_counts *u);
size_t unit_counts_sampled(const struct unit_counts *u,
                           const struct sample_filter *f);

/* The memory entropy estimate, h[k] for k = 0..max_shift (max_shift <= the
 * unit's shift), from u and `sampled`, the hashed units' exact address
 * counts; *error (may be NULL) gets the largest over k of the standard
 * error of the ratio estimate's part, in bits.  Returns 0; 1 when the
 * temporal sample saw none of u's accesses (no estimate: h all zero); -1
 * when memory ran out (h all zero). */
int unit_entropy_estimate(const struct unit_counts *u,
                          const struct entropy_counts *sampled,
                          const struct sample_filter *f, unsigned max_shift,
                          double *h, double *error);

#endif /* PISA_METRICS_UNIT_COUNTS_H */
