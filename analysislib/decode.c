/* decode.c: turns a thread's record words back into events and feeds the
 * metrics: block executions, and per access the footprint of the thread and
 * of the function issuing it.  Runs on the thread that wrote the words. */
#include "runtime.h"

#include <stdlib.h>

static int grow_block_counts(struct pisa_thread *t, uint32_t needed) {
  uint32_t cap = t->block_capacity ? t->block_capacity : 1024;
  while (cap < needed)
    cap *= 2;
  uint64_t *c = realloc(t->block_counts, cap * sizeof *c);
  if (!c)
    return -1;
  memset(c + t->block_capacity, 0, (cap - t->block_capacity) * sizeof *c);
  t->block_counts = c;
  t->block_capacity = cap;
  return 0;
}

PISA_HIDDEN struct pisa_fn_state *pisa_fn_state(struct pisa_thread *t,
                                                uint32_t fn) {
  if (fn >= t->fn_capacity) {
    uint32_t cap = t->fn_capacity ? t->fn_capacity : 256;
    while (cap <= fn)
      cap *= 2;
    struct pisa_fn_state *s = realloc(t->fns, cap * sizeof *s);
    if (!s)
      return NULL;
    memset(s + t->fn_capacity, 0, (cap - t->fn_capacity) * sizeof *s);
    t->fns = s;
    t->fn_capacity = cap;
  }
  return &t->fns[fn];
}

static struct footprint *fn_footprint(struct pisa_fn_state *s) {
  if (!s->footprint) {
    s->footprint = malloc(sizeof *s->footprint);
    if (s->footprint)
      footprint_init(s->footprint);
  }
  return s->footprint;
}

/* Decodes a variable-size site whose extra words follow the first one.
 * Returns the number of extra words consumed, or -1 when they are missing. */
static long decode_wide(struct pisa_fn_state *fs, struct footprint *ffp,
                        const struct pisa_site *s, uint64_t first,
                        const uint64_t *more, size_t avail) {
  switch (s->kind) {
  case PISA_SITE_MEMCPY:
    if (avail < 2)
      return -1;
    footprint_add(ffp, first, more[1]);   /* destination */
    footprint_add(ffp, more[0], more[1]); /* source */
    fs->dyn_loaded += more[1];
    fs->dyn_stored += more[1];
    return 2;
  case PISA_SITE_MEMSET:
    if (avail < 1)
      return -1;
    footprint_add(ffp, first, more[0]);
    fs->dyn_stored += more[0];
    return 1;
  default: { /* gather, scatter: one word per lane, 0 when masked off */
    uint32_t lanes = s->lanes;
    if (avail < lanes - 1)
      return -1;
    uint64_t active = 0;
    for (uint32_t l = 0; l < lanes; l++) {
      uint64_t a = l ? more[l - 1] : first;
      if (a) {
        footprint_add(ffp, a, s->size);
        active++;
      }
    }
    if (s->kind == PISA_SITE_GATHER)
      fs->dyn_loaded += active * s->size;
    else
      fs->dyn_stored += active * s->size;
    return lanes - 1;
  }
  }
}

/* Words come in segments: a BLOCK or RESUME header, then one word per
 * fixed-size access of the segment (a tight loop below) or several for a
 * wide one.  Every access goes to the footprint of its function only; the
 * thread's footprint is their union, built when the result is written. */
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *w,
                             size_t n) {
  uint32_t known = pisa_block_count();
  const struct pisa_gblock *gb =
      t->block < known ? &pisa_blocks[t->block] : NULL;
  struct pisa_fn_state *fs = gb ? pisa_fn_state(t, gb->function) : NULL;
  struct footprint *ffp = fs ? fn_footprint(fs) : NULL;
  uint32_t site = t->site;

  for (size_t i = 0; i < n;) {
    uint64_t word = w[i];
    if (word & PISA_REC_BLOCK) {
      i++;
      uint64_t id = word & PISA_REC_ID_MASK;
      if (id >= known && id >= (known = pisa_block_count())) {
        t->desync++;
        gb = NULL;
        continue;
      }
      const struct pisa_gblock *next = &pisa_blocks[id];
      if ((word & PISA_REC_TAG_MASK) == PISA_REC_RESUME) {
        uint32_t call =
            (uint32_t)(word >> PISA_REC_SITE_SHIFT) & PISA_REC_SITE_MASK;
        /* Still at the call's own position: no instrumented code ran. */
        if (next == gb && site == call && !gb->sites[call].callee)
          fs->indirect_external++;
        site = call + 1;
      } else {
        if (id >= t->block_capacity && grow_block_counts(t, (uint32_t)id + 1)) {
          t->desync++;
          gb = NULL;
          continue;
        }
        t->block_counts[id]++;
        site = 0;
      }
      if (next != gb) {
        fs = pisa_fn_state(t, next->function);
        ffp = fs ? fn_footprint(fs) : NULL;
      }
      gb = ffp ? next : NULL;
      continue;
    }
    if (!gb) {
      t->desync++;
      i++;
      continue;
    }
    const struct pisa_site *s = gb->sites + site;
    const struct pisa_site *end = gb->sites + gb->table->n_sites;
    for (; s < end && s->kind <= PISA_SITE_RMW && i < n; s++, i++) {
      uint64_t addr = w[i];
      if (addr & PISA_REC_BLOCK)
        break;
      footprint_add(ffp, addr, s->size);
    }
    site = (uint32_t)(s - gb->sites);
    if (i == n || (w[i] & PISA_REC_BLOCK))
      continue;
    if (s == end || s->kind == PISA_SITE_CALL) {
      t->desync++; /* more words than the segment has sites */
      i++;
      continue;
    }
    long extra = decode_wide(fs, ffp, s, w[i], w + i + 1, n - i - 1);
    if (extra < 0) {
      t->desync++;
      break;
    }
    i += 1 + (size_t)extra;
    site++;
  }
  t->block = gb ? (uint32_t)(gb - pisa_blocks) : UINT32_MAX;
  t->site = site;
}
