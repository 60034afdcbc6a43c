/* unit_counts.c: the temporal sample of accesses per unit, the held units'
 * addresses, and the entropy estimate they give (unit_counts.h). */
#include "unit_counts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void gaps_init(struct unit_gaps *g, uint64_t seed, uint64_t mean) {
  g->random = seed;
  g->left = mean;
}

/* The next gap, 1 to 2 mean - 1 accesses (mean at most 2^31): 32 random
 * bits times the range, the high half (Lemire's multiply instead of a
 * division, on the sampled accesses' path). */
static inline uint64_t next_gap(struct unit_gaps *g, uint64_t mean) {
  uint64_t x = g->random;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  g->random = x;
  return 1 + (((x >> 32) * (2 * mean - 1)) >> 32);
}

void unit_counts_init(struct unit_counts *u, unsigned shift) {
  memset(u, 0, sizeof *u);
  u64map_init(&u->units);
  u64map_init(&u->held);
  for (unsigned i = 0; i < UNIT_CACHE; i++)
    u->pending[i].unit = UINT64_MAX;
  gaps_init(&u->held_gaps, UINT64_C(0xd1b54a32d192ed03), 1);
  u->shift = shift;
}

/* Bytes of a held unit's counts. */
static size_t held_bytes(const struct unit_counts *u) {
  return sizeof(struct held_unit) + (sizeof(uint32_t) << u->shift);
}

/* The held table's value for a hashed unit that would have been held
 * had the hash not picked it: it takes no counts, but it takes its place
 * among the units held, and the ratio estimate leaves it out
 * (unit_entropy_estimate). */
#define HELD_HASHED 1

static struct held_unit *counts_at(uint64_t value) {
  return (struct held_unit *)(uintptr_t)value;
}

void unit_counts_free(struct unit_counts *u) {
  size_t iter = 0;
  uint64_t unit, value;
  while (u64map_next(&u->held, &iter, &unit, &value))
    if (value && value != HELD_HASHED)
      pisa_table_free(counts_at(value), held_bytes(u));
  u64map_free(&u->units);
  u64map_free(&u->held);
  unit_counts_init(u, u->shift);
}

size_t unit_counts_held(const struct unit_counts *u) {
  size_t iter = 0, n = 0;
  uint64_t unit, value;
  while (u64map_next(&u->held, &iter, &unit, &value))
    n += value != HELD_HASHED;
  return n;
}

/* unit's counts, new ones zero; NULL when memory ran out. */
static struct held_unit *held_counts(struct unit_counts *u, uint64_t unit) {
  uint64_t *slot = u64map_slot(&u->held, unit);
  if (!slot)
    return NULL;
  if (!*slot) {
    struct held_unit *h = pisa_table_alloc(held_bytes(u));
    if (!h) /* u64map has no removal: a unit without counts holds nothing */
      return NULL;
    h->left = 1;
    *slot = (uint64_t)(uintptr_t)h;
  }
  return counts_at(*slot);
}

/* Marks unit, which the hash picked, as one that would have been held
 * (HELD_HASHED), unless it is already: -1 when memory ran out. */
static int mark_hashed(struct unit_counts *u, uint64_t unit) {
  uint64_t *slot = u64map_slot(&u->held, unit);
  if (!slot)
    return -1;
  if (!*slot)
    *slot = HELD_HASHED;
  return 0;
}

static inline unsigned pending_index(uint64_t unit) {
  return (unsigned)((unit ^ (unit >> 8) ^ (unit >> 16)) & (UNIT_CACHE - 1));
}

/* Adds `count` sampled accesses to unit's entry of the table; a unit f
 * does not sample that is now hot enough becomes held. */
static void add_to_table(struct unit_counts *u, uint64_t unit, uint64_t count,
                         const struct sample_filter *f) {
  uint64_t *slot = u64map_slot(&u->units, unit);
  if (!slot) {
    u->out_of_memory = 1;
    return;
  }
  *slot += count;
  if (*slot < UNIT_HOLD_MIN || *slot * UNIT_HOLD_SHARE < u->sampled ||
      u->shift > UNIT_HOLD_SHIFT || u64map_count(&u->held) >= UNIT_HOLD_MAX)
    return;
  if (sample_keep(f, unit << u->shift) ? mark_hashed(u, unit) != 0
                                       : !held_counts(u, unit))
    u->out_of_memory = 1;
}

/* unit's value in the held table (counts, or HELD_HASHED), NULL when it
 * has none. */
static const uint64_t *held_value(const struct unit_counts *u, uint64_t unit) {
  return u64map_count(&u->held) ? u64map_find(&u->held, unit) : NULL;
}

/* unit's held counts, NULL when it is not held. */
static struct held_unit *held_of(const struct unit_counts *u, uint64_t unit) {
  const uint64_t *held = held_value(u, unit);
  return held && *held != HELD_HASHED ? counts_at(*held) : NULL;
}

/* The pending entry of unit, after the counts of the unit it held went to
 * the table; this access of unit goes to the table at once (its slot was
 * prefetched: with accesses to random units, the entry is replaced before
 * it counts another, and the old unit's slot would miss the caches). */
static struct unit_pending *pending_of(struct unit_counts *u, uint64_t unit,
                                       const struct sample_filter *f) {
  struct unit_pending *p = &u->pending[pending_index(unit)];
  if (p->unit != UINT64_MAX && p->count)
    add_to_table(u, p->unit, p->count, f);
  add_to_table(u, unit, 1, f);
  p->unit = unit;
  p->count = 0;
  p->held = held_of(u, unit);
  return p;
}

/* The held access at addr that ends a gap: counted with its weight, and
 * the next gap drawn. */
static void held_sample(struct unit_counts *u, struct held_unit *h,
                        uint64_t addr) {
  uint32_t *c = &h->counts[addr & ((UINT64_C(1) << u->shift) - 1)];
  uint64_t sum = (uint64_t)*c + (UINT64_C(1) << h->weight_log);
  *c = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
  if (++h->samples % UNIT_HELD_LEVEL == 0 && h->weight_log < 16)
    h->weight_log++;
  h->left = (uint32_t)next_gap(&u->held_gaps, UINT64_C(1) << h->weight_log);
}

/* One access of the temporal sample. */
static void sampled_access(struct unit_counts *u, uint64_t addr,
                           const struct sample_filter *f) {
  uint64_t unit = addr >> u->shift;
  struct unit_pending *p = &u->pending[pending_index(unit)];
  u->sampled++;
  if (p->unit != unit)
    p = pending_of(u, unit, f); /* which counts it */
  else if (++p->count == UNIT_FLUSH && !p->held) {
    /* a unit that stays (its slot is its own) must get held all the same */
    add_to_table(u, unit, p->count, f);
    p->count = 0;
    p->held = held_of(u, unit);
  }
  if (p->held && --p->held->left == 0)
    held_sample(u, p->held, addr);
}

void unit_sample_init(struct unit_sample *s, uint64_t seed) {
  uint64_t start = UINT64_C(0x9e3779b97f4a7c15) ^ seed;
  memset(s, 0, sizeof *s);
  gaps_init(&s->gaps, start ? start : UINT64_C(0x9e3779b97f4a7c15),
            UNIT_SAMPLE);
}

void unit_sample_free(struct unit_sample *s) {
  free(s->at);
  unit_sample_init(s, 0);
}

int unit_sample_batch(struct unit_sample *s, uint32_t first, uint32_t end,
                      uint64_t seed) {
  int failed = 0;
  if (!s->gaps.random) /* zeroed: not drawn from yet */
    unit_sample_init(s, seed);
  s->n = s->cursor = 0;
  /* gaps.left counts this batch's first access: the next one taken is
   * first + left - 1 */
  uint64_t i = first + s->gaps.left - 1;
  for (; i < end; i += next_gap(&s->gaps, UNIT_SAMPLE)) {
    if (s->n == s->capacity && !failed) {
      size_t want = s->capacity ? 2 * s->capacity : 256;
      uint32_t *at = realloc(s->at, want * sizeof *at);
      if (at) {
        s->at = at;
        s->capacity = want;
      } else {
        failed = 1;
      }
    }
    if (!failed)
      s->at[s->n++] = (uint32_t)i;
  }
  s->gaps.left = i - end + 1;
  if (failed)
    s->n = 0;
  return failed ? -1 : 0;
}

void unit_counts_add_positions(struct unit_counts *u, const uint64_t *addrs,
                               uint32_t to, struct unit_sample *s,
                               const struct sample_filter *f) {
  size_t i = s->cursor;
  for (; i < s->n && s->at[i] < to; i++) {
    if (i + 4 < s->n && s->at[i + 4] < to) /* its unit's slot, if it misses */
      u64map_prefetch(&u->units, addrs[s->at[i + 4]] >> u->shift);
    sampled_access(u, addrs[s->at[i]], f);
  }
  s->cursor = i;
}

void unit_counts_touch(struct unit_counts *u, uint64_t first, uint64_t last) {
  for (uint64_t unit = first;; unit++) {
    if (!u64map_slot(&u->units, unit))
      u->out_of_memory = 1;
    if (unit == last)
      break;
  }
}

/* Adds count to unit's entry of dst's table. */
static void add_units(struct unit_counts *dst, uint64_t unit, uint64_t count) {
  uint64_t *slot = u64map_slot(&dst->units, unit);
  if (slot)
    *slot += count;
  else
    dst->out_of_memory = 1;
}

void unit_counts_merge(struct unit_counts *dst, const struct unit_counts *src) {
  size_t iter = 0;
  uint64_t unit, value;
  if (u64map_reserve(&dst->units,
                     u64map_count(&dst->units) + u64map_count(&src->units)))
    dst->out_of_memory = 1; /* try anyway: most units may be shared */
  while (u64map_next(&src->units, &iter, &unit, &value))
    add_units(dst, unit, value);
  for (unsigned i = 0; i < UNIT_CACHE; i++)
    if (src->pending[i].unit != UINT64_MAX && src->pending[i].count)
      add_units(dst, src->pending[i].unit, src->pending[i].count);
  iter = 0;
  while (u64map_next(&src->held, &iter, &unit, &value)) {
    if (value == HELD_HASHED) {
      if (mark_hashed(dst, unit))
        dst->out_of_memory = 1;
      continue;
    }
    struct held_unit *to = held_counts(dst, unit);
    const struct held_unit *from = counts_at(value);
    if (!from)
      continue;
    if (!to) {
      dst->out_of_memory = 1;
      continue;
    }
    to->samples += from->samples;
    if (from->weight_log > to->weight_log)
      to->weight_log = from->weight_log;
    for (size_t i = 0, n = (size_t)1 << src->shift; i < n; i++) {
      uint64_t sum = (uint64_t)to->counts[i] + from->counts[i];
      to->counts[i] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    }
  }
  dst->accesses += src->accesses;
  dst->sampled += src->sampled;
  dst->out_of_memory |= src->out_of_memory;
}

size_t unit_counts_units(const struct unit_counts *u) {
  return u64map_count(&u->units);
}

size_t unit_counts_sampled(const struct unit_counts *u,
                           const struct sample_filter *f) {
  size_t iter = 0, n = 0;
  uint64_t unit, value;
  while (u64map_next(&u->units, &iter, &unit, &value))
    n += (size_t)sample_keep(f, unit << u->shift);
  return n;
}

/* ---- The entropy estimate ------------------------------------------------ */

/* The counted addresses of the held unit h into p, in address order, with
 * their weighted counts; their number. */
static size_t held_pairs(const struct unit_counts *u, uint64_t unit,
                         const struct held_unit *h, struct entropy_pair *p) {
  size_t n = 0;
  for (uint64_t i = 0, end = UINT64_C(1) << u->shift; i < end; i++)
    if (h->counts[i])
      p[n++] = (struct entropy_pair){unit << u->shift | i, h->counts[i]};
  return n;
}

/* x log2 x in double precision (log2l cost a quarter of a report's
 * time); the sums are long double. */
static long double xlog2x(long double x) {
  return x > 0 ? x * (long double)log2((double)x) : 0;
}

/* The digamma function, x >= 1: shifted to x >= 6, then its asymptotic
 * series.  (Here and in scaled_e1, GSL's gsl_sf_psi and
 * gsl_sf_expint_E1_scaled would serve, but the runtime, linked into every
 * instrumented program, links only json-c, pthreads and libm.) */
static double digamma(double x) {
  double r = 0;
  for (; x < 6; x++)
    r -= 1 / x;
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f / 240)));
}

/* The exponential integral E1(x) times e^x, x > 0: its series below 1, a
 * continued fraction (Lentz) above. */
static double scaled_e1(double x) {
  if (x <= 1) {
    double sum = 0, term = 1;
    for (int k = 1; k < 40; k++) {
      term *= -x / k;
      sum -= term / k;
    }
    return exp(x) * (-0.57721566490153286 - log(x) + sum);
  }
  double b = x + 1, c = 1e300, d = 1 / b, h = d;
  for (int i = 1; i < 200; i++) {
    double a = -(double)i * i;
    b += 2;
    d = 1 / (a * d + b);
    c = b + a / c;
    double delta = c * d;
    h *= delta;
    if (fabs(delta - 1) < 1e-15)
      break;
  }
  return h;
}

/* sum over j >= 1 of (1 - a)^j / (m + j), 0 < a < 1: the terms to about
 * e^-40, or TAIL_TERMS of them and the rest as an integral (the terms
 * then vary slowly), e^(b m) E1(b (m + j)), b = -ln(1 - a). */
#define TAIL_TERMS 1024
static double unseen_tail(double a, double m) {
  double b = -log1p(-a), q = 1 - a, t = 1, sum = 0;
  double stop = 40 / b < TAIL_TERMS ? ceil(40 / b) : TAIL_TERMS;
  double j = 1;
  for (; j <= stop; j++) {
    t *= q;
    sum += t / (m + j);
  }
  if (stop == TAIL_TERMS) {
    double x = b * (m + j - 0.5);
    sum += exp(b * m - x) * scaled_e1(x);
  }
  return sum;
}

/* The counts whose psi chao_wang_jost takes from a table. */
#define PSI_SMALL 256

/* A held unit's count as the counted accesses it stands for, at least 1
 * (chao_wang_jost). */
static inline double scaled_count(const struct entropy_pair *p, double scale) {
  double x = round((double)p->count * scale);
  return x < 1 ? 1 : x;
}

/* Chao, Wang and Jost's entropy estimate (2013), in bits, of the pairs
 * p[0..n) of a held unit, whose counts (`total` in all) stand for
 * `samples` counted accesses (a counted access adds 2^w: unit_counts.h;
 * so the counts are scaled to the samples first, each at least 1): with
 * X_i those counts, N their sum and f1, f2 the addresses counted once and
 * twice,
 *   H = sum_{X_i < N} X_i / N (psi(N) - psi(X_i)) + f1 / N (1 - A)^(1 - N)
 *       (-ln A - sum_{r < N} (1 - A)^r / r),
 * A = 2 f2 / ((N - 1) f1 + 2 f2) (2 / ((N - 1) (f1 - 1) + 2) without f2).
 * Nearly unbiased with fewer samples than addresses, where Miller and
 * Madow's correction stays low and Chao and Shen's is high on a unit
 * used evenly (the loop nest of test_unit_counts: 0.15 bit). */
static long double chao_wang_jost(const struct entropy_pair *p, size_t n,
                                  long double total, uint64_t samples) {
  double scale = (double)((long double)samples / total), all = 0, f1 = 0,
         f2 = 0;
  for (size_t i = 0; i < n; i++) {
    double x = scaled_count(&p[i], scale);
    all += x;
    f1 += x == 1;
    f2 += x == 2;
  }
  if (all < 2)
    return 0;
  /* psi of the small counts, most of them, from psi(1) = -gamma and
   * psi(x + 1) = psi(x) + 1 / x */
  double small[PSI_SMALL + 1];
  small[1] = -0.57721566490153286;
  for (int x = 1; x < PSI_SMALL; x++)
    small[x + 1] = small[x] + 1.0 / x;
  double h = 0, psi = digamma(all);
  for (size_t i = 0; i < n; i++) {
    double x = scaled_count(&p[i], scale);
    if (x < all)
      h += x / all * (psi - (x <= PSI_SMALL ? small[(int)x] : digamma(x)));
  }
  double a = f2 > 0   ? 2 * f2 / ((all - 1) * f1 + 2 * f2)
             : f1 > 0 ? 2 / ((all - 1) * (f1 - 1) + 2)
                      : 1;
  if (f1 > 0 && a < 1)
    h += f1 / all * unseen_tail(a, all - 1);
  return (long double)(h / M_LN2);
}

/* h[k], k = 0..max_shift: the entropy in bits of addr >> k over the pairs
 * p[0..n) (one unit's, sorted by address, overwritten: each pass merges
 * the neighbours one more bit leaves equal); returns their accesses.
 * With `samples` (the counts are a sample of the unit's accesses, that
 * many, each weighted) each h[k] is Chao, Wang and Jost's estimate
 * (chao_wang_jost): the plain one from a sample is low, and with fewer
 * samples than addresses (compress's held units, for their bytes) Miller
 * and Madow's correction, (groups - 1) / (2 ln 2 samples), left it low by
 * 0.08 bit of the total; this one, by 0.03.  No h[k] passes
 * unit_shift - k, the entropy of every address of the unit equally
 * used. */
static long double within_unit(struct entropy_pair *p, size_t n,
                               unsigned max_shift, unsigned unit_shift,
                               uint64_t samples, long double *h) {
  long double total = 0;
  for (size_t i = 0; i < n; i++)
    total += (long double)p[i].count;
  for (unsigned k = 0; k <= max_shift; k++) {
    if (samples) {
      h[k] = chao_wang_jost(p, n, total, samples);
    } else {
      long double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += xlog2x((long double)p[i].count);
      h[k] = (long double)log2((double)total) - sum / total;
    }
    if (h[k] > (long double)(unit_shift - k))
      h[k] = (long double)(unit_shift - k);
    if (h[k] < 0) /* the rounding of two nearly equal terms */
      h[k] = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (m && p[m - 1].addr >> (k + 1) == p[i].addr >> (k + 1))
        p[m - 1].count += p[i].count;
      else
        p[m++] = p[i];
    n = m;
  }
  return total;
}

/* The strata of the ratio estimate: a unit's level is 1 + floor(log2 c)
 * of its temporal sample's count c, 0 for none (a unit a memcpy or memset
 * only touched, or a hashed unit the sample missed). */
#define UNIT_LEVELS 66

static unsigned level_of(uint64_t sampled) {
  return sampled ? 64u - (unsigned)__builtin_clzll(sampled) : 0;
}

/* The sums the estimate is made of, per level (stratum): over the hashed
 * units (exact: their accesses C_p, sum C_p h_p(k), and for the error
 * sum C_p^2 h_p(k)^i, i = 0..2; `donors` their number) and over the units
 * neither hashed nor held (their temporal counts, `rest`); over the held
 * ones their shares w_p of all accesses and sum w_p h_p(k). */
struct stratum {
  long double hashed, rest, donors;
  long double w_hashed[ENTROPY_MAX_SHIFT + 1];
  long double sq[3][ENTROPY_MAX_SHIFT + 1];
};

struct sums {
  long double hashed, held[ENTROPY_MAX_SHIFT + 1];
  long double w_hashed[ENTROPY_MAX_SHIFT + 1];
  long double w_held[ENTROPY_MAX_SHIFT + 1];
  struct stratum level[UNIT_LEVELS];
};

/* A hashed unit; a donor to its stratum's ratio unless it would have
 * been held (HELD_HASHED). */
static void add_hashed(struct sums *s, unsigned level, long double c,
                       const long double *h, unsigned max_shift, int donor) {
  struct stratum *t = &s->level[level];
  s->hashed += c;
  for (unsigned k = 0; k <= max_shift; k++)
    s->w_hashed[k] += c * h[k];
  if (!donor)
    return;
  t->hashed += c;
  t->donors++;
  for (unsigned k = 0; k <= max_shift; k++) {
    t->w_hashed[k] += c * h[k];
    t->sq[0][k] += c * c;
    t->sq[1][k] += c * c * h[k];
    t->sq[2][k] += c * c * h[k] * h[k];
  }
}

static void add_held(struct sums *s, long double w, const long double *h,
                     unsigned max_shift) {
  for (unsigned k = 0; k <= max_shift; k++) {
    s->held[k] += w;
    s->w_held[k] += w * h[k];
  }
}

/* Merges the strata into groups of one or more hashed units each, from
 * the hottest level down (a level with none joins the next colder one
 * that has some; the coldest levels without any join the last group):
 * s->level[l] then holds its group's sums at the group's hottest level
 * l, and first[l] = that level for every level of the group. */
static void group_levels(struct sums *s, unsigned max_shift, unsigned *first) {
  int top = -1;  /* the open group's hottest level */
  int last = -1; /* the last closed group's */
  for (int l = UNIT_LEVELS - 1; l >= 0; l--) {
    struct stratum *t = &s->level[l];
    if (top < 0) {
      top = l;
    } else {
      struct stratum *g = &s->level[top];
      g->hashed += t->hashed;
      g->rest += t->rest;
      g->donors += t->donors;
      for (unsigned k = 0; k <= max_shift; k++) {
        g->w_hashed[k] += t->w_hashed[k];
        for (int i = 0; i < 3; i++)
          g->sq[i][k] += t->sq[i][k];
      }
    }
    first[l] = (unsigned)top;
    if (s->level[top].donors > 0) {
      last = top;
      top = -1;
    }
  }
  if (top >= 0 && last >= 0) { /* the coldest levels: none hashed */
    struct stratum *g = &s->level[last], *t = &s->level[top];
    g->rest += t->rest;
    for (int l = top; l >= 0; l--)
      first[l] = (unsigned)last;
    memset(t, 0, sizeof *t);
  }
}

/* H_u, the entropy of the units: H_u = log2 N - (1/N) sum_p C_p log2 C_p,
 * the sum in two strata.  A dense unit (UNIT_DENSE sampled accesses or
 * more) has C_p = s c_p from its temporal sample's c_p, s = N / n: were
 * c_p Poisson, s c_p log2 (s c_p) would be high by s / (2 ln 2) on
 * average, 1 / (2 ln 2 UNIT_DENSE) bits of the unit's share at most (a
 * sweep's units are sampled far more evenly; a correction for the Poisson
 * case measured 0.03 bits too low on one).  The sparse units share what
 * is left of N, and their mean log2 C_p weighted by C_p is the hashed
 * sparse units' (exact counts: sparse[0] = sum C_p log2 C_p, sparse[1] =
 * sum C_p), which no access pattern biases; with none hashed, their
 * temporal counts as the dense ones'. */
static long double units_entropy(const struct unit_counts *u,
                                 const long double *sparse) {
  long double all = (long double)u->accesses, s = all / (long double)u->sampled,
              dense = 0, sum = 0, sparse_sum = 0;
  size_t iter = 0;
  uint64_t unit, value;
  while (u64map_next(&u->units, &iter, &unit, &value)) {
    long double c = (long double)value * s, term = xlog2x(c);
    if (value >= UNIT_DENSE) {
      dense += c;
      sum += term;
    } else {
      sparse_sum += term;
    }
  }
  long double rest = all - dense;
  if (rest > 0)
    sum += sparse[1] > 0 ? rest * sparse[0] / sparse[1] : sparse_sum;
  return log2l(all) - sum / all;
}

int unit_entropy_estimate(const struct unit_counts *u,
                          const struct entropy_counts *sampled,
                          const struct sample_filter *f, unsigned max_shift,
                          double *h, double *error) {
  memset(h, 0, (max_shift + 1) * sizeof *h);
  if (error)
    *error = 0;
  if (!u->sampled || max_shift > u->shift)
    return 1;
  size_t n = 0;
  struct entropy_pair *p = entropy_sorted_pairs(sampled, &n);
  struct sums *s = calloc(1, sizeof *s);
  struct entropy_pair *q = unit_counts_held(u)
                               ? malloc(sizeof *q << u->shift)
                               : NULL; /* one held unit's at a time */
  if (!p || !s || (unit_counts_held(u) && !q)) {
    free(p);
    free(s);
    free(q);
    return -1;
  }
  long double hp[ENTROPY_MAX_SHIFT + 1], all = (long double)u->accesses,
                                         sparse[2] = {0, 0};
  unsigned first[UNIT_LEVELS];

  /* The hashed units: every access, so exact within */
  for (size_t i = 0, j; i < n; i = j) {
    uint64_t unit = p[i].addr >> u->shift;
    for (j = i + 1; j < n && p[j].addr >> u->shift == unit; j++)
      ;
    const uint64_t *seen = u64map_find(&u->units, unit);
    long double c = within_unit(p + i, j - i, max_shift, u->shift, 0, hp);
    const uint64_t *held = held_value(u, unit);
    add_hashed(s, seen ? level_of(*seen) : 0, c, hp, max_shift,
               !held || *held != HELD_HASHED);
    if (!seen || *seen < UNIT_DENSE) {
      sparse[0] += xlog2x(c);
      sparse[1] += c;
    }
  }

  /* The other units' temporal counts, per level (the held ones' are taken
   * off below) */
  size_t iter = 0;
  uint64_t unit, value;
  while (u64map_next(&u->units, &iter, &unit, &value))
    if (value && !sample_keep(f, unit << u->shift))
      s->level[level_of(value)].rest += (long double)value;

  /* The held ones: a held unit's addresses since it was held stand for all
   * its accesses, in the scopes that did not hold it and before.  (Giving
   * those to the rest instead made hashtable 0.12 bits worse: a unit hot
   * in one scope is hot in the others.  A unit found hot only late, in a
   * phase of its own, would weigh that phase too much: hence the low share
   * that holds a unit, UNIT_HOLD_SHARE.) */
  iter = 0;
  while (u64map_next(&u->held, &iter, &unit, &value)) {
    const uint64_t *seen = u64map_find(&u->units, unit);
    if (!value || !seen || !*seen || sample_keep(f, unit << u->shift))
      continue;
    n = held_pairs(u, unit, counts_at(value), q);
    if (!n)
      continue;
    within_unit(q, n, max_shift, u->shift, counts_at(value)->samples, hp);
    add_held(s, (long double)*seen / (long double)u->sampled, hp, max_shift);
    s->level[level_of(*seen)].rest -= (long double)*seen;
  }

  /* The accesses neither hashed nor held take the hashed units' ratio
   * within their stratum, post-stratified by the temporal sample's count
   * (the held ones' ratio when none is hashed, 0 when neither): a unit's
   * count says how hot it is, the hash and the temporal sample are
   * independent, and a hot unit's addresses are not a cold one's (graph:
   * the units counted 256 times or more, 35% of the accesses, have
   * h_p(0) = 6.5 against 10 for the others; with one ratio over all the
   * hashed units, the few hot ones among them moved H_0 by 0.9 bit from
   * draw to draw).  A hashed unit that would have been held is no donor:
   * the rest are the units the holding passed over, and the hottest
   * units of a stratum, held first, have fewer addresses (graph's held
   * units: h_p(0) of 5.7 against 6.5 for the other hot ones; the 2 to 5
   * hashed ones that would have been held, as donors, made its hot
   * strata up to 0.3 bit low). */
  group_levels(s, max_shift, first);
  long double rest_counts = 0;
  for (unsigned l = 0; l < UNIT_LEVELS; l++)
    if (first[l] == l && s->level[l].donors > 0)
      rest_counts += s->level[l].rest > 0 ? s->level[l].rest : 0;
  long double h_units = units_entropy(u, sparse), rest[ENTROPY_MAX_SHIFT + 1];
  for (unsigned k = 0; k <= max_shift; k++) {
    rest[k] = 1 - s->hashed / all - s->held[k];
    if (rest[k] < 0)
      rest[k] = 0;
    long double within = 0;
    if (s->hashed > 0 && rest_counts > 0) {
      for (unsigned l = 0; l < UNIT_LEVELS; l++) {
        const struct stratum *g = &s->level[l];
        if (first[l] == l && g->donors > 0 && g->rest > 0)
          within += g->rest / rest_counts * g->w_hashed[k] / g->hashed;
      }
    } else {
      within = s->hashed > 0    ? s->w_hashed[k] / s->hashed
               : s->held[k] > 0 ? s->w_held[k] / s->held[k]
                                : 0;
    }
    long double v =
        h_units + s->w_hashed[k] / all + s->w_held[k] + rest[k] * within;
    h[k] = v < 0 ? 0 : (double)v;
  }
  /* The linearised standard error of the stratified ratio: per group g,
   * sqrt((1 - rate) sum C_p^2 (h_p(k) - r_g)^2) / sum C_p times the share
   * of the accesses it stands for, summed in quadrature; a group of one
   * hashed unit takes the dispersion of the groups of two or more, per
   * unit of C_p^2.  With no hashed unit, the rest's share times the most
   * a unit's entropy can be. */
  for (unsigned k = 0; error && k <= max_shift; k++) {
    long double var = 0, disp = 0, weight = 0;
    for (unsigned l = 0; l < UNIT_LEVELS; l++) {
      const struct stratum *g = &s->level[l];
      if (first[l] != l || g->donors < 2)
        continue;
      long double r = g->w_hashed[k] / g->hashed,
                  dev = g->sq[2][k] - 2 * r * g->sq[1][k] + r * r * g->sq[0][k];
      disp += dev > 0 ? dev : 0;
      weight += g->sq[0][k];
    }
    for (unsigned l = 0; l < UNIT_LEVELS && rest_counts > 0; l++) {
      const struct stratum *g = &s->level[l];
      if (first[l] != l || g->donors < 1 || g->rest <= 0)
        continue;
      long double r = g->w_hashed[k] / g->hashed,
                  dev = g->donors >= 2 ? g->sq[2][k] - 2 * r * g->sq[1][k] +
                                             r * r * g->sq[0][k]
                        : weight > 0 ? disp / weight * g->sq[0][k]
                                     : 0,
                  share = rest[k] * g->rest / rest_counts;
      var += share * share * (1 - f->rate) * (dev > 0 ? dev : 0) /
             (g->hashed * g->hashed);
    }
    double e =
        s->hashed > 0 ? (double)sqrtl(var) : (double)(rest[k] * (u->shift - k));
    if (e > *error)
      *error = e;
  }
  free(p);
  free(q);
  free(s);
  return 0;
}
