/* phases.c: k-means over the intervals' block vectors, the number of
 * clusters chosen by BIC (phases.h), and the document's `phases`.  GSL's
 * generator seeds the k-means++ starts; GSL has no clustering. */
#include "phases.h"
#include "jsonpath.h"
#include "util.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PHASES_SEED 2002 /* fixed: the same document, the same phases */
#define PHASES_RESTARTS 5
#define PHASES_ITERATIONS 100
/* The noise floor of the BIC's variance: a coordinate's variance when 5%
 * of an interval's instructions move from one block to another (the
 * projection's entries are uniform in [-1, 1], variance 1/3 each: the
 * coordinate moves by 0.05 (r_a - r_b), of variance 0.05^2 * 2/3).
 * Intervals closer than that are one phase: without a floor, a stream of
 * near-identical intervals (a loop nest whose outer blocks fall into some
 * intervals and not others) splits into as many clusters as allowed. */
#define PHASES_MIN_VARIANCE (0.05 * 0.05 * 2.0 / 3.0)

struct points {
  const double *x;
  size_t n, d;
};

static double distance2(const double *a, const double *b, size_t d) {
  double s = 0;
  for (size_t j = 0; j < d; j++)
    s += (a[j] - b[j]) * (a[j] - b[j]);
  return s;
}

/* The nearest of k centres to point p; its squared distance in *d2. */
static size_t nearest(const struct points *p, const double *centres, size_t k,
                      size_t i, double *d2) {
  size_t best = 0;
  *d2 = DBL_MAX;
  for (size_t c = 0; c < k; c++) {
    double e = distance2(p->x + i * p->d, centres + c * p->d, p->d);
    if (e < *d2)
      *d2 = e, best = c;
  }
  return best;
}

/* k-means++: each next centre a point drawn with probability in
 * proportion to its squared distance to the nearest centre so far. */
static void seed_centres(const struct points *p, size_t k, gsl_rng *rng,
                         double *centres, double *weight) {
  size_t first = gsl_rng_uniform_int(rng, p->n);
  memcpy(centres, p->x + first * p->d, p->d * sizeof *centres);
  for (size_t c = 1; c < k; c++) {
    double total = 0;
    for (size_t i = 0; i < p->n; i++)
      nearest(p, centres, c, i, &weight[i]), total += weight[i];
    double r = gsl_rng_uniform(rng) * total;
    size_t pick = 0;
    while (pick + 1 < p->n && (r -= weight[pick]) >= 0)
      pick++;
    memcpy(centres + c * p->d, p->x + pick * p->d, p->d * sizeof *centres);
  }
}

/* Lloyd's iterations from the seeded centres; the distortion (sum of
 * squared distances to the centres) of the labels. */
static double lloyd(const struct points *p, size_t k, double *centres,
                    size_t *label, size_t *size) {
  double distortion = 0;
  for (int it = 0; it < PHASES_ITERATIONS; it++) {
    int moved = 0;
    distortion = 0;
    for (size_t i = 0; i < p->n; i++) {
      double d2;
      size_t c = nearest(p, centres, k, i, &d2);
      moved |= it == 0 || c != label[i];
      label[i] = c;
      distortion += d2;
    }
    if (!moved)
      break;
    memset(centres, 0, k * p->d * sizeof *centres);
    memset(size, 0, k * sizeof *size);
    for (size_t i = 0; i < p->n; i++) {
      size[label[i]]++;
      for (size_t j = 0; j < p->d; j++)
        centres[label[i] * p->d + j] += p->x[i * p->d + j];
    }
    for (size_t c = 0; c < k; c++)
      for (size_t j = 0; size[c] && j < p->d; j++)
        centres[c * p->d + j] /= (double)size[c];
  }
  return distortion;
}

/* BIC of a clustering under identical spherical Gaussians (Pelleg and
 * Moore, X-means, 2000), as SimPoint scores its clusterings. */
static double bic(const struct points *p, size_t k, const size_t *size,
                  double distortion) {
  double r = (double)p->n, d = (double)p->d;
  double variance = r > (double)k ? distortion / (r - (double)k) : 0;
  variance = variance > PHASES_MIN_VARIANCE ? variance : PHASES_MIN_VARIANCE;
  double l = 0;
  for (size_t c = 0; c < k; c++) {
    double rn = (double)size[c];
    if (rn > 0)
      l += -rn / 2 * log(2 * M_PI) - rn * d / 2 * log(variance) -
           (rn - (double)k) / 2 + rn * log(rn) - rn * log(r);
  }
  double params = (double)(k - 1) + (double)k * d + 1;
  return l - params / 2 * log(r);
}

struct clustering {
  size_t *label, *size;
  double *centres, *weight;
  double distortion;
};

/* The best of several k-means++ runs at k, into best->label and size. */
static void kmeans(const struct points *p, size_t k, gsl_rng *rng,
                   struct clustering *work, struct clustering *best) {
  best->distortion = DBL_MAX;
  for (int run = 0; run < PHASES_RESTARTS; run++) {
    seed_centres(p, k, rng, work->centres, work->weight);
    double e = lloyd(p, k, work->centres, work->label, work->size);
    if (e < best->distortion) {
      best->distortion = e;
      memcpy(best->label, work->label, p->n * sizeof *best->label);
      memcpy(best->size, work->size, k * sizeof *best->size);
    }
  }
}

/* Clusters numbered in the order of their first points; how many have
 * points. */
static size_t renumber(size_t *label, size_t n, size_t k) {
  size_t *to = xmalloc(k * sizeof *to), next = 0;
  for (size_t c = 0; c < k; c++)
    to[c] = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (to[label[i]] == SIZE_MAX)
      to[label[i]] = next++;
    label[i] = to[label[i]];
  }
  free(to);
  return next;
}

static void clustering_alloc(struct clustering *c, size_t n, size_t d,
                             size_t k) {
  c->label = xcalloc(n, sizeof *c->label);
  c->size = xcalloc(k, sizeof *c->size);
  c->centres = xcalloc(k * d, sizeof *c->centres);
  c->weight = xcalloc(n, sizeof *c->weight);
}

static void clustering_free(struct clustering *c) {
  free(c->label);
  free(c->size);
  free(c->centres);
  free(c->weight);
}

size_t phases_cluster(const double *x, size_t n, size_t d, size_t max_k,
                      size_t *label) {
  struct points p = {x, n, d};
  size_t top = max_k < n ? max_k : n;
  if (!top)
    return 0;
  double scores[PHASES_MAX_K + 1], lo = DBL_MAX, hi = -DBL_MAX;
  size_t *labels = xcalloc(top * n, sizeof *labels);
  struct clustering work, best;
  clustering_alloc(&work, n, d, top);
  clustering_alloc(&best, n, d, top);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, PHASES_SEED);
  for (size_t k = 1; k <= top; k++) {
    kmeans(&p, k, rng, &work, &best);
    memcpy(labels + (k - 1) * n, best.label, n * sizeof *labels);
    scores[k] = bic(&p, k, best.size, best.distortion);
    lo = scores[k] < lo ? scores[k] : lo;
    hi = scores[k] > hi ? scores[k] : hi;
  }
  size_t k = 1;
  while (k < top && scores[k] < lo + 0.9 * (hi - lo))
    k++;
  memcpy(label, labels + (k - 1) * n, n * sizeof *label);
  k = renumber(label, n, k);
  gsl_rng_free(rng);
  clustering_free(&work);
  clustering_free(&best);
  free(labels);
  return k;
}

/* ---- The document's phases ---------------------------------------------- */

/* The intervals with a block vector and instructions: their positions in
 * the document's array and their vectors. */
static size_t clustered_points(json_object *list, size_t d, size_t **at,
                               double **x) {
  size_t total = json_object_array_length(list), n = 0;
  *at = xcalloc(total ? total : 1, sizeof **at);
  *x = xcalloc(total ? total * d : 1, sizeof **x);
  for (size_t i = 0; i < total; i++) {
    json_object *e = json_object_array_get_idx(list, i);
    json_object *bbv = json_at(e, "bbv");
    if (!bbv || json_object_get_type(bbv) != json_type_array ||
        json_object_array_length(bbv) != d ||
        !(json_count_at(e, "instructions") > 0))
      continue;
    for (size_t j = 0; j < d; j++)
      (*x)[n * d + j] =
          json_object_get_double(json_object_array_get_idx(bbv, j));
    (*at)[n++] = i;
  }
  return n;
}

/* Running sums of a phase: the weighted means of docs/metrics.md. */
struct phase_sums {
  double instructions, accesses, new_lines;
  double miss_weighted, miss_accesses, entropy_weighted, entropy_accesses;
  double ilp_cycles; /* instructions / ilp, summed */
  int has_new_lines, has_miss, has_entropy, has_ilp;
};

/* The first item of the array at path, or NULL. */
static json_object *first_item(json_object *e, const char *path) {
  json_object *a = json_at(e, path);
  return a && json_object_get_type(a) == json_type_array
             ? json_object_array_get_idx(a, 0)
             : NULL;
}

/* An interval's accesses in its 64-byte reuse histogram. */
static double reuse_accesses(json_object *e) {
  json_object *h = first_item(e, "reuse_distance");
  json_object *bins = json_at(h, "bins");
  double n = json_count_at(h, "cold");
  if (!bins || json_object_get_type(bins) != json_type_array)
    return n;
  for (size_t i = 0; i < json_object_array_length(bins); i++)
    n += json_object_get_double(json_object_array_get_idx(bins, i));
  return n;
}

static void sums_add(struct phase_sums *s, json_object *e) {
  double instructions = json_count_at(e, "instructions"), v;
  s->instructions += instructions;
  s->accesses += json_count_at(e, "memory_accesses/loads") +
                 json_count_at(e, "memory_accesses/stores");
  if (json_number_at(e, "footprint/new_lines", &v))
    s->new_lines += v, s->has_new_lines = 1;
  json_object *miss = first_item(e, "miss_ratio");
  if (miss) {
    double n = reuse_accesses(e);
    s->miss_weighted += json_count_at(miss, "ratio") * n;
    s->miss_accesses += n;
    s->has_miss = 1;
  }
  if (json_number_at(e, "memory_entropy/entropy", &v)) {
    double n = json_count_at(e, "memory_entropy/accesses");
    s->entropy_weighted += v * n;
    s->entropy_accesses += n;
    s->has_entropy = 1;
  }
  if (json_number_at(e, "ilp/ilp", &v) && v > 0)
    s->ilp_cycles += instructions / v, s->has_ilp = 1;
}

static void add_number(json_object *o, const char *key, double v) {
  json_object_object_add(o, key, json_object_new_double(v));
}

static void add_count(json_object *o, const char *key, double v) {
  json_object_object_add(o, key, json_object_new_uint64((uint64_t)v));
}

static json_object *phase_json(size_t phase, json_object *positions,
                               const struct phase_sums *s, double total,
                               json_object *first) {
  json_object *o = json_object_new_object();
  add_count(o, "phase", (double)phase);
  json_object_object_add(o, "intervals", positions);
  add_count(o, "instructions", s->instructions);
  add_number(o, "share", total > 0 ? s->instructions / total : 0);
  add_count(o, "first_instruction", json_count_at(first, "first_instruction"));
  add_count(o, "first_thread", json_count_at(first, "thread"));
  add_count(o, "memory_accesses", s->accesses);
  if (s->has_new_lines)
    add_count(o, "new_lines", s->new_lines);
  if (s->has_miss)
    add_number(o, "miss_ratio",
               s->miss_accesses > 0 ? s->miss_weighted / s->miss_accesses : 0);
  if (s->has_entropy)
    add_number(o, "memory_entropy",
               s->entropy_accesses > 0
                   ? s->entropy_weighted / s->entropy_accesses
                   : 0);
  if (s->has_ilp && s->ilp_cycles > 0)
    add_number(o, "ilp", s->instructions / s->ilp_cycles);
  return o;
}

void phases_add(json_object *doc) {
  json_object *list = json_at(doc, "intervals");
  if (!list || json_object_get_type(list) != json_type_array)
    return;
  size_t d = 0, *at;
  double *x, total = 0;
  json_object *first = json_object_array_get_idx(list, 0);
  json_object *bbv = json_at(first, "bbv");
  if (bbv && json_object_get_type(bbv) == json_type_array)
    d = json_object_array_length(bbv);
  size_t n = d ? clustered_points(list, d, &at, &x) : 0;
  if (!n) {
    if (d)
      free(at), free(x);
    return;
  }
  size_t *label = xcalloc(n, sizeof *label);
  size_t k = phases_cluster(x, n, d, PHASES_MAX_K, label);
  json_object *phases = json_object_new_array();
  for (size_t i = 0; i < n; i++)
    total +=
        json_count_at(json_object_array_get_idx(list, at[i]), "instructions");
  for (size_t p = 0; p < k; p++) {
    struct phase_sums s = {0};
    json_object *positions = json_object_new_array(), *head = NULL;
    for (size_t i = 0; i < n; i++) {
      json_object *e = json_object_array_get_idx(list, at[i]);
      if (label[i] != p)
        continue;
      head = head ? head : e;
      json_object_array_add(positions, json_object_new_uint64(at[i]));
      json_object_object_add(e, "phase", json_object_new_uint64(p));
      sums_add(&s, e);
    }
    json_object_array_add(phases, phase_json(p, positions, &s, total, head));
  }
  json_object_object_add(doc, "phases", phases);
  free(label);
  free(at);
  free(x);
}
