/* test_mix.c: the instruction mix on hand-built block tables (LLVM 19
 * opcode numbers written out by hand), with every expected count worked
 * out by hand below, vector widths, merging and the JSON shape. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"

#include "check.h"

/* LLVM 19 opcode numbers (llvm/IR/Instruction.def). */
enum {
  RET = 1,
  BR = 2,
  FADD = 14,
  FMUL = 18,
  XOR = 30,
  AND = 28,
  ALLOCA = 31,
  LOAD = 32,
  STORE = 33,
  GEP = 34,
  ATOMICRMW = 37,
  ZEXT = 39,
  ICMP = 53,
  CALL = 56,
  SELECT = 57,
  EXTRACTELEMENT = 61,
  SHUFFLEVECTOR = 63,
};

/* The category the pass gives each opcode above (METRICS.md's table). */
#define CAT(op)                                                                \
  ((op) == LOAD || (op) == STORE || (op) == ATOMICRMW ? PISA_CAT_MEMORY        \
   : (op) == ICMP                                     ? PISA_CAT_INT           \
   : (op) == FADD || (op) == FMUL                     ? PISA_CAT_FP            \
   : (op) == AND || (op) == XOR                       ? PISA_CAT_BITWISE       \
   : (op) == ZEXT                                     ? PISA_CAT_CONVERSION    \
   : (op) == GEP || (op) == ALLOCA                    ? PISA_CAT_ADDRESS       \
   : (op) == BR || (op) == CALL || (op) == RET        ? PISA_CAT_CONTROL       \
   : (op) == SHUFFLEVECTOR || (op) == EXTRACTELEMENT  ? PISA_CAT_VECTOR        \
                                                      : PISA_CAT_OTHER)

/* Scalars carry their width too (64 bits here); only vector-flagged
 * instructions may count by width. */
#define SCALAR(op) {.opcode = op, .category = CAT(op), .bits = 64}
#define VECTOR(op, lanes_, bits_)                                              \
  {.opcode = op,                                                               \
   .category = CAT(op),                                                        \
   .flags = PROGRAM_INSTR_VECTOR,                                              \
   .lanes = lanes_,                                                            \
   .bits = bits_}

/* executed 10 times */
static const struct program_instr block_a[] = {
    SCALAR(LOAD), SCALAR(FADD), SCALAR(STORE),
    SCALAR(GEP),  SCALAR(ICMP), SCALAR(BR),
};
/* executed 3 times: a vectorised loop body */
static const struct program_instr block_b[] = {
    VECTOR(LOAD, 8, 256),
    VECTOR(FMUL, 8, 256),
    VECTOR(SHUFFLEVECTOR, 4, 128),
    SCALAR(EXTRACTELEMENT),
    VECTOR(STORE, 8, 256),
    SCALAR(CALL),
    SCALAR(RET),
};
/* executed 5 times */
static const struct program_instr block_d[] = {
    SCALAR(AND),    SCALAR(SELECT),    SCALAR(ZEXT),
    SCALAR(ALLOCA), SCALAR(ATOMICRMW),
};
/* never executed */
static const struct program_instr block_c[] = {SCALAR(XOR)};

#define LEN(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static void fill(struct pisa_mix *m) {
  mix_add_instrs(m, block_a, LEN(block_a), 10);
  mix_add_instrs(m, block_b, LEN(block_b), 3);
  mix_add_instrs(m, block_c, LEN(block_c), 0);
  mix_add_instrs(m, block_d, LEN(block_d), 5);
}

static void test_counts(void) {
  struct pisa_mix m;
  mix_init(&m);
  fill(&m);
  EXPECT_EQ(m.opcodes[LOAD], 13);
  EXPECT_EQ(m.opcodes[STORE], 13);
  EXPECT_EQ(m.opcodes[FADD], 10);
  EXPECT_EQ(m.opcodes[FMUL], 3);
  EXPECT_EQ(m.opcodes[XOR], 0);
  EXPECT_EQ(m.opcodes[ATOMICRMW], 5);
  /* 6 * 10 + 7 * 3 + 5 * 5 */
  EXPECT_EQ(mix_instructions(&m), 106);
  EXPECT_EQ(mix_category(&m, PISA_CAT_MEMORY), 31);    /* 13 + 13 + 5 */
  EXPECT_EQ(mix_category(&m, PISA_CAT_INT), 10);       /* icmp */
  EXPECT_EQ(mix_category(&m, PISA_CAT_FP), 13);        /* fadd, fmul */
  EXPECT_EQ(mix_category(&m, PISA_CAT_BITWISE), 5);    /* and */
  EXPECT_EQ(mix_category(&m, PISA_CAT_CONVERSION), 5); /* zext */
  EXPECT_EQ(mix_category(&m, PISA_CAT_ADDRESS), 15);   /* gep 10, alloca 5 */
  EXPECT_EQ(mix_category(&m, PISA_CAT_CONTROL), 16);   /* br, call, ret */
  EXPECT_EQ(mix_category(&m, PISA_CAT_VECTOR), 6);     /* shuffle, extract */
  EXPECT_EQ(mix_category(&m, PISA_CAT_OTHER), 5);      /* select */
  EXPECT_EQ(mix_category(&m, PISA_CAT_COUNT), 0);
  EXPECT_EQ(mix_category(&m, -1), 0);
  /* vector-typed: load, fmul, store at 8 x 32 bits, shuffle at 4 x 32 */
  EXPECT_EQ(m.vector_instructions, 12);
  EXPECT_EQ(u64map_count(&m.vector_lanes), 2);
  EXPECT_EQ(*u64map_find(&m.vector_lanes, 8), 9);
  EXPECT_EQ(*u64map_find(&m.vector_lanes, 4), 3);
  EXPECT_EQ(*u64map_find(&m.vector_bits, 256), 9);
  EXPECT_EQ(*u64map_find(&m.vector_bits, 128), 3);
  mix_free(&m);
}

/* A call of an arithmetic intrinsic (llvm.fmuladd, llvm.smax) is a `call`
 * by opcode and fp or int work by the category the pass gave it. */
static void test_intrinsic_category(void) {
  struct pisa_mix m;
  const struct program_instr calls[] = {
      {.opcode = CALL, .category = PISA_CAT_FP, .bits = 64},
      {.opcode = CALL, .category = PISA_CAT_INT, .bits = 32},
      {.opcode = CALL, .category = PISA_CAT_CONTROL}};
  mix_init(&m);
  mix_add_instrs(&m, calls, 3, 7);
  EXPECT_EQ(m.opcodes[CALL], 3 * 7);
  EXPECT_EQ(mix_category(&m, PISA_CAT_FP), 7);
  EXPECT_EQ(mix_category(&m, PISA_CAT_INT), 7);
  EXPECT_EQ(mix_category(&m, PISA_CAT_CONTROL), 7);
  mix_free(&m);
}

static void test_names(void) {
  EXPECT(strcmp(program_opcode_name(LOAD), "load") == 0);
  EXPECT(strcmp(program_opcode_name(GEP), "getelementptr") == 0);
  EXPECT(strcmp(program_opcode_name(67), "freeze") == 0);
  EXPECT(program_opcode_name(0) == NULL);
  EXPECT(program_opcode_name(PISA_OPCODE_MAX) == NULL);
  EXPECT(program_opcode_name(1000) == NULL);
}

/* An opcode number outside the table is ignored, not a crash. */
static void test_unknown_opcode(void) {
  struct pisa_mix m;
  const struct program_instr odd[] = {SCALAR(200), SCALAR(ICMP)};
  mix_init(&m);
  mix_add_instrs(&m, odd, 2, 4);
  EXPECT_EQ(mix_instructions(&m), 4);
  mix_free(&m);
}

static void test_merge(void) {
  struct pisa_mix a, b;
  const struct program_instr wide[] = {VECTOR(FADD, 16, 512),
                                       VECTOR(LOAD, 8, 256)};
  mix_init(&a);
  mix_init(&b);
  fill(&a);
  a.phi = 4, a.bytes_loaded = 100, a.loads = 7, a.gathers = 1;
  mix_add_instrs(&b, block_a, LEN(block_a), 1);
  mix_add_instrs(&b, wide, LEN(wide), 2);
  b.phi = 1, b.bytes_stored = 8, b.loads = 2, b.memcpys = 3, b.scatters = 5;
  mix_merge(&a, &b);
  EXPECT_EQ(mix_instructions(&a), 106 + 6 + 4);
  EXPECT_EQ(a.opcodes[LOAD], 13 + 1 + 2);
  EXPECT_EQ(a.opcodes[FADD], 10 + 1 + 2);
  EXPECT_EQ(a.vector_instructions, 12 + 4);
  EXPECT_EQ(*u64map_find(&a.vector_lanes, 16), 2);
  EXPECT_EQ(*u64map_find(&a.vector_lanes, 8), 9 + 2);
  EXPECT_EQ(*u64map_find(&a.vector_lanes, 4), 3);
  EXPECT_EQ(*u64map_find(&a.vector_bits, 512), 2);
  EXPECT_EQ(*u64map_find(&a.vector_bits, 256), 9 + 2);
  EXPECT_EQ(a.phi, 5);
  EXPECT_EQ(a.bytes_loaded, 100);
  EXPECT_EQ(a.bytes_stored, 8);
  EXPECT_EQ(a.loads, 9);
  EXPECT_EQ(a.memcpys, 3);
  EXPECT_EQ(a.gathers, 1);
  EXPECT_EQ(a.scatters, 5);
  EXPECT_EQ(mix_instructions(&b), 6 + 4); /* the source is unchanged */
  mix_free(&a);
  mix_free(&b);
}

static int64_t get_int(struct json_object *obj, const char *key) {
  struct json_object *v;
  if (!json_object_object_get_ex(obj, key, &v) ||
      !json_object_is_type(v, json_type_int))
    return -1;
  return json_object_get_int64(v);
}

static struct json_object *get_obj(struct json_object *obj, const char *key) {
  struct json_object *v = NULL;
  json_object_object_get_ex(obj, key, &v);
  return json_object_is_type(v, json_type_object) ? v : NULL;
}

static void test_json(void) {
  struct pisa_mix m;
  mix_init(&m);
  fill(&m);
  m.phi = 11, m.bytes_loaded = 80, m.bytes_stored = 24;
  struct json_object *obj = mix_to_json(&m);
  struct json_object *opcodes = get_obj(obj, "opcodes");
  struct json_object *categories = get_obj(obj, "categories");
  struct json_object *vector = get_obj(obj, "vector");
  EXPECT(opcodes && categories && vector);
  if (!opcodes || !categories || !vector)
    return;
  /* load store fadd fmul gep icmp br shufflevector extractelement call ret
   * and select zext alloca atomicrmw: 16 executed opcodes, xor not */
  EXPECT_EQ(json_object_object_length(opcodes), 16);
  EXPECT_EQ(get_int(opcodes, "load"), 13);
  EXPECT_EQ(get_int(opcodes, "getelementptr"), 10);
  EXPECT_EQ(get_int(opcodes, "shufflevector"), 3);
  EXPECT_EQ(get_int(opcodes, "atomicrmw"), 5);
  EXPECT(!json_object_object_get_ex(opcodes, "xor", NULL));
  EXPECT_EQ(json_object_object_length(categories), 9);
  EXPECT_EQ(get_int(categories, "memory"), 31);
  EXPECT_EQ(get_int(categories, "int"), 10);
  EXPECT_EQ(get_int(categories, "fp"), 13);
  EXPECT_EQ(get_int(categories, "bitwise"), 5);
  EXPECT_EQ(get_int(categories, "conversion"), 5);
  EXPECT_EQ(get_int(categories, "address"), 15);
  EXPECT_EQ(get_int(categories, "control"), 16);
  EXPECT_EQ(get_int(categories, "vector"), 6);
  EXPECT_EQ(get_int(categories, "other"), 5);
  EXPECT_EQ(get_int(obj, "phi"), 11);
  EXPECT_EQ(get_int(obj, "bytes_loaded"), 80);
  EXPECT_EQ(get_int(obj, "bytes_stored"), 24);
  EXPECT_EQ(get_int(vector, "instructions"), 12);
  struct json_object *lanes = get_obj(vector, "lanes");
  struct json_object *bits = get_obj(vector, "bits");
  EXPECT(lanes && bits);
  EXPECT_EQ(json_object_object_length(lanes), 2);
  EXPECT_EQ(get_int(lanes, "4"), 3);
  EXPECT_EQ(get_int(lanes, "8"), 9);
  EXPECT_EQ(get_int(bits, "128"), 3);
  EXPECT_EQ(get_int(bits, "256"), 9);
  /* widths in increasing order */
  struct json_object_iterator it = json_object_iter_begin(lanes);
  EXPECT(strcmp(json_object_iter_peek_name(&it), "4") == 0);
  json_object_put(obj);
  mix_free(&m);
}

static void test_empty_json(void) {
  struct pisa_mix m;
  mix_init(&m);
  struct json_object *obj = mix_to_json(&m);
  EXPECT_EQ(json_object_object_length(get_obj(obj, "opcodes")), 0);
  EXPECT_EQ(json_object_object_length(get_obj(obj, "categories")), 9);
  EXPECT_EQ(get_int(get_obj(obj, "categories"), "other"), 0);
  EXPECT_EQ(get_int(get_obj(obj, "vector"), "instructions"), 0);
  json_object_put(obj);
  mix_free(&m);
}

static void test_accesses_json(void) {
  struct pisa_mix m;
  mix_init(&m);
  m.loads = 1, m.stores = 2, m.atomics = 3, m.memcpys = 4, m.memsets = 5;
  m.gathers = 6, m.scatters = 7;
  struct json_object *obj = mix_accesses_to_json(&m);
  EXPECT_EQ(json_object_object_length(obj), 7);
  EXPECT_EQ(get_int(obj, "loads"), 1);
  EXPECT_EQ(get_int(obj, "stores"), 2);
  EXPECT_EQ(get_int(obj, "atomics"), 3);
  EXPECT_EQ(get_int(obj, "memcpy"), 4);
  EXPECT_EQ(get_int(obj, "memset"), 5);
  EXPECT_EQ(get_int(obj, "gathers"), 6);
  EXPECT_EQ(get_int(obj, "scatters"), 7);
  json_object_put(obj);
  mix_free(&m);
}

int main(void) {
  RUN(test_counts);
  RUN(test_names);
  RUN(test_intrinsic_category);
  RUN(test_unknown_opcode);
  RUN(test_merge);
  RUN(test_json);
  RUN(test_empty_json);
  RUN(test_accesses_json);
  return check_summary();
}
