/* mix.h: the dynamic instruction mix (docs/metrics.md "What counts as an
 * instruction", "Instruction mix"): static per-block instruction tables
 * times block execution counts, by opcode, category and vector width. */
#ifndef PISA_METRICS_MIX_H
#define PISA_METRICS_MIX_H

#include <stdint.h>

#include "program.h"
#include "u64map.h"

struct json_object;

/* opcodes[] counts executions by LLVM opcode number (phi excluded: the
 * pass emits no phi in instruction tables; the runtime counts phis in
 * `phi`).  The runtime fills phi, bytes_* and the access counters itself. */
struct pisa_mix {
  uint64_t opcodes[PISA_OPCODE_MAX];
  /* By the instructions' own category (program_instr.category), which for
   * arithmetic intrinsics is not their opcode's (`call`). */
  uint64_t categories[PISA_CAT_COUNT];
  uint64_t phi, bytes_loaded, bytes_stored;
  uint64_t vector_instructions;            /* vector-typed executions */
  struct u64map vector_lanes, vector_bits; /* lanes or bits -> executions */
  uint64_t loads, stores, atomics, memcpys, memsets, gathers, scatters;
};

void mix_init(struct pisa_mix *m);
void mix_free(struct pisa_mix *m);

/* Adds `times` executions of the n instructions (one block's). */
void mix_add_instrs(struct pisa_mix *m, const struct program_instr *instrs,
                    uint32_t n, uint64_t times);

/* dst += src, every counter and width table. */
void mix_merge(struct pisa_mix *dst, const struct pisa_mix *src);

/* Counted instructions: the sum over opcodes. */
uint64_t mix_instructions(const struct pisa_mix *m);

/* Executions of instructions of one enum pisa_category; 0 when out of
 * range. */
uint64_t mix_category(const struct pisa_mix *m, int category);

/* The "instruction_mix" object: {"opcodes": {non-zero, by name},
 * "categories": {all nine}, "phi", "bytes_loaded", "bytes_stored",
 * "vector": {"instructions", "lanes": {"4": n}, "bits": {"128": n}}}. */
struct json_object *mix_to_json(const struct pisa_mix *m);

/* The "memory_accesses" object: {"loads", "stores", "atomics", "memcpy",
 * "memset", "gathers", "scatters"}. */
struct json_object *mix_accesses_to_json(const struct pisa_mix *m);

#endif /* PISA_METRICS_MIX_H */
