/* decode.c: the only reader of record words.  Turns the words of a
 * thread's buffer back into a decoded batch (metrics/events.h): block
 * instances in program order and the accesses of their sites, read by
 * position from the program's description of each block.  Words the
 * program cannot explain (signal handlers, unknown blocks) are dropped and
 * counted.  Runs on the thread that wrote the words (or on the exit-time
 * writer, under the thread's lock), then hands the batch to consume.c. */
#include "objects.h"
#include "runtime.h"
#include "workers.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The hot path's pieces, inlined into each copy of the decoding loop. */
#define DECODE_INLINE static inline __attribute__((always_inline))

/* The accesses of a site of several words (memcpy, memset, gather,
 * scatter) starting at w[0]: the words it consumed, or 0 when its words
 * are not all there before the next tag (a torn segment). */
static size_t decode_wide(struct event_batch *b, const struct program_site *s,
                          uint32_t site, const uint64_t *w, size_t avail) {
  size_t need = pisa_site_words(s->kind, s->lanes);
  if (!need || need > avail)
    return 0;
  for (size_t j = 0; j < need; j++)
    if (w[j] & PISA_REC_BLOCK)
      return 0;
  uint8_t cls = s->access_class;
  switch (s->kind) {
  case PROGRAM_SITE_MEMCPY: /* dst, src, length */
    event_add_access(b, w[1], w[2], site, ACCESS_MEMCPY_SOURCE, cls);
    event_add_access(b, w[0], w[2], site, ACCESS_MEMCPY_DEST, cls);
    break;
  case PROGRAM_SITE_MEMSET: /* dst, length */
    event_add_access(b, w[0], w[1], site, ACCESS_MEMSET, cls);
    break;
  default: { /* one word per lane, 0 when masked off */
    uint8_t kind = s->kind == PROGRAM_SITE_GATHER ? ACCESS_GATHER_LANE
                                                  : ACCESS_SCATTER_LANE;
    for (size_t l = 0; l < need; l++)
      if (w[l])
        event_add_access(b, w[l], s->size, site, kind, cls);
  }
  }
  return need;
}

/* The decoder's position: the block being decoded (NULL when the context
 * is lost; when set, the batch's last instance is its, if the batch has
 * any) and its next site. */
struct cursor {
  const struct program_block *pb;
  uint32_t site;
  uint32_t known; /* blocks registered, as last seen */
  int lost;       /* the context was lost since the last instance */
};

/* A region marker: the instances after it are in (or out of) the region;
 * the decoder's position does not change (the call's RESUME comes next). */
static void decode_region(struct event_batch *b, uint64_t id) {
  if (event_add_mark(b, (uint32_t)(id & ~PISA_REC_REGION)))
    b->desync++;
}

/* A heap event at w[0] (its marker) and the three words after it; the
 * decoder's position does not change.  Returns the words it took. */
static size_t decode_heap(struct event_batch *b, const uint64_t *w,
                          size_t avail) {
  uint32_t site = (uint32_t)(w[0] & PISA_REC_HEAP_MASK);
  if (avail < PISA_REC_HEAP_WORDS) {
    b->desync += avail;
    return avail;
  }
  if (site >= pisa_heap_site_count() ||
      (pisa_config.objects && event_add_heap(b, w[1], w[2], w[3], site)))
    b->desync++; /* a module not yet registered, or no memory */
  return PISA_REC_HEAP_WORDS;
}

static int is_heap_marker(uint64_t word) {
  return (word & PISA_REC_TAG_MASK) == PISA_REC_BLOCK &&
         (word & PISA_REC_ID_MASK & ~PISA_REC_HEAP_MASK) == PISA_REC_HEAP;
}

/* A BLOCK or RESUME word at w[0]: closes the open instance, opens the
 * next; or a heap event.  Returns the words it took. */
DECODE_INLINE size_t decode_header(struct event_batch *b, struct cursor *c,
                                   const uint64_t *w, size_t avail) {
  uint64_t word = w[0];
  if (c->pb && b->n_instances)
    b->end_site[b->n_instances - 1] = c->site;
  uint64_t id = word & PISA_REC_ID_MASK;
  if (id >= c->known && id >= (c->known = pisa_block_count())) {
    if ((word & PISA_REC_TAG_MASK) == PISA_REC_BLOCK &&
        (id & ~PISA_REC_REGION_MASK) == PISA_REC_REGION) {
      decode_region(b, id);
      return 1;
    }
    if (is_heap_marker(word))
      return decode_heap(b, w, avail);
    goto lost;
  }
  const struct program_block *next = &pisa_blocks[id];
  uint8_t start = INSTANCE_ENTERED;
  uint32_t first = 0;
  if ((word & PISA_REC_TAG_MASK) == PISA_REC_RESUME) {
    uint32_t call =
        (uint32_t)(word >> PISA_REC_SITE_SHIFT) & PISA_REC_SITE_MASK;
    if (call >= next->n_sites)
      goto lost;
    /* Still at the call's own position: no instrumented code ran. */
    start = INSTANCE_RESUMED |
            (next == c->pb && c->site == call ? INSTANCE_EXTERNAL_CALL : 0);
    first = call + 1;
  }
  event_add_instance(b, (uint32_t)id,
                     start | (c->lost ? INSTANCE_LOST_CONTEXT : 0), first);
  c->pb = next;
  c->site = first;
  c->lost = 0;
  return 1;
lost:
  b->desync++;
  c->pb = NULL;
  c->lost = 1;
  return 1;
}

/* The batch's access arrays, held in locals while words are decoded (a
 * store of an access kind could otherwise alias the batch's fields and
 * have them reloaded at every segment), and whether the site and class of
 * fixed-size accesses are written (a constant in each copy of the loop:
 * pisa_consume_reads_sites). */
struct access_arrays {
  uint64_t *addr, *size;
  uint32_t *site;
  uint8_t *kind, *cls;
  int sites;
  int vectors; /* runs from the site columns, eight words at a time */
};

/* The words w[0..m) of a run of loads, stores and RMWs from site j of
 * block pb on, one access each from index a, up to a header: how many it
 * took. */
DECODE_INLINE size_t decode_fixed(struct access_arrays out, size_t a,
                                  const struct program_block *pb, uint32_t j,
                                  const uint64_t *w, size_t m) {
  const struct program_site *s = pb->sites;
  size_t k = 0;
  for (; k < m; k++) {
    uint64_t word = w[k];
    if (word & PISA_REC_BLOCK)
      break;
    out.addr[a + k] = word;
    out.size[a + k] = s[j + k].size;
    out.kind[a + k] = s[j + k].kind;
    if (out.sites) {
      out.site[a + k] = j + (uint32_t)k;
      out.cls[a + k] = s[j + k].access_class;
    }
  }
  return k;
}

/* Accesses a batch has room for past its words: the vector runs store
 * eight at a time, the lanes past a run's end to be overwritten. */
#define DECODE_SLACK 8

#if defined(__x86_64__)
#define DECODE_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

/* decode_fixed eight words at a time, from the block's site columns: a
 * word with the header bit (the sign) ends the run at its lane.  The
 * loads are masked (nothing past the run is read); the stores write all
 * eight lanes, those past the run to be overwritten by the accesses after
 * it or into the batch's slack (DECODE_SLACK): masked stores cost more. */
DECODE_AVX512 static inline size_t
decode_fixed_avx512(struct access_arrays out, size_t a,
                    const struct program_block *pb, uint32_t j,
                    const uint64_t *w, size_t m) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  size_t k = 0;
  while (k < m) {
    __mmask8 valid = (__mmask8)(m - k >= 8 ? 0xff : (1u << (m - k)) - 1);
    __m512i words = _mm512_maskz_loadu_epi64(valid, w + k);
    unsigned headers =
        _mm512_mask_cmplt_epi64_mask(valid, words, _mm512_setzero_si512());
    __mmask8 take =
        headers ? (__mmask8)((1u << __builtin_ctz(headers)) - 1) : valid;
    size_t at = a + k, site = j + k;
    _mm512_storeu_si512(out.addr + at, words);
    _mm512_storeu_si512(out.size + at,
                        _mm512_maskz_loadu_epi64(take, pb->site_sizes + site));
    _mm_storel_epi64((__m128i *)(out.kind + at),
                     _mm_maskz_loadu_epi8(take, pb->site_kinds + site));
    if (out.sites) {
      _mm256_storeu_si256((__m256i *)(out.site + at),
                          _mm256_add_epi32(lane, _mm256_set1_epi32((int)site)));
      _mm_storel_epi64((__m128i *)(out.cls + at),
                       _mm_maskz_loadu_epi8(take, pb->site_classes + site));
    }
    k += (size_t)__builtin_popcount(take);
    if (headers)
      break;
  }
  return k;
}
#endif

/* A word after the segment's run of fixed-size sites, at w[i]: a wide
 * site's words, or a word the program cannot explain.  Returns the index
 * of the next word to decode. */
static size_t decode_wide_site(struct event_batch *b, struct cursor *c,
                               const uint64_t *w, size_t i, size_t n) {
  const struct program_block *pb = c->pb;
  const struct program_site *s = pb->sites + c->site;
  if (c->site == pb->n_sites || s->kind == PROGRAM_SITE_CALL) {
    b->desync++; /* more words than the segment has sites */
    return i + 1;
  }
  size_t used = decode_wide(b, s, c->site, w + i, n - i);
  if (used) {
    b->start[b->n_instances - 1] |= INSTANCE_WIDE;
    c->site++;
    return i + used;
  }
  for (; i < n && !(w[i] & PISA_REC_BLOCK); i++)
    b->desync++; /* a torn wide site: its words up to the next header */
  return i;
}

/* Words after a header, from w[i]: the run of fixed-size sites, then at
 * most one wide site.  Returns the index of the next word to decode;
 * *accesses follows b->n_accesses. */
DECODE_INLINE size_t decode_sites(struct event_batch *b, struct cursor *c,
                                  struct access_arrays out, size_t *accesses,
                                  const uint64_t *w, size_t i, size_t n) {
  const struct program_block *pb = c->pb;
  if (c->site < pb->n_sites) {
    size_t run = pb->sites[c->site].fixed_run, k;
    run = run < n - i ? run : n - i;
#if defined(__x86_64__)
    if (out.vectors)
      k = decode_fixed_avx512(out, *accesses, pb, c->site, w + i, run);
    else
#endif
      k = decode_fixed(out, *accesses, pb, c->site, w + i, run);
    *accesses += k;
    c->site += (uint32_t)k;
    i += k;
  }
  if (i == n || (w[i] & PISA_REC_BLOCK))
    return i;
  b->n_accesses = *accesses;
  i = decode_wide_site(b, c, w, i, n);
  *accesses = b->n_accesses;
  return i;
}

/* The words w[0..n) into b from the cursor's position; returns the
 * accesses decoded.  Words come in segments: a BLOCK or RESUME header,
 * then the words of the segment's sites. */
DECODE_INLINE size_t decode_segments(struct event_batch *b, struct cursor *c,
                                     struct access_arrays out,
                                     const uint64_t *w, size_t n) {
  size_t accesses = 0;
  for (size_t i = 0; i < n;) {
    if (w[i] & PISA_REC_BLOCK) {
      b->n_accesses = accesses;
      i += decode_header(b, c, w + i, n - i);
    } else if (c->pb)
      i = decode_sites(b, c, out, &accesses, w, i, n);
    else {
      b->desync++;
      i++;
    }
  }
  return accesses;
}

/* decode_segments in a copy for each value of out.sites, a constant in
 * each. */
DECODE_INLINE size_t segments_by_sites(struct event_batch *b, struct cursor *c,
                                       struct access_arrays out,
                                       const uint64_t *w, size_t n) {
  if (out.sites) {
    out.sites = 1;
    return decode_segments(b, c, out, w, n);
  }
  return decode_segments(b, c, out, w, n);
}

#if defined(__x86_64__)
/* Its copies with the vector runs (the processor has them). */
DECODE_AVX512 static size_t segments_avx512(struct event_batch *b,
                                            struct cursor *c,
                                            struct access_arrays out,
                                            const uint64_t *w, size_t n) {
  out.vectors = 1;
  return segments_by_sites(b, c, out, w, n);
}
#endif

/* decode_segments in the copy for `sites` (pisa_consume_reads_sites) and
 * `vectors`. */
static size_t decode_copy(struct event_batch *b, struct cursor *c,
                          struct access_arrays out, const uint64_t *w, size_t n,
                          int sites, int vectors) {
  out.sites = sites != 0;
#if defined(__x86_64__)
  if (vectors)
    return segments_avx512(b, c, out, w, n);
#endif
  (void)vectors;
  return segments_by_sites(b, c, out, w, n);
}

PISA_HIDDEN int pisa_decode_vectors(void) {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
#else
  return 0;
#endif
}

/* A buffer that starts inside a segment continues the previous buffer's
 * last instance. */
PISA_HIDDEN void pisa_decode_words_with(struct pisa_thread *t,
                                        const uint64_t *w, size_t n,
                                        struct event_batch *b, int vectors) {
  struct cursor c = {.known = pisa_block_count()};
  c.pb = t->block < c.known ? &pisa_blocks[t->block] : NULL;
  c.site = t->site;
  if (event_batch_reset(b, n + 1, n + DECODE_SLACK)) {
    pisa_out_of_memory();
    t->desync += n;
    t->block = UINT32_MAX;
    return;
  }
  b->block_before = c.pb ? t->block : PROGRAM_NONE;
  if (c.pb && n && !(w[0] & PISA_REC_BLOCK))
    event_add_instance(b, t->block, INSTANCE_CONTINUED, c.site);
  struct access_arrays out = {b->addr,         b->size, b->site, b->kind,
                              b->access_class, 1,       0};
  b->n_accesses =
      decode_copy(b, &c, out, w, n, pisa_consume_reads_sites(), vectors);
  if (c.pb && b->n_instances)
    b->end_site[b->n_instances - 1] = c.site;
  b->first_access[b->n_instances] = (uint32_t)b->n_accesses;
  t->block = c.pb ? (uint32_t)(c.pb - pisa_blocks) : UINT32_MAX;
  t->site = c.site;
  t->desync += b->desync;
}

PISA_HIDDEN void pisa_decode_words(struct pisa_thread *t, const uint64_t *w,
                                   size_t n, struct event_batch *b) {
  pisa_decode_words_with(t, w, n, b, pisa_decode_vectors());
}

PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *w,
                             size_t n) {
  unsigned slot = pisa_workers_free_slot(t);
  pisa_decode_words(t, w, n, &t->slots[slot].batch);
  pisa_consume_prepare(t, &t->slots[slot].batch);
  pisa_workers_consume(t, slot);
}
