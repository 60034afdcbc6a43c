/* deep_intervals.c: deep mode's intervals (deep_intervals.h): per consumer
 * group the rows of its part of each interval, and the `intervals` of the raw
 * result, each interval's rows of the three groups side by side. */
#include "deep_intervals.h"
#include "runtime.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Columns of the space group's rows. */
enum {
  SPACE_INSTRUCTIONS,
  SPACE_CATEGORIES,
  SPACE_LOADS = SPACE_CATEGORIES + PISA_CAT_COUNT,
  SPACE_STORES,
  SPACE_BYTES_LOADED,
  SPACE_BYTES_STORED,
  SPACE_ENTROPY_SUM, /* entropy * accesses, per piece (see close_into) */
  SPACE_ENTROPY_ACCESSES,
  SPACE_BBV,
  SPACE_WIDTH = SPACE_BBV + INTERVALS_BBV_DIMS
};
/* The reuse group's: the 64-byte histogram's bins, cold last. */
#define REUSE_WIDTH LOCALITY_BINS
/* The schedule group's. */
enum { SCHED_INSTRUCTIONS, SCHED_CYCLES, SCHED_WIDTH };
#define LINE_SHIFT 6 /* 64-byte lines: entropy, footprint, reuse */

PISA_HIDDEN int pisa_intervals_on(void) {
  return pisa_config.intervals != 0 && pisa_config.sampling.rate >= 1;
}

static uint64_t requested_length(void) {
  return pisa_config.intervals == PISA_INTERVALS_AUTO ? 0
                                                      : pisa_config.intervals;
}

/* The series at s, set up at its group's first batch. */
static struct interval_series *series(struct interval_series *s,
                                      unsigned width) {
  if (!s->width)
    interval_series_init(s, requested_length(), width);
  return s;
}

/* ---- The space group ------------------------------------------------------
 */

/* Room for every registered block in the counts, the touched blocks, the
 * projections and the site counts' bases (a batch names no other block),
 * so that counting an instance needs no bound check; -1 when memory ran
 * out. */
static int room_for_blocks(struct pisa_interval_space *sp) {
  uint32_t known = pisa_block_count(), cap = sp->counts_capacity;
  if (known <= cap)
    return 0;
  cap = cap ? cap : 1024;
  while (cap < known)
    cap *= 2;
  uint32_t *c = realloc(sp->counts, cap * sizeof *c);
  if (c)
    sp->counts = c;
  uint32_t *t = c ? realloc(sp->touched, cap * sizeof *t) : NULL;
  if (t)
    sp->touched = t;
  size_t *base = t ? realloc(sp->site_base, cap * sizeof *base) : NULL;
  if (base)
    sp->site_base = base;
  double *p = base ? realloc(sp->projections,
                             (size_t)cap * INTERVALS_BBV_DIMS * sizeof *p)
                   : NULL;
  if (!p)
    return -1;
  sp->projections = p;
  memset(c + sp->counts_capacity, 0, (cap - sp->counts_capacity) * sizeof *c);
  for (size_t i = (size_t)sp->counts_capacity * INTERVALS_BBV_DIMS;
       i < (size_t)cap * INTERVALS_BBV_DIMS; i++)
    p[i] = NAN; /* computed at the block's first execution */
  sp->counts_capacity = cap;
  return 0;
}

/* The site counts of blocks [sites_known, known), once per block (room in
 * site_base: room_for_blocks); -1 when memory ran out. */
static int count_fixed_sites(struct pisa_interval_space *sp, uint32_t known) {
  size_t need = sp->n_fixed, cap = sp->fixed_capacity;
  for (uint32_t block = sp->sites_known; block < known; block++)
    need += pisa_blocks[block].n_sites + 1;
  if (need > cap) {
    cap = cap ? cap : 1024;
    while (cap < need)
      cap *= 2;
    struct pisa_fixed_counts *f = realloc(sp->fixed, cap * sizeof *f);
    if (!f)
      return -1;
    sp->fixed = f;
    sp->fixed_capacity = cap;
  }
  for (; sp->sites_known < known; sp->sites_known++) {
    const struct program_block *pb = &pisa_blocks[sp->sites_known];
    struct pisa_fixed_counts *f = sp->fixed + sp->n_fixed, sum = {0};
    sp->site_base[sp->sites_known] = sp->n_fixed;
    for (uint32_t s = 0; s < pb->n_sites; s++) {
      const struct program_site *site = &pb->sites[s];
      uint64_t reads = site->fixed_run && (site->kind & ACCESS_READS),
               writes = site->fixed_run && (site->kind & ACCESS_WRITES);
      f[s] = sum;
      sum.loads += reads, sum.loaded += reads * site->size;
      sum.stores += writes, sum.stored += writes * site->size;
    }
    f[pb->n_sites] = sum;
    sp->n_fixed += pb->n_sites + 1;
  }
  return 0;
}

/* The projections of blocks touched[from, n_touched) that have none yet. */
static void project(struct pisa_interval_space *sp, uint32_t from) {
  for (uint32_t i = from; i < sp->n_touched; i++) {
    double *p = sp->projections + (size_t)sp->touched[i] * INTERVALS_BBV_DIMS;
    if (isnan(p[0]))
      for (unsigned d = 0; d < INTERVALS_BBV_DIMS; d++)
        p[d] = interval_projection(sp->touched[i], d);
  }
}

/* Shannon entropy (bits) of the open interval's accesses over 64-byte
 * lines, and their number in *n: log2 N - sum(c log2 c) / N.  The table's
 * order follows the addresses, which change from run to run (ASLR), so
 * the terms add in fixed point (2^-32 bits), where the order cannot
 * change the sum.  The difference of two nearly equal terms can round
 * outside [0, log2 D] for D distinct lines (one line touched 1727 times:
 * -2^-49), so it is kept inside: one line is 0 exactly. */
static double line_entropy(const struct u64map *lines, double *n) {
  size_t it = 0;
  uint64_t key, c, sum = 0, distinct = 0;
  unsigned __int128 clog = 0;
  while (u64map_next(lines, &it, &key, &c)) {
    sum += c;
    distinct++;
    clog += (unsigned __int128)((double)c * log2((double)c) * 0x1p32);
  }
  *n = (double)sum;
  if (!sum)
    return 0;
  double h = log2((double)sum) - (double)clog * 0x1p-32 / (double)sum,
         most = log2((double)distinct);
  return h < 0 ? 0 : h > most ? most : h;
}

/* Adds the open interval's counts to row: instructions and their
 * categories and block vector from the block executions, the accesses,
 * and the entropy as entropy times accesses (so that rows add). */
static void close_into(const struct pisa_interval_space *sp, double *row) {
  for (uint32_t i = 0; i < sp->n_touched; i++) {
    uint32_t block = sp->touched[i];
    const struct program_block *pb = &pisa_blocks[block];
    double times = sp->counts[block], weight = times * pb->n_instrs;
    row[SPACE_INSTRUCTIONS] += weight;
    for (uint32_t k = 0; k < pb->n_instrs; k++)
      row[SPACE_CATEGORIES + pb->instrs[k].category] += times;
    const double *projection =
        sp->projections + (size_t)block * INTERVALS_BBV_DIMS;
    for (unsigned d = 0; d < INTERVALS_BBV_DIMS; d++)
      row[SPACE_BBV + d] += weight * projection[d];
  }
  row[SPACE_LOADS] += (double)sp->loads;
  row[SPACE_STORES] += (double)sp->stores;
  row[SPACE_BYTES_LOADED] += (double)sp->bytes_loaded;
  row[SPACE_BYTES_STORED] += (double)sp->bytes_stored;
  double n, h = line_entropy(&sp->lines, &n);
  row[SPACE_ENTROPY_SUM] += h * n;
  row[SPACE_ENTROPY_ACCESSES] += n;
}

static void space_close(struct pisa_interval_space *sp) {
  double *row = interval_series_row(&sp->series, sp->open_at);
  if (!row) {
    pisa_out_of_memory();
    return;
  }
  close_into(sp, row);
  for (uint32_t i = 0; i < sp->n_touched; i++)
    sp->counts[sp->touched[i]] = 0;
  sp->n_touched = 0;
  u64map_clear(&sp->lines);
  sp->loads = sp->stores = sp->bytes_loaded = sp->bytes_stored = 0;
  sp->open = 0;
}

/* Whether the intervals carry the entropy (its family is on): the table of
 * lines is what intervals cost per access. */
static int with_entropy(void) {
  return (pisa_config.families & PISA_FAMILY(ENTROPY)) != 0;
}

/* Loads, stores and their bytes of accesses [a, end) of b into *sum,
 * added in locals (the interval's fields could alias the batch's). */
static void count_each(struct pisa_fixed_counts *sum,
                       const struct event_batch *b, size_t a, size_t end) {
  const uint8_t *kind = b->kind;
  const uint64_t *size = b->size;
  uint64_t loads = 0, stores = 0, loaded = 0, stored = 0;
  for (; a < end; a++) {
    uint64_t reads = (kind[a] & ACCESS_READS) != 0,
             writes = (kind[a] & ACCESS_WRITES) != 0;
    loads += reads, loaded += size[a] & (0 - reads);
    stores += writes, stored += size[a] & (0 - writes);
  }
  sum->loads += loads, sum->loaded += loaded;
  sum->stores += stores, sum->stored += stored;
}

/* Loads, stores and their bytes of instances [i, j) of b from their
 * blocks' site counts: an instance without wide sites made one access per
 * site it holds, of the site's kind and size, so its counts are the
 * difference of the site counts at its end and first sites; one with wide
 * sites (bytes known only at run time) is counted access by access. */
static void count_instances(struct pisa_interval_space *sp,
                            struct pisa_fixed_counts *sum,
                            const struct event_batch *b, size_t i, size_t j) {
  const struct pisa_fixed_counts *fixed = sp->fixed;
  const size_t *base = sp->site_base;
  uint64_t loads = 0, stores = 0, loaded = 0, stored = 0;
  for (size_t k = i; k < j; k++) {
    if (b->start[k] & INSTANCE_WIDE) {
      count_each(sum, b, b->first_access[k], b->first_access[k + 1]);
      continue;
    }
    const struct pisa_fixed_counts *f = fixed + base[b->block[k]],
                                   *first = f + b->first_site[k],
                                   *end = f + b->end_site[k];
    loads += end->loads - first->loads;
    stores += end->stores - first->stores;
    loaded += end->loaded - first->loaded;
    stored += end->stored - first->stored;
  }
  sum->loads += loads, sum->loaded += loaded;
  sum->stores += stores, sum->stored += stored;
}

/* Loads, stores and their bytes of instances [i, j) of b: from the site
 * counts where the instances average more than SITE_COUNTS_MIN accesses
 * (one lookup per instance then costs less than a look at each access). */
#define SITE_COUNTS_MIN 2
static void count_accesses(struct pisa_interval_space *sp,
                           const struct event_batch *b, size_t i, size_t j) {
  size_t first = b->first_access[i], end = b->first_access[j];
  struct pisa_fixed_counts sum = {0};
  if (end - first > SITE_COUNTS_MIN * (j - i))
    count_instances(sp, &sum, b, i, j);
  else
    count_each(&sum, b, first, end);
  sp->loads += sum.loads, sp->bytes_loaded += sum.loaded;
  sp->stores += sum.stores, sp->bytes_stored += sum.stored;
}

/* Instances [i, j) and their accesses into the open interval (its counts
 * have room for every block, room_for_blocks). */
static void space_add(struct pisa_interval_space *sp,
                      const struct event_batch *b, size_t i, size_t j) {
  size_t first = b->first_access[i], end = b->first_access[j];
  uint32_t *counts = sp->counts, *touched = sp->touched, n = sp->n_touched;
  for (size_t k = i; k < j; k++) {
    uint32_t block = b->block[k];
    if ((b->start[k] & INSTANCE_START_MASK) == INSTANCE_ENTERED &&
        !counts[block]++)
      touched[n++] = block;
  }
  uint32_t from = sp->n_touched;
  sp->n_touched = n;
  project(sp, from);
  if (with_entropy() &&
      u64map_count_keys(&sp->lines, b->addr + first, end - first, LINE_SHIFT)) {
    pisa_out_of_memory();
    return;
  }
  count_accesses(sp, b, i, j);
}

PISA_HIDDEN void pisa_intervals_space(struct pisa_thread *t,
                                      const struct event_batch *b) {
  struct pisa_interval_space *sp = &t->intervals.space;
  struct interval_series *s = series(&sp->series, SPACE_WIDTH);
  uint32_t known = pisa_block_count();
  if (room_for_blocks(sp) ||
      (sp->sites_known < known && count_fixed_sites(sp, known))) {
    pisa_out_of_memory();
    return;
  }
  for (size_t i = 0, j; i < b->n_instances; i = j) {
    uint64_t at;
    j = interval_series_run(s, pisa_blocks, b, i, &at);
    if (sp->open && at / s->length != sp->open_at / s->length)
      space_close(sp);
    if (!sp->open)
      sp->open = 1, sp->open_at = at;
    space_add(sp, b, i, j);
  }
}

/* ---- The reuse and schedule groups ----------------------------------------
 */

/* The index of the 64-byte engine among the line sizes, or -1. */
static int line_index(void) {
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++)
    if (pisa_config.line_sizes[s] == LOCALITY_MISS_LINE_BYTES)
      return (int)s;
  return -1;
}

PISA_HIDDEN void pisa_intervals_reuse(struct pisa_thread *t,
                                      const struct event_batch *b,
                                      const struct event_batch *binned) {
  int line = binned ? line_index() : -1;
  const uint8_t *bin = line >= 0 ? t->reuse_bins[line] : NULL;
  struct interval_series *s = series(&t->intervals.reuse, REUSE_WIDTH);
  for (size_t i = 0, j; i < b->n_instances; i = j) {
    uint64_t at;
    j = interval_series_run(s, pisa_blocks, b, i, &at);
    size_t a = bin ? binned->first_access[i] : 0,
           end = bin ? binned->first_access[j] : a;
    double *row = a < end ? interval_series_row(s, at) : NULL;
    if (a < end && !row) {
      pisa_out_of_memory();
      return;
    }
    for (; a < end; a++)
      row[bin[a] < LOCALITY_FINITE_BINS ? bin[a] : LOCALITY_COLD_INDEX]++;
  }
}

/* The largest finite ILP window's index, or -1 (docs/metrics.md: an
 * unlimited window's critical path need not grow in an interval). */
static int ilp_window(void) {
  int best = -1;
  for (unsigned w = 0; w < pisa_config.sched.n_windows; w++)
    if (pisa_config.sched.windows[w] &&
        (best < 0 ||
         pisa_config.sched.windows[w] > pisa_config.sched.windows[best]))
      best = (int)w;
  return best;
}

PISA_HIDDEN void pisa_intervals_schedule(
    struct pisa_thread *t, const struct event_batch *b,
    void (*feed)(struct pisa_thread *, const struct event_batch *)) {
  struct pisa_intervals *iv = &t->intervals;
  struct interval_series *s = series(&iv->sched, SCHED_WIDTH);
  int window = ilp_window();
  for (size_t i = 0, j; i < b->n_instances; i = j) {
    uint64_t at, n, cycles;
    j = interval_series_run(s, pisa_blocks, b, i, &at);
    struct event_batch slice = event_batch_slice(b, i, j);
    feed(t, &slice);
    double *row = window >= 0 && t->sched ? interval_series_row(s, at) : NULL;
    if (!row)
      continue;
    sched_progress(t->sched, (unsigned)window, &n, &cycles);
    row[SCHED_INSTRUCTIONS] += (double)(n - iv->sched_n);
    row[SCHED_CYCLES] += (double)(cycles - iv->sched_cycles);
    iv->sched_n = n;
    iv->sched_cycles = cycles;
  }
}

PISA_HIDDEN void pisa_intervals_free(struct pisa_intervals *iv) {
  interval_series_free(&iv->space.series);
  interval_series_free(&iv->reuse);
  interval_series_free(&iv->sched);
  free(iv->space.counts);
  free(iv->space.touched);
  free(iv->space.projections);
  free(iv->space.site_base);
  free(iv->space.fixed);
  u64map_free(&iv->space.lines);
  memset(iv, 0, sizeof *iv);
}

/* ---- The raw result's intervals -------------------------------------------
 * A thread's groups may have merged their rows a different number of times
 * (a group asks for a row only when it has something to add): the
 * document's length is the longest, with the merges the whole thread's
 * instructions call for, and each group's rows inside one interval add. */

struct thread_rows {
  uint64_t length, clock;
  size_t n;
  double space[SPACE_WIDTH], reuse[REUSE_WIDTH], sched[SCHED_WIDTH];
};

static void rows_shape(const struct pisa_intervals *iv, struct thread_rows *r) {
  const struct interval_series *all[3] = {&iv->space.series, &iv->reuse,
                                          &iv->sched};
  r->length = r->clock = 0;
  for (int g = 0; g < 3; g++)
    if (all[g]->width) {
      r->clock = all[g]->clock > r->clock ? all[g]->clock : r->clock;
      r->length = all[g]->length > r->length ? all[g]->length : r->length;
    }
  for (int g = 0; g < 3; g++)
    if (all[g]->width) {
      uint64_t l = interval_series_final_length(all[g], r->clock);
      r->length = l > r->length ? l : r->length;
    }
  r->n = r->length ? (size_t)((r->clock + r->length - 1) / r->length) : 0;
}

/* Interval k's rows; the space group's open interval counted where it
 * lies. */
static void rows_of(const struct pisa_intervals *iv, struct thread_rows *r,
                    size_t k) {
  memset(r->space, 0, sizeof r->space);
  memset(r->reuse, 0, sizeof r->reuse);
  memset(r->sched, 0, sizeof r->sched);
  if (iv->space.series.width)
    interval_series_sum(&iv->space.series, r->length, k, r->space);
  if (iv->space.open && iv->space.open_at / r->length == k)
    close_into(&iv->space, r->space);
  if (iv->reuse.width)
    interval_series_sum(&iv->reuse, r->length, k, r->reuse);
  if (iv->sched.width)
    interval_series_sum(&iv->sched, r->length, k, r->sched);
}

static void add_u64(json_object *o, const char *key, double v) {
  json_object_object_add(o, key, json_object_new_uint64((uint64_t)v));
}

static json_object *categories_json(const double *row) {
  static const char *const names[] = PISA_CATEGORY_NAMES;
  json_object *o = json_object_new_object();
  for (int c = 0; c < PISA_CAT_COUNT; c++)
    add_u64(o, names[c], row[SPACE_CATEGORIES + c]);
  return o;
}

static json_object *accesses_json(const double *row) {
  json_object *o = json_object_new_object();
  add_u64(o, "loads", row[SPACE_LOADS]);
  add_u64(o, "stores", row[SPACE_STORES]);
  return o;
}

static json_object *bbv_json(const double *row, double instructions) {
  json_object *a = json_object_new_array();
  for (unsigned d = 0; d < INTERVALS_BBV_DIMS; d++)
    json_object_array_add(
        a, json_object_new_double(
               instructions > 0 ? row[SPACE_BBV + d] / instructions : 0));
  return a;
}

static json_object *space_json(json_object *o, const double *row) {
  add_u64(o, "instructions", row[SPACE_INSTRUCTIONS]);
  json_object_object_add(o, "categories", categories_json(row));
  json_object_object_add(o, "memory_accesses", accesses_json(row));
  add_u64(o, "bytes_loaded", row[SPACE_BYTES_LOADED]);
  add_u64(o, "bytes_stored", row[SPACE_BYTES_STORED]);
  json_object_object_add(o, "bbv", bbv_json(row, row[SPACE_INSTRUCTIONS]));
  if (!with_entropy())
    return o;
  double n = row[SPACE_ENTROPY_ACCESSES];
  json_object *entropy = json_object_new_object();
  add_u64(entropy, "line_bytes", 1u << LINE_SHIFT);
  add_u64(entropy, "accesses", n);
  json_object_object_add(
      entropy, "entropy",
      json_object_new_double(n > 0 ? row[SPACE_ENTROPY_SUM] / n : 0));
  json_object_object_add(o, "memory_entropy", entropy);
  return o;
}

/* Footprint (new and cumulative 64-byte lines), reuse and miss ratios. */
static void reuse_json(json_object *o, const double *row, uint64_t *lines) {
  struct reuse_histograms h;
  uint64_t line = LOCALITY_MISS_LINE_BYTES;
  histograms_init(&h, &line, 1);
  for (int i = 0; i < LOCALITY_BINS; i++)
    h.counts[0][i] = (uint64_t)row[i];
  *lines += h.counts[0][LOCALITY_COLD_INDEX];
  json_object *fp = json_object_new_object();
  add_u64(fp, "line_bytes", (double)line);
  add_u64(fp, "new_lines", row[LOCALITY_COLD_INDEX]);
  add_u64(fp, "lines", (double)*lines);
  json_object_object_add(o, "footprint", fp);
  json_object_object_add(o, "reuse_distance", reuse_distance_to_json(&h));
  json_object *miss = histograms_accesses(&h)
                          ? miss_ratio_to_json(&h, locality_default_cache_bytes,
                                               LOCALITY_DEFAULT_CACHES)
                          : NULL;
  if (miss)
    json_object_object_add(o, "miss_ratio", miss);
}

static void ilp_json(json_object *o, const double *row) {
  if (!(row[SCHED_CYCLES] > 0))
    return;
  json_object *ilp = json_object_new_object();
  add_u64(ilp, "window", pisa_config.sched.windows[ilp_window()]);
  json_object_object_add(
      ilp, "ilp",
      json_object_new_double(row[SCHED_INSTRUCTIONS] / row[SCHED_CYCLES]));
  json_object_object_add(o, "ilp", ilp);
}

PISA_HIDDEN json_object *pisa_intervals_config_json(void) {
  if (!pisa_intervals_on())
    return NULL;
  uint64_t length = requested_length();
  json_object *o = json_object_new_object();
  json_object_object_add(o, "adaptive", json_object_new_boolean(!length));
  add_u64(o, "instructions", length ? length : INTERVALS_FIRST_LENGTH);
  return o;
}

/* Thread t's interval k as the document has it; *lines carries the
 * cumulative footprint from interval to interval. */
static json_object *interval_json(const struct pisa_intervals *iv,
                                  struct thread_rows *r, int64_t position,
                                  size_t k, uint64_t *lines) {
  rows_of(iv, r, k);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "thread", json_object_new_int64(position));
  add_u64(o, "index", (double)k);
  add_u64(o, "first_instruction", (double)(k * r->length));
  add_u64(o, "length", (double)r->length);
  if (iv->space.series.width)
    space_json(o, r->space);
  if (iv->reuse.width && line_index() >= 0)
    reuse_json(o, r->reuse, lines);
  if (iv->sched.width && ilp_window() >= 0)
    ilp_json(o, r->sched);
  return o;
}

PISA_HIDDEN int pisa_intervals_write(FILE *f, const struct pisa_thread *t,
                                     int64_t position, int *first) {
  const struct pisa_intervals *iv = &t->intervals;
  struct thread_rows r;
  uint64_t lines = 0;
  rows_shape(iv, &r);
  for (size_t k = 0; k < r.n; k++, *first = 0) {
    json_object *o = interval_json(iv, &r, position, k, &lines);
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    int failed = !s || (!*first && fputc(',', f) == EOF) || fputs(s, f) == EOF;
    json_object_put(o);
    if (failed)
      return -1;
  }
  return 0;
}
