/* sourcemap.c: deep mode's "loops" and "lines" (sourcemap.h).  Both are
 * counts, so they follow from the block counts when the result is built
 * (nothing on the hot path): a loop adds up its blocks and its inner loops'
 * (a block counts for its innermost loop and every loop around it), a line
 * the instruction runs and access sites of the code that comes from it. */
#include "sourcemap.h"
#include "aggregate.h"
#include "fallback.h"

#include <stdlib.h>
#include <uthash.h>

/* ---- Loops ----------------------------------------------------------------
 */

/* The instruction mixes of the loops, created at a loop's first block. */
struct loop_mixes {
  struct pisa_mix **mix;
  uint32_t n;
};

static struct pisa_mix *loop_mix(struct loop_mixes *lm, uint32_t loop) {
  if (!lm->mix[loop] && (lm->mix[loop] = malloc(sizeof **lm->mix)))
    mix_init(lm->mix[loop]);
  return lm->mix[loop];
}

/* Adds every executed block to its innermost loop and the loops around it
 * (parents have smaller ids, so the walk ends). */
static void add_loop_blocks(struct loop_mixes *lm, const uint64_t *counts,
                            uint32_t n_blocks) {
  for (uint32_t b = 0; b < n_blocks; b++) {
    if (!counts[b])
      continue;
    for (uint32_t l = pisa_block_sources[b].loop; l < lm->n;
         l = pisa_loops[l].parent) {
      struct pisa_mix *m = loop_mix(lm, l);
      if (m)
        pisa_mix_add_block(m, &pisa_blocks[b], counts[b]);
    }
  }
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

static json_object *line_or_null(uint32_t line) {
  return line ? json_object_new_int64(line) : NULL;
}

/* A loop's names: its source function, the function its code runs in when
 * that is another one (it was inlined), its file and line range. */
static void loop_names_json(json_object *o, const struct program_loop *l) {
  const struct program_function *src = &pisa_functions[l->source];
  json_object_object_add(o, "function", json_object_new_string(src->display));
  json_object_object_add(o, "linkage_name", json_object_new_string(src->name));
  if (l->function != l->source)
    json_object_object_add(
        o, "inlined_into",
        json_object_new_string(pisa_functions[l->function].display));
  json_object_object_add(o, "file", string_or_null(l->file));
  json_object_object_add(o, "line", line_or_null(l->first_line));
  json_object_object_add(o, "last_line", line_or_null(l->last_line));
  json_object_object_add(o, "module", string_or_null(src->module));
}

/* Loop l's histograms in c, created empty at first use; NULL when memory
 * ran out. */
static struct reuse_histograms *loop_histograms(struct pisa_source_counts *c,
                                                uint32_t l) {
  return pisa_histograms_of(&c->loop_reuse[l]);
}

PISA_HIDDEN int pisa_source_add_reuse(struct pisa_source_counts *c, uint32_t l,
                                      const struct reuse_histograms *h) {
  struct reuse_histograms *into =
      l < c->n_loops && c->loop_reuse ? loop_histograms(c, l) : NULL;
  return into ? histograms_merge(into, h) : -1;
}

/* Loop l's footprint and entropy counts in c, created empty at first use;
 * -1 when memory ran out. */
static int loop_space(struct pisa_source_counts *c, uint32_t l) {
  if (l >= c->n_loops || !c->loop_footprint || !c->loop_entropy)
    return -1;
  if (!c->loop_footprint[l] &&
      (c->loop_footprint[l] = malloc(sizeof **c->loop_footprint)))
    footprint_init(c->loop_footprint[l]);
  if (!c->loop_entropy[l] &&
      (c->loop_entropy[l] = malloc(sizeof **c->loop_entropy)))
    entropy_init(c->loop_entropy[l]);
  return c->loop_footprint[l] && c->loop_entropy[l] ? 0 : -1;
}

PISA_HIDDEN int pisa_source_add_space(struct pisa_source_counts *c, uint32_t l,
                                      const struct pisa_fn_state *s) {
  if (!s->footprint && !s->entropy)
    return 0;
  if (loop_space(c, l))
    return -1;
  for (int k = 0; s->footprint && k < 3; k++) /* the classes' union */
    footprint_merge(c->loop_footprint[l], &s->footprint[k]);
  if (s->entropy)
    entropy_merge(c->loop_entropy[l], s->entropy);
  return 0;
}

/* Whether a schedule result holds any instruction. */
static int par_ran(const struct par_result *r) {
  return r->win[0].ilp.n || r->bblp.n;
}

PISA_HIDDEN int pisa_source_add_schedules(struct pisa_source_counts *c,
                                          const struct sched *s) {
  for (uint32_t l = 0; c->loop_par && l < c->n_loops; l++) {
    struct par_result r;
    sched_loop_result(s, l, &r);
    if (!par_ran(&r))
      continue;
    if (!c->loop_par[l] && (c->loop_par[l] = malloc(sizeof **c->loop_par)))
      par_init(c->loop_par[l], &pisa_config.sched);
    if (!c->loop_par[l])
      return -1;
    par_merge(c->loop_par[l], &r);
  }
  return 0;
}

PISA_HIDDEN void pisa_source_counts_free(struct pisa_source_counts *c) {
  for (uint32_t l = 0; c->loop_reuse && l < c->n_loops; l++)
    free(c->loop_reuse[l]);
  for (uint32_t l = 0; c->loop_footprint && l < c->n_loops; l++)
    if (c->loop_footprint[l]) {
      footprint_free(c->loop_footprint[l]);
      free(c->loop_footprint[l]);
    }
  for (uint32_t l = 0; c->loop_entropy && l < c->n_loops; l++)
    if (c->loop_entropy[l]) {
      entropy_free(c->loop_entropy[l]);
      free(c->loop_entropy[l]);
    }
  free(c->loop_reuse);
  free(c->loop_footprint);
  free(c->loop_entropy);
  for (uint32_t l = 0; c->loop_par && l < c->n_loops; l++)
    free(c->loop_par[l]);
  free(c->loop_par);
  free(c->blocks);
  free(c->loop_entries);
}

/* Every loop's histograms made inclusive of its inner loops' (inner loops
 * have larger ids than the loops around them). */
static void add_inner_reuse(struct pisa_source_counts *c) {
  for (uint32_t l = c->n_loops; c->loop_reuse && l-- > 0;) {
    uint32_t parent = pisa_loops[l].parent;
    if (c->loop_reuse[l] && parent != PROGRAM_NONE)
      pisa_source_add_reuse(c, parent, c->loop_reuse[l]);
  }
}

/* Every loop's footprint made the union of its own and its inner loops',
 * its entropy counts their sum (inner loops have larger ids). */
static void add_inner_space(struct pisa_source_counts *c) {
  for (uint32_t l = c->n_loops; c->loop_footprint && l-- > 0;) {
    uint32_t parent = pisa_loops[l].parent;
    if (c->loop_footprint[l] && parent != PROGRAM_NONE &&
        !loop_space(c, parent)) {
      footprint_merge(c->loop_footprint[parent], c->loop_footprint[l]);
      entropy_merge(c->loop_entropy[parent], c->loop_entropy[l]);
    }
  }
}

/* A loop's entries: its preheader's executions, or when it has none, the
 * entries counted at run time (consume.c). */
static uint64_t loop_entries(uint32_t id, const struct pisa_source_counts *c) {
  uint32_t pre = pisa_loops[id].preheader;
  if (pre == PROGRAM_NONE)
    return id < c->n_loops ? c->loop_entries[id] : 0;
  return pre < c->n_blocks ? c->blocks[pre] : 0;
}

/* A loop's footprint and entropy, with the references they count, when
 * the space group stayed exact (no --sample, no memory-budget step: the
 * threads then dropped them, consume.c). */
static void space_json(json_object *o, uint32_t id,
                       const struct pisa_source_counts *c) {
  unsigned fam = pisa_config.families;
  const struct footprint *fp = c->loop_footprint ? c->loop_footprint[id] : NULL;
  const struct entropy_counts *e = c->loop_entropy ? c->loop_entropy[id] : NULL;
  if (!fp || !e ||
      pisa_group_rate(PISA_CONSUME_SPACE,
                      pisa_group_steps(PISA_CONSUME_SPACE)) < 1)
    return;
  json_object *accesses;
  if ((fam & PISA_FAMILY(ENTROPY)) &&
      json_object_object_get_ex(o, "memory_accesses", &accesses))
    json_object_object_add(accesses, "references",
                           json_object_new_uint64(e->accesses));
  json_object *footprint = fam & PISA_FAMILY(FOOTPRINT)
                               ? footprint_to_json(fp, pisa_config.line_sizes,
                                                   pisa_config.n_line_sizes)
                               : NULL;
  json_object *entropy = fam & PISA_FAMILY(ENTROPY)
                             ? entropy_to_json(e, pisa_config.entropy_bits)
                             : NULL;
  if (footprint)
    json_object_object_add(o, "footprint", footprint);
  if (entropy)
    json_object_object_add(o, "memory_entropy", entropy);
}

static json_object *loop_json(uint32_t id, const struct pisa_mix *m,
                              const struct pisa_source_counts *c) {
  const struct program_loop *l = &pisa_loops[id];
  json_object *o = json_object_new_object();
  json_object_object_add(o, "id", json_object_new_int64(id));
  json_object_object_add(
      o, "parent",
      l->parent == PROGRAM_NONE ? NULL : json_object_new_int64(l->parent));
  json_object_object_add(o, "depth", json_object_new_int64(l->depth));
  loop_names_json(o, l);
  json_object_object_add(o, "iterations",
                         json_object_new_uint64(c->blocks[l->header]));
  json_object_object_add(o, "entries",
                         json_object_new_uint64(loop_entries(id, c)));
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(mix_instructions(m)));
  json_object_object_add(o, "instruction_mix", mix_to_json(m));
  json_object_object_add(o, "memory_accesses", mix_accesses_to_json(m));
  space_json(o, id, c);
  /* every instruction the schedules saw counted for the loop (sampled:
   * its bursts', as for a function) */
  if (c->loop_par && c->loop_par[id])
    par_to_json(c->loop_par[id], o);
  /* none once the memory budget switched the reuse group to sampling:
   * the loops' histograms then stop at the switch (consume.c) */
  const struct reuse_histograms *h = c->loop_reuse ? c->loop_reuse[id] : NULL;
  if (h && (pisa_config.families & PISA_FAMILY(REUSE)) &&
      !pisa_group_steps(PISA_CONSUME_REUSE)) {
    json_object *reuse = reuse_distance_to_json(h);
    json_object *miss = miss_ratio_to_json(h, locality_default_cache_bytes,
                                           LOCALITY_DEFAULT_CACHES);
    if (reuse && miss) {
      json_object_object_add(o, "reuse_distance", reuse);
      json_object_object_add(o, "miss_ratio", miss);
    } else {
      json_object_put(reuse);
      json_object_put(miss);
    }
  }
  return o;
}

PISA_HIDDEN json_object *pisa_loops_json(struct pisa_source_counts *c) {
  struct loop_mixes lm = {.n = pisa_loop_count()};
  if (!lm.n || !(lm.mix = calloc(lm.n, sizeof *lm.mix)))
    return NULL;
  add_loop_blocks(&lm, c->blocks, c->n_blocks);
  add_inner_reuse(c);
  add_inner_space(c);
  json_object *loops = json_object_new_array();
  for (uint32_t l = 0; l < lm.n; l++) {
    if (!lm.mix[l])
      continue;
    if (pisa_loops[l].header < c->n_blocks && c->blocks[pisa_loops[l].header])
      json_object_array_add(loops, loop_json(l, lm.mix[l], c));
    mix_free(lm.mix[l]);
    free(lm.mix[l]);
  }
  free(lm.mix);
  if (json_object_array_length(loops))
    return loops;
  json_object_put(loops);
  return NULL;
}

/* ---- Lines ----------------------------------------------------------------
 */

struct line_count {
  const char *file;
  uint32_t line;
  uint64_t instructions, loads, stores, accesses;
  UT_hash_handle hh;
  char key[]; /* "line\tfile": modules keep their own copies of a name */
};

static struct line_count *line_entry(struct line_count **table,
                                     const struct program_line *run) {
  char key[4096];
  int n = snprintf(key, sizeof key, "%u\t%s", run->line, run->file);
  if (n < 0 || (size_t)n >= sizeof key)
    return NULL;
  struct line_count *e;
  HASH_FIND(hh, *table, key, (size_t)n, e);
  if (e)
    return e;
  if (!(e = calloc(1, sizeof *e + (size_t)n + 1)))
    return NULL;
  memcpy(e->key, key, (size_t)n + 1);
  e->file = run->file;
  e->line = run->line;
  HASH_ADD(hh, *table, key[0], (size_t)n, e);
  return e;
}

/* Adds `count` executions of the sites of a run's instructions [first,
 * end) from site *s on. */
static void add_run_sites(struct line_count *e, const struct program_block *b,
                          uint32_t *s, uint32_t end, uint64_t count) {
  for (; *s < b->n_sites && b->sites[*s].instr < end; ++*s) {
    uint8_t kind = b->sites[*s].kind;
    if (kind == PROGRAM_SITE_CALL || !e)
      continue;
    e->accesses += count;
    e->loads += kind == PROGRAM_SITE_LOAD ? count : 0;
    e->stores += kind == PROGRAM_SITE_STORE ? count : 0;
  }
}

/* Adds `count` executions of block b to the lines its runs come from;
 * instructions without a location belong to no line. */
static void add_line_block(struct line_count **table, uint32_t b,
                           uint64_t count) {
  const struct program_block_source *bs = &pisa_block_sources[b];
  uint32_t first = 0, site = 0;
  for (uint32_t r = 0; r < bs->n_lines; r++) {
    const struct program_line *run = &bs->lines[r];
    struct line_count *e =
        run->file && run->line ? line_entry(table, run) : NULL;
    if (e)
      e->instructions += (uint64_t)run->n_instrs * count;
    first += run->n_instrs;
    add_run_sites(e, &pisa_blocks[b], &site, first, count);
  }
}

static int by_file_line(const struct line_count *a,
                        const struct line_count *b) {
  int c = strcmp(a->file, b->file);
  return c ? c : (a->line > b->line) - (a->line < b->line);
}

static json_object *line_json(const struct line_count *e) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "file", json_object_new_string(e->file));
  json_object_object_add(o, "line", json_object_new_int64(e->line));
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(e->instructions));
  json_object_object_add(o, "accesses", json_object_new_uint64(e->accesses));
  json_object_object_add(o, "loads", json_object_new_uint64(e->loads));
  json_object_object_add(o, "stores", json_object_new_uint64(e->stores));
  return o;
}

PISA_HIDDEN json_object *pisa_lines_json(const uint64_t *counts,
                                         uint32_t n_blocks) {
  struct line_count *table = NULL, *e, *tmp;
  for (uint32_t b = 0; b < n_blocks; b++)
    if (counts[b])
      add_line_block(&table, b, counts[b]);
  if (!table)
    return NULL;
  HASH_SORT(table, by_file_line);
  json_object *lines = json_object_new_array();
  HASH_ITER(hh, table, e, tmp) {
    json_object_array_add(lines, line_json(e));
    HASH_DEL(table, e);
    free(e);
  }
  return lines;
}
