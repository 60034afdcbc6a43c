/* program.h: the static facts the metric engines read about the analysed
 * program (functions, blocks, counted instructions, access sites, phis),
 * in the metrics' own types.  The runtime builds them from the pass's
 * tables once per module at registration; unit tests build them by hand.
 * Indices are global: one id space for blocks and one for functions. */
#ifndef PISA_METRICS_PROGRAM_H
#define PISA_METRICS_PROGRAM_H

#include <stdint.h>

#include "pisa/vocabulary.h"

/* "None" for a frame slot, a site index or a block id. */
#define PROGRAM_NONE UINT32_MAX

/* ---- Instructions ------------------------------------------------------
 * Every counted instruction of a block, in order (docs/metrics.md: phis and
 * debug or no-code intrinsics are not counted). */
enum program_instr_flag {
  PROGRAM_INSTR_VECTOR = 1u << 0, /* its value (or stored value) is a vector */
  /* In the update cycle of a loop induction variable (the header phi of an
   * add-recurrence and the value fed back to it from the latch). */
  PROGRAM_INSTR_INDEX_UPDATE = 1u << 1,
};

struct program_instr {
  uint8_t opcode;   /* LLVM 19 opcode number (pisa/vocabulary.h) */
  uint8_t category; /* enum pisa_category of the opcode (program_category) */
  uint8_t flags;    /* enum program_instr_flag */
  uint8_t reserved;
  uint16_t lanes; /* vector lanes, else 0 */
  uint16_t bits;  /* width of the value in bits (all lanes), 0 for void */
  uint32_t site;  /* index of its access site in the block, or PROGRAM_NONE */
  /* Its operands' frame slots (PROGRAM_NONE: no dependency, a constant or
   * a global) at the block's operands[first_operand...]: for a call one per
   * argument in order and then the called value, for a ret the returned
   * value, otherwise the non-constant operands in order. */
  uint32_t first_operand;
  uint32_t n_operands;
};

/* ---- Access sites ------------------------------------------------------
 * The instructions that touch memory or call, in block order.  Numbered
 * as the record ABI numbers them, so the runtime copies them. */
enum program_site_kind {
  PROGRAM_SITE_LOAD = 1,
  PROGRAM_SITE_STORE = 2,
  PROGRAM_SITE_RMW = 3,     /* atomicrmw / cmpxchg: a load and a store */
  PROGRAM_SITE_MEMCPY = 4,  /* memcpy, memmove */
  PROGRAM_SITE_MEMSET = 5,  /* memset */
  PROGRAM_SITE_GATHER = 6,  /* one access per active lane */
  PROGRAM_SITE_SCATTER = 7, /* one access per active lane */
  PROGRAM_SITE_CALL = 8,    /* no access */
};

/* Access-pattern class of a static access (docs/metrics.md, MemGaze). */
enum program_access_class {
  PROGRAM_CLASS_IRREGULAR = 0,
  PROGRAM_CLASS_STRIDED = 1,
  PROGRAM_CLASS_CONSTANT = 2,
  PROGRAM_CLASS_COUNT
};

struct program_site {
  uint8_t kind;         /* enum program_site_kind */
  uint8_t access_class; /* enum program_access_class */
  uint16_t lanes;       /* gather/scatter lanes, else 1 */
  uint32_t size;        /* bytes per access (per lane); 0 for memcpy/memset */
  uint32_t instr;       /* index of its instruction in the block */
  /* Loads, stores and RMWs in a row from this site on (0 when it is none
   * of them): one access each, so a decoder takes that many at once. */
  uint32_t fixed_run;
  const char *callee; /* CALL: the callee's linkage name when direct */
};

/* ---- Phis ---------------------------------------------------------------
 * A phi takes, at block entry, the value arriving along the edge taken:
 * its incoming values are (predecessor block id, frame slot) pairs at the
 * block's incoming[2 * first_incoming...]. */
struct program_phi {
  uint32_t first_incoming;
  uint32_t n_incoming;
  uint32_t flags; /* PROGRAM_INSTR_INDEX_UPDATE */
};

/* ---- Blocks -------------------------------------------------------------
 * Frame slots number a function's values for the schedules: its counted
 * instructions in block order, then its phis, then its parameters. */
struct program_block {
  uint32_t function; /* global function id: the frame its code runs in */
  /* Global id of the function its code comes from in the source (inlined
   * code: the inlined function); every per-function metric but the
   * schedules' follows it.  Equal to `function` when not inlined. */
  uint32_t source;
  uint32_t first_slot; /* frame slot of its first instruction */
  uint32_t phi_slot;   /* frame slot of its first phi */
  uint32_t n_instrs, n_sites, n_phis;
  /* A conditional branch or switch ending the block: its successors (block
   * ids) in order; the outcome of an execution is the index of the first
   * successor equal to the block entered next.  0 when it ends otherwise. */
  uint32_t n_successors;
  uint32_t bytes_loaded; /* static bytes of fixed-size loads (and RMW) */
  uint32_t bytes_stored; /* static bytes of fixed-size stores (and RMW) */
  const struct program_instr *instrs;
  const struct program_site *sites;
  /* The same sites' size (as 64 bits), kind and access class in columns,
   * so a decoder copies a run of loads, stores and RMWs a vector at a time
   * (the runtime's decode.c); NULL when nobody laid them out. */
  const uint64_t *site_sizes;
  const uint8_t *site_kinds, *site_classes;
  const uint32_t *successors;
  const uint32_t *operands; /* frame slots, see program_instr */
  /* NULL when the module carries no dataflow for them (n_phis still counts
   * the block's phis for the instruction mix). */
  const struct program_phi *phis;
  const uint32_t *incoming; /* pairs, see program_phi */
};

/* ---- Functions ---------------------------------------------------------- */
struct program_function {
  const char *name;      /* linkage name */
  const char *display;   /* demangled name (equal to name for C) */
  const char *file;      /* source file from debug info, or NULL */
  const char *module;    /* the module's source file name, or NULL */
  const char *directory; /* the module's compilation directory, or NULL */
  uint32_t line;         /* 0 without debug info */
  uint32_t first_block;  /* block id of its entry block; its blocks follow */
  uint32_t n_blocks;
  /* Its frame: n_instrs + n_phis + n_args slots. */
  uint32_t n_instrs, n_phis, n_args;
};

/* ---- Loops and source lines --------------------------------------------
 * The natural loops of the optimised code (the pass's LoopInfo) and, per
 * block, the source line of each counted instruction as runs.  Only the
 * report reads them; they live next to the blocks, not in them, so the
 * blocks the decoder walks stay as small as they are. */
struct program_loop {
  uint32_t function;  /* global function id of the blocks that form it */
  uint32_t source;    /* global function id of its header's source code */
  uint32_t parent;    /* global loop id, PROGRAM_NONE at depth 1 */
  uint32_t header;    /* global block id: its executions are iterations */
  uint32_t preheader; /* global block id, PROGRAM_NONE when it has none */
  uint32_t depth;     /* 1 for an outermost loop */
  uint32_t first_line, last_line; /* 0 without debug locations */
  const char *file;               /* NULL without debug locations */
};

/* n_instrs consecutive counted instructions of a block from one line. */
struct program_line {
  const char *file; /* NULL for instructions without a debug location */
  uint32_t line;
  uint32_t n_instrs;
};

/* What a block's code is in the source, parallel to the blocks. */
struct program_block_source {
  uint32_t loop; /* global id of its innermost loop, PROGRAM_NONE if none */
  /* The loop without a preheader whose header it is (its entries are
   * counted at run time), else PROGRAM_NONE. */
  uint32_t entry_loop;
  uint32_t n_lines;
  const struct program_line *lines; /* runs covering its instructions */
};

/* The whole program as the engines see it: arrays indexed by global id
 * that never move, holding every block and function a decoded batch names
 * (entries, once published, never change, so engines on any thread read
 * them without locks). */
struct program {
  const struct program_block *blocks;
  const struct program_function *functions;
  /* Per block its innermost loop, and the loops: NULL when the program
   * does not say (the schedules then keep no per-loop results). */
  const struct program_block_source *block_sources;
  const struct program_loop *loops;
};

/* LLVM name of an opcode number, NULL when it is not one. */
const char *program_opcode_name(unsigned opcode);

/* The category of an opcode (PISA_CAT_OTHER when it is not one). */
unsigned program_category(unsigned opcode);

#endif /* PISA_METRICS_PROGRAM_H */
