/* mix.c: the instruction mix of mix.h.  Runs once per executed block at the
 * end of a run (counts come from block execution counters), so it favours
 * simplicity; opcode names and categories come from program.h. */
#include "mix.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const category_names[PISA_CAT_COUNT] = PISA_CATEGORY_NAMES;

void mix_init(struct pisa_mix *m) {
  memset(m, 0, sizeof(*m));
  u64map_init(&m->vector_lanes);
  u64map_init(&m->vector_bits);
}

void mix_free(struct pisa_mix *m) {
  u64map_free(&m->vector_lanes);
  u64map_free(&m->vector_bits);
  mix_init(m);
}

/* Adds n to key's count; a count lost to lack of memory is dropped. */
static void width_add(struct u64map *widths, uint64_t key, uint64_t n) {
  uint64_t *count = u64map_slot(widths, key);
  if (count)
    *count += n;
}

void mix_add_instrs(struct pisa_mix *m, const struct program_instr *instrs,
                    uint32_t n, uint64_t times) {
  for (uint32_t i = 0; i < n; i++) {
    const struct program_instr *in = &instrs[i];
    if (in->opcode < PISA_OPCODE_MAX)
      m->opcodes[in->opcode] += times;
    if (in->category < PISA_CAT_COUNT)
      m->categories[in->category] += times;
    if (in->flags & PROGRAM_INSTR_VECTOR) {
      m->vector_instructions += times;
      width_add(&m->vector_lanes, in->lanes, times);
      width_add(&m->vector_bits, in->bits, times);
    }
  }
}

static void widths_merge(struct u64map *dst, const struct u64map *src) {
  size_t iter = 0;
  uint64_t key, count;
  while (u64map_next(src, &iter, &key, &count))
    width_add(dst, key, count);
}

void mix_merge(struct pisa_mix *dst, const struct pisa_mix *src) {
  for (unsigned op = 0; op < PISA_OPCODE_MAX; op++)
    dst->opcodes[op] += src->opcodes[op];
  for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
    dst->categories[c] += src->categories[c];
  dst->phi += src->phi;
  dst->bytes_loaded += src->bytes_loaded;
  dst->bytes_stored += src->bytes_stored;
  dst->vector_instructions += src->vector_instructions;
  widths_merge(&dst->vector_lanes, &src->vector_lanes);
  widths_merge(&dst->vector_bits, &src->vector_bits);
  dst->loads += src->loads;
  dst->stores += src->stores;
  dst->atomics += src->atomics;
  dst->memcpys += src->memcpys;
  dst->memsets += src->memsets;
  dst->gathers += src->gathers;
  dst->scatters += src->scatters;
}

uint64_t mix_instructions(const struct pisa_mix *m) {
  uint64_t total = 0;
  for (unsigned op = 0; op < PISA_OPCODE_MAX; op++)
    total += m->opcodes[op];
  return total;
}

uint64_t mix_category(const struct pisa_mix *m, int category) {
  return category >= 0 && category < PISA_CAT_COUNT ? m->categories[category]
                                                    : 0;
}

static void add_count(struct json_object *obj, const char *key, uint64_t n) {
  json_object_object_add(obj, key, json_object_new_int64((int64_t)n));
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* {"<width>": count, ...} in increasing width order. */
static struct json_object *widths_to_json(const struct u64map *widths) {
  struct json_object *obj = json_object_new_object();
  size_t n = u64map_count(widths), iter = 0, i = 0;
  uint64_t *keys = malloc((n ? n : 1) * sizeof(*keys));
  uint64_t key, count;
  if (!keys)
    return obj;
  while (u64map_next(widths, &iter, &key, &count))
    keys[i++] = key;
  qsort(keys, n, sizeof(*keys), compare_u64);
  for (i = 0; i < n; i++) {
    char name[24];
    snprintf(name, sizeof(name), "%llu", (unsigned long long)keys[i]);
    add_count(obj, name, *u64map_find(widths, keys[i]));
  }
  free(keys);
  return obj;
}

struct json_object *mix_to_json(const struct pisa_mix *m) {
  struct json_object *obj = json_object_new_object();
  struct json_object *opcodes = json_object_new_object();
  struct json_object *categories = json_object_new_object();
  struct json_object *vector = json_object_new_object();
  for (unsigned op = 0; op < PISA_OPCODE_MAX; op++)
    if (program_opcode_name(op) && m->opcodes[op])
      add_count(opcodes, program_opcode_name(op), m->opcodes[op]);
  for (int cat = 0; cat < PISA_CAT_COUNT; cat++)
    add_count(categories, category_names[cat], mix_category(m, cat));
  add_count(vector, "instructions", m->vector_instructions);
  json_object_object_add(vector, "lanes", widths_to_json(&m->vector_lanes));
  json_object_object_add(vector, "bits", widths_to_json(&m->vector_bits));
  json_object_object_add(obj, "opcodes", opcodes);
  json_object_object_add(obj, "categories", categories);
  add_count(obj, "phi", m->phi);
  add_count(obj, "bytes_loaded", m->bytes_loaded);
  add_count(obj, "bytes_stored", m->bytes_stored);
  json_object_object_add(obj, "vector", vector);
  return obj;
}

struct json_object *mix_accesses_to_json(const struct pisa_mix *m) {
  struct json_object *obj = json_object_new_object();
  add_count(obj, "loads", m->loads);
  add_count(obj, "stores", m->stores);
  add_count(obj, "atomics", m->atomics);
  add_count(obj, "memcpy", m->memcpys);
  add_count(obj, "memset", m->memsets);
  add_count(obj, "gathers", m->gathers);
  add_count(obj, "scatters", m->scatters);
  return obj;
}
