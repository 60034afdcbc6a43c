/* interval_series.c: the interval series of interval_series.h: cutting a batch
 * into runs of one interval, rows created on demand, pairs merged in place when
 * an adaptive series passes its limit. */
#include "interval_series.h"

#include <stdlib.h>
#include <string.h>

#include "u64map.h"

void interval_series_init(struct interval_series *s, uint64_t length,
                          unsigned width) {
  memset(s, 0, sizeof *s);
  s->length = length ? length : INTERVALS_FIRST_LENGTH;
  s->max = length ? INTERVALS_FIXED_MAX : INTERVALS_ADAPTIVE_MAX;
  s->width = width;
}

void interval_series_free(struct interval_series *s) {
  free(s->rows);
  s->rows = NULL;
  s->n = s->capacity = 0;
}

size_t interval_series_run(struct interval_series *s,
                           const struct program_block *blocks,
                           const struct event_batch *b, size_t i,
                           uint64_t *at) {
  uint64_t clock = s->clock, next = (clock / s->length + 1) * s->length;
  size_t k = i;
  *at = clock;
  for (; k < b->n_instances && clock < next; k++)
    if ((b->start[k] & INSTANCE_START_MASK) == INSTANCE_ENTERED)
      clock += blocks[b->block[k]].n_instrs;
  s->clock = clock;
  return k;
}

/* Row k becomes rows 2k + 2k+1; the length doubles. */
static void merge_pairs(struct interval_series *s) {
  size_t w = s->width, half = (s->n + 1) / 2;
  for (size_t k = 0; k < half; k++) {
    double *to = s->rows + k * w, *a = s->rows + 2 * k * w;
    for (size_t c = 0; c < w; c++)
      to[c] = a[c] + (2 * k + 1 < s->n ? a[w + c] : 0);
  }
  memset(s->rows + half * w, 0, (s->n - half) * w * sizeof *s->rows);
  s->n = half;
  s->length *= 2;
}

static int grow_rows(struct interval_series *s, size_t n) {
  if (n <= s->capacity)
    return 0;
  size_t cap = s->capacity ? s->capacity : 64;
  while (cap < n)
    cap *= 2;
  double *rows = realloc(s->rows, cap * s->width * sizeof *rows);
  if (!rows)
    return -1;
  memset(rows + s->capacity * s->width, 0,
         (cap - s->capacity) * s->width * sizeof *rows);
  s->rows = rows;
  s->capacity = cap;
  return 0;
}

double *interval_series_row(struct interval_series *s, uint64_t at) {
  while (at / s->length >= s->max)
    merge_pairs(s);
  size_t k = (size_t)(at / s->length);
  if (grow_rows(s, k + 1))
    return NULL;
  if (k >= s->n)
    s->n = k + 1;
  return s->rows + k * s->width;
}

uint64_t interval_series_final_length(const struct interval_series *s,
                                      uint64_t clock) {
  uint64_t length = s->length;
  while (clock && (clock - 1) / length >= s->max)
    length *= 2;
  return length;
}

void interval_series_sum(const struct interval_series *s, uint64_t length,
                         size_t k, double *out) {
  size_t per = (size_t)(length / s->length), first = k * per;
  for (size_t r = first; r < first + per && r < s->n; r++)
    for (unsigned c = 0; c < s->width; c++)
      out[c] += s->rows[r * s->width + c];
}

double interval_projection(uint32_t block, unsigned d) {
  uint64_t h =
      u64map_hash((uint64_t)block << 8 | d) ^ UINT64_C(0x5049534150484153);
  h = u64map_hash(h);
  return (double)(h >> 11) * 0x1p-52 - 1.0;
}
