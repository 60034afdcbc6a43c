/* pisa/abi.h: the record ABI, the contract between the pisa pass and the
 * analysis runtime (runtime entry names, record words, static tables).
 * The pass emits these static tables into every instrumented module and the
 * record words below into a per-thread buffer; the runtime decodes both.
 * C header, also included by the C++ pass, which static_asserts the layout. */
#ifndef PISA_ABI_H
#define PISA_ABI_H

#include <stdint.h>

#include "pisa/vocabulary.h"

/* Bumped with every change of the tables' layout: the runtime refuses
 * modules built for another layout instead of misreading them. */
#define PISA_ABI_VERSION 4u

/* ---- Record words -------------------------------------------------------
 * The instrumented code appends 64-bit words to a thread-local buffer:
 *   BLOCK   tag | global block id            at every basic-block entry
 *   address                                  at every fixed-size access site
 *   dst, src, length / dst, length           memcpy-like / memset-like sites
 *   lane addresses (0 = inactive lane)       gather / scatter sites
 *   RESUME  tag | site index << 40 | block   after every call site returns
 * Access words are read by position (the decoder knows the block's sites),
 * so only BLOCK and RESUME words carry tags; user-space addresses never have
 * bit 63 set. */
#define PISA_REC_BLOCK (UINT64_C(1) << 63)
#define PISA_REC_RESUME ((UINT64_C(1) << 63) | (UINT64_C(1) << 62))
#define PISA_REC_TAG_MASK (UINT64_C(3) << 62)
#define PISA_REC_SITE_SHIFT 40
#define PISA_REC_SITE_MASK ((UINT64_C(1) << 22) - 1)
#define PISA_REC_ID_MASK ((UINT64_C(1) << PISA_REC_SITE_SHIFT) - 1)
/* A region marker (deep mode): the runtime's PISA_ROI_BEGIN / END write
 *   BLOCK tag | PISA_REC_REGION | region << 1 | (1 for an end)
 * between the marker call and its RESUME word, region < 2^22.  No block id
 * reaches bit 39, so the decoder tells a marker from a block on its slow
 * path; an id with other bits set is an unknown block. */
#define PISA_REC_REGION (UINT64_C(1) << 39)
#define PISA_REC_REGION_MASK ((UINT64_C(1) << 23) - 1)
/* A heap event (deep mode, ABI 4): right after the RESUME word of a call
 * to an allocation or release function (pisa_heap_site) the segment holds
 *   BLOCK tag | PISA_REC_HEAP | global heap site id,
 *   base, size, released
 * base: what the call allocated (0: nothing, it failed or only releases);
 * size: its bytes; released: the address whose object the call ended (0:
 * none).  The three words are read by position, like a site's. */
#define PISA_REC_HEAP (UINT64_C(1) << 38)
#define PISA_REC_HEAP_MASK ((UINT64_C(1) << 25) - 1)
/* The heap site ids of a module not yet registered start here (its events
 * are dropped); registered ids stay below. */
#define PISA_REC_HEAP_UNREGISTERED (UINT64_C(1) << 24)
#define PISA_REC_HEAP_WORDS 4u

/* The thread-local buffer (initial-exec TLS), defined by the runtime.  The
 * pass loads the cursor once per segment (a block entry, or the code after a
 * call), checks room for the segment's words, writes them and stores the
 * cursor back; __pisa_buffer_refill is the slow path. */
struct pisa_tls_buffer {
  uint64_t *cursor; /* next free word */
  uint64_t *limit;  /* one past the last usable word */
};
#define PISA_TLS_BUFFER "__pisa_buf"
#define PISA_FN_REFILL "__pisa_buffer_refill"
#define PISA_FN_REGISTER "__pisa_register_module"
#define PISA_MARKER_SECTION "pisa_modules"

/* ---- Access sites ------------------------------------------------------ */
enum pisa_site_kind {
  PISA_SITE_LOAD = 1,    /* 1 word: address; size is static */
  PISA_SITE_STORE = 2,   /* 1 word */
  PISA_SITE_RMW = 3,     /* atomicrmw / cmpxchg: a load and a store, 1 word */
  PISA_SITE_MEMCPY = 4,  /* 3 words: dst, src, length (memcpy, memmove) */
  PISA_SITE_MEMSET = 5,  /* 2 words: dst, length */
  PISA_SITE_GATHER = 6,  /* `lanes` words: lane addresses, 0 when masked off */
  PISA_SITE_SCATTER = 7, /* `lanes` words */
  PISA_SITE_CALL = 8,    /* no word at the site; a RESUME word after return */
};

enum pisa_site_flag {
  /* A call after which no RESUME word is written (invoke, musttail, callbr):
   * the next BLOCK word re-establishes the context. */
  PISA_SITE_NO_RESUME = 1u << 0,
};

/* Access-pattern class of a static access (METRICS.md, MemGaze). */
enum pisa_access_class {
  PISA_CLASS_IRREGULAR = 0,
  PISA_CLASS_STRIDED = 1,
  PISA_CLASS_CONSTANT = 2,
};

/* Record words a site of this kind writes per execution. */
static inline uint32_t pisa_site_words(uint8_t kind, uint16_t lanes) {
  switch (kind) {
  case PISA_SITE_MEMCPY:
    return 3;
  case PISA_SITE_MEMSET:
    return 2;
  case PISA_SITE_GATHER:
  case PISA_SITE_SCATTER:
    return lanes;
  case PISA_SITE_CALL:
    return 0;
  default:
    return 1;
  }
}

struct pisa_site {
  uint8_t kind;         /* enum pisa_site_kind */
  uint8_t access_class; /* enum pisa_access_class */
  uint16_t lanes;       /* gather/scatter lanes, else 1 */
  uint32_t size;        /* bytes per access (per lane); 0 for memcpy/memset */
  uint32_t instr;       /* module-local index of the instruction */
  uint32_t flags;       /* enum pisa_site_flag */
  const char *callee;   /* CALL: callee name when direct, else NULL */
};

/* ---- Instructions ------------------------------------------------------
 * Every counted instruction (METRICS.md: not phi, not debug or no-code
 * intrinsics), in block order. opcode is LLVM 19's Instruction opcode. */
enum pisa_instr_flag {
  PISA_INSTR_VECTOR = 1u << 0, /* result (or stored value) is a vector */
  /* In the update cycle of a loop induction variable: a header phi that
   * ScalarEvolution sees as an add-recurrence of its loop, and the value
   * that feeds it back from the latch. */
  PISA_INSTR_INDEX_UPDATE = 1u << 1,
};

/* ---- Dataflow ----------------------------------------------------------
 * Where an operand's value comes from, as one uint32: a kind in the top two
 * bits and a module-local index below.  Constants and globals carry no
 * dependency (NONE); a value produced by an uncounted intrinsic (llvm.expect
 * and the like) is traced through to that intrinsic's own operand. */
#define PISA_SRC_KIND_SHIFT 30
#define PISA_SRC_INDEX_MASK ((UINT32_C(1) << PISA_SRC_KIND_SHIFT) - 1)
enum pisa_source_kind {
  PISA_SRC_NONE = 0,
  PISA_SRC_INSTR = 1, /* a counted instruction (index into instrs) */
  PISA_SRC_PHI = 2,   /* a phi (index into phis) */
  PISA_SRC_ARG = 3,   /* the function's parameter (index = position) */
};
#define PISA_SOURCE(kind, index)                                               \
  ((uint32_t)(kind) << PISA_SRC_KIND_SHIFT | (uint32_t)(index))

/* A phi: its incoming values as (predecessor block, source) pairs of
 * uint32 at incoming[2 * first_incoming...]. */
struct pisa_phi {
  uint32_t block; /* module-local block */
  uint32_t first_incoming;
  uint32_t n_incoming;
  uint32_t flags; /* PISA_INSTR_INDEX_UPDATE */
};

/* The kind of an instruction's value (its result, or the stored value of a
 * store); for vectors the kind of the elements. */
enum pisa_type_kind {
  PISA_TYPE_VOID = 0,
  PISA_TYPE_INT = 1,
  PISA_TYPE_FP = 2,
  PISA_TYPE_PTR = 3,
  PISA_TYPE_AGGREGATE = 4, /* struct or array */
  PISA_TYPE_OTHER = 5,     /* label, token, metadata, ... */
};

struct pisa_instr {
  uint8_t opcode;
  uint8_t category;  /* enum pisa_category, from the opcode */
  uint8_t type_kind; /* enum pisa_type_kind */
  uint8_t flags;     /* enum pisa_instr_flag */
  uint16_t lanes;    /* vector lanes, else 0 */
  uint16_t bits;     /* width of the value in bits (all lanes), 0 for void */
  /* Sources of the operands it depends on, at operands[first_operand...]:
   * for a call, one per argument in order (NONE for constants) and then
   * the called value; for a ret, the returned value; otherwise the
   * non-constant operands in order. */
  uint32_t first_operand;
  uint32_t n_operands;
};

struct pisa_block {
  uint32_t function;    /* module-local function index */
  uint32_t first_instr; /* module-local index of its first counted instr */
  uint32_t n_instrs;    /* counted instructions */
  uint32_t first_site;  /* module-local index of its first site */
  uint32_t n_sites;
  uint32_t n_phis;
  uint32_t bytes_loaded; /* static bytes of fixed-size loads (and RMW) */
  uint32_t bytes_stored; /* static bytes of fixed-size stores (and RMW) */
  /* A conditional branch or switch ending the block: its successors, in
   * order, at successors[first_successor..]; the outcome of an execution
   * is the index of the first successor equal to the next block entered. */
  uint32_t first_successor;
  uint32_t n_successors; /* 0 when the block ends otherwise */
  uint32_t first_phi;    /* module-local index of its first phi */
  /* The function its code comes from in the source (ABI 3): the innermost
   * inlined subprogram of the majority of its counted instructions' debug
   * locations, as llvm-symbolizer names a frame; `function` itself when the
   * code is not inlined or the module has no debug locations. */
  uint32_t source;
};

/* "None" for a loop, block or file index of the loop and line tables. */
#define PISA_INDEX_NONE UINT32_MAX

/* A natural loop of the optimised code (ABI 3; LLVM's LoopInfo after the
 * optimisation pipeline: loops the optimiser removed or fully unrolled are
 * not here).  Loops are numbered in preorder per function (a parent before
 * its children, siblings in program order), so parent < the loop's index. */
struct pisa_loop {
  uint32_t function;  /* module-local function whose blocks form it */
  uint32_t source;    /* the source function of its header (pisa_block) */
  uint32_t parent;    /* module-local loop, PISA_INDEX_NONE at depth 1 */
  uint32_t header;    /* module-local block */
  uint32_t preheader; /* LLVM's preheader (module-local block), or NONE */
  uint32_t depth;     /* 1 for an outermost loop */
  /* Source range: the loop's llvm.loop start and end locations, else its
   * header's location; file indexes the module's files. 0 / NONE when the
   * module has no debug locations. */
  uint32_t file;
  uint32_t first_line, last_line;
};

/* A run of a block's counted instructions that come from one source line
 * (ABI 3): block b's runs are lines[block_lines[b] .. block_lines[b + 1]),
 * covering its counted instructions in order.  The line is the innermost
 * debug location's (inlined code: the inlined function's line), 0 and file
 * NONE for instructions without a location. */
struct pisa_line {
  uint32_t file; /* index into the module's files, or PISA_INDEX_NONE */
  uint32_t line;
  uint32_t n_instrs;
};

/* ---- Data objects (ABI 4) -----------------------------------------------
 * A call of an allocation or release function (malloc, calloc, realloc,
 * aligned_alloc, posix_memalign, memalign, valloc, pvalloc, C++ operator
 * new and delete, mmap, munmap, free) that returns to its caller: the
 * allocator's name and the source location of the call, innermost first,
 * then the call sites it was inlined into (DILocation's inlinedAt chain). */
struct pisa_frame {
  uint32_t file; /* index into the module's files, or PISA_INDEX_NONE */
  uint32_t line; /* 0 without a debug location */
};

struct pisa_heap_site {
  const char *allocator; /* the callee's linkage name */
  uint32_t first_frame;  /* frames[first_frame .. first_frame + n_frames) */
  uint32_t n_frames;
};

/* A global or static variable the module defines (not thread-local): its
 * address, its size (DataLayout's alloc size), its name in the source
 * (debug information) or else its symbol. */
struct pisa_global {
  const void *address;
  uint64_t size;
  const char *name;
  uint32_t file; /* index into the module's files, or PISA_INDEX_NONE */
  uint32_t line;
};

/* The most frames a heap site carries. */
#define PISA_MAX_HEAP_FRAMES 8u

/* A function of the module, or (n_blocks == 0) a function whose code is
 * only present inlined into others: blocks name it as their `source`. */
struct pisa_function {
  const char *name;    /* linkage name */
  const char *display; /* demangled name (equal to name for C) */
  const char *file;    /* source file from debug info, or NULL */
  uint32_t line;       /* 0 without debug info */
  uint32_t first_block;
  uint32_t n_blocks;
  uint32_t reserved;
};

struct pisa_module {
  uint32_t abi_version;
  uint32_t n_functions;
  uint32_t n_blocks;
  uint32_t n_instrs;
  uint32_t n_sites;
  uint32_t n_successors;
  uint32_t n_operands;
  uint32_t n_phis;
  uint32_t n_incoming; /* (block, source) pairs */
  uint32_t mode;       /* PISA_MODE_DEEP (0) for these tables */
  const char *name;    /* the module's source file name */
  /* The compilation directory (DICompileUnit's, else the compiler's working
   * directory): the base of name and of the functions' relative files. */
  const char *directory;
  const struct pisa_function *functions;
  const struct pisa_block *blocks;
  const struct pisa_instr *instrs;
  const struct pisa_site *sites;
  /* Loops and source lines (ABI 3); a module without them has zeros and
   * NULLs here. */
  uint32_t n_loops;
  uint32_t n_lines; /* line runs */
  uint32_t n_files;
  uint32_t reserved;
  const struct pisa_loop *loops;
  const uint32_t *block_loops; /* per block: its innermost loop, or NONE */
  const uint32_t *block_lines; /* n_blocks + 1 run indices, see pisa_line */
  const struct pisa_line *lines;
  const char *const *files;   /* source file names, as debug info spells them */
  const uint32_t *successors; /* module-local block ids */
  const uint32_t *operands;   /* sources, see PISA_SOURCE */
  const struct pisa_phi *phis;
  const uint32_t *incoming; /* pairs: module-local block, source */
  /* Written by the runtime at registration: PISA_REC_BLOCK | global id of
   * this module's block 0.  A block's BLOCK word is *block_base + local id. */
  uint64_t *block_base;
  /* Data objects (ABI 4). */
  uint32_t n_heap_sites;
  uint32_t n_frames;
  uint32_t n_globals;
  uint32_t reserved2;
  const struct pisa_heap_site *heap_sites;
  const struct pisa_frame *frames;
  const struct pisa_global *globals;
  /* Written by the runtime at registration: PISA_REC_BLOCK | PISA_REC_HEAP
   * | global id of this module's heap site 0; a heap event's first word is
   * *heap_base + local id. */
  uint64_t *heap_base;
};

#ifdef __cplusplus
extern "C" {
#endif
void __pisa_register_module(struct pisa_module *module);
uint64_t *__pisa_buffer_refill(uint64_t words);
#ifdef __cplusplus
}
#endif

/* ---- Counter mode (docs/counter-mode.md) ---------------------------------
 * pisa-cc --mode=counter runs the counter pass instead: no record words, a
 * thread-local array of 64-bit counters per module, and tables that say how
 * every block's execution count follows from the counters.  Blocks with the
 * same count form a set; a set's count is sum(coeff * counter) over its
 * terms (flow conservation derives most counts from a few counters).  The
 * module table lives in PISA_MARKER_SECTION like the deep one, and the
 * module carries the string PISA_COUNTER_MARKER so that pisa-char can tell a
 * counter build from a deep one before running it. */
#define PISA_MODE_DEEP 0u
#define PISA_MODE_COUNTER 1u
#define PISA_COUNTER_MARKER "pisa-char counter-mode module"
#define PISA_FN_COUNTER_REGISTER "__pisa_counter_register"
/* Called from the module's destructor: when a dlclose unloads it, the
 * runtime copies its tables and every thread's counters of it. */
#define PISA_FN_COUNTER_UNREGISTER "__pisa_counter_unregister"
/* Called (cold) by an instrumented function entered by a thread whose
 * PISA_TLS_COUNTER_THREAD flag is 0: the runtime learns about the thread. */
#define PISA_FN_COUNTER_THREAD "__pisa_counter_thread"
#define PISA_TLS_COUNTER_THREAD "__pisa_counter_thread_on"
/* pisa.h's PISA_ROI_BEGIN / PISA_ROI_END. */
#define PISA_FN_ROI_BEGIN "__pisa_roi_begin"
#define PISA_FN_ROI_END "__pisa_roi_end"
#define PISA_COUNTER_NONE UINT32_MAX

/* ---- Footprint builds (pisa-cc --mode=footprint; docs/counter-mode.md) ---
 * A counter-mode module whose table says PISA_MODE_FOOTPRINT also marks,
 * at every access, the bytes it touches in a shadow bitmap (one bit per
 * byte) of the (thread, function) that runs it.  A bitmap is a top table of
 * 2^PISA_FP_TOP_BITS chunk pointers, one per 2^PISA_FP_CHUNK_SHIFT bytes
 * of address space, each chunk 2^(PISA_FP_CHUNK_SHIFT - 3) shadow bytes
 * and PISA_FP_SLACK more for an access that crosses into the next chunk.
 * A function loads its top from its slot of the module's thread-local
 * array on entry, or gets it from PISA_FN_FP_TOP(slot, module table,
 * module-local function) when the slot is NULL; an access whose chunk
 * pointer is NULL gets it from PISA_FN_FP_CHUNK(top, address); accesses of
 * more than 64 bytes, memcpy, memset and the lanes of gathers and scatters
 * call PISA_FN_FP_MARK(top, address, bytes); an access of a loop whose
 * addresses ScalarEvolution knows before the loop is marked there, for all
 * iterations at once, by PISA_FN_FP_STRIDE. */
#define PISA_MODE_FOOTPRINT 2u
/* In footprint modules besides PISA_COUNTER_MARKER: pisa-char --mode
 * footprint looks for it. */
#define PISA_FOOTPRINT_MARKER "pisa-char footprint module"
#define PISA_FN_FP_TOP "__pisa_fp_top"
#define PISA_FN_FP_CHUNK "__pisa_fp_chunk"
#define PISA_FN_FP_MARK "__pisa_fp_mark"
/* Before a loop, for an access that runs once in each of its `count`
 * iterations at start, start + stride, ...: its bytes in all of them. */
#define PISA_FN_FP_STRIDE "__pisa_fp_stride"
#define PISA_FP_CHUNK_SHIFT 27
#define PISA_FP_TOP_BITS 21
#define PISA_FP_SLACK 64

struct pisa_counter_term {
  uint32_t counter; /* module-local counter index */
  int32_t coeff;
};

/* Access-count slots of a set (per execution). */
enum pisa_counter_access {
  PISA_ACC_LOADS,
  PISA_ACC_STORES,
  PISA_ACC_ATOMICS,
  PISA_ACC_MEMCPY,
  PISA_ACC_MEMSET,
  PISA_ACC_GATHERS,
  PISA_ACC_SCATTERS,
  PISA_ACC_COUNT
};

struct pisa_counter_set {
  uint32_t function;   /* module-local function */
  uint32_t n_blocks;   /* blocks in the set */
  uint32_t first_term; /* its count: terms[first_term..] */
  uint32_t n_terms;
  uint32_t first_instr; /* counted instructions of all its blocks */
  uint32_t n_instrs;
  uint32_t first_call; /* direct call sites: callee names at calls[] */
  uint32_t n_calls;
  uint32_t n_phis;
  uint32_t bytes_loaded; /* static bytes per execution (fixed-size) */
  uint32_t bytes_stored;
  uint32_t line; /* source line of its first block, 0 when unknown */
  uint32_t accesses[PISA_ACC_COUNT];
};

struct pisa_counter_function {
  const char *name;    /* linkage name */
  const char *display; /* demangled */
  const char *file;    /* or NULL */
  uint32_t line;
  uint32_t first_set;
  uint32_t n_sets;
  /* Counters of the run-time byte counts of memcpy/memmove (loaded and
   * stored), memset and gather/scatter: dyn_counter (loaded) and
   * dyn_counter + 1 (stored), PISA_COUNTER_NONE when it has none. */
  uint32_t dyn_counter;
};

struct pisa_counter_module {
  uint32_t abi_version;
  uint32_t mode; /* PISA_MODE_COUNTER or PISA_MODE_FOOTPRINT */
  uint32_t n_functions;
  uint32_t n_sets;
  uint32_t n_terms;
  uint32_t n_instrs;
  uint32_t n_calls;
  uint32_t n_counters;
  const char *name;
  const char *directory; /* as pisa_module's */
  const struct pisa_counter_function *functions;
  const struct pisa_counter_set *sets;
  const struct pisa_counter_term *terms;
  const struct pisa_instr *instrs;
  const char *const *calls;
  /* Per counter: PISA_COUNTER_NONE when it is incremented by 1, else the
   * module-local set whose count is the number of its increments (a loop
   * counter hoisted to the preheader adds the trip count at once). */
  const uint32_t *increments;
  /* The calling thread's counter array (n_counters words). */
  uint64_t *(*counters)(void);
};

#ifdef __cplusplus
extern "C" {
#endif
void __pisa_counter_register(const struct pisa_counter_module *module);
void __pisa_counter_unregister(const struct pisa_counter_module *module);
void __pisa_counter_thread(void);
void __pisa_roi_begin(const char *name);
void __pisa_roi_end(const char *name);
unsigned char **__pisa_fp_top(unsigned char ***slot,
                              const struct pisa_counter_module *module,
                              uint32_t function);
unsigned char *__pisa_fp_chunk(unsigned char **top, uint64_t address);
void __pisa_fp_mark(unsigned char **top, uint64_t address, uint64_t bytes);
void __pisa_fp_stride(unsigned char **top, uint64_t start, uint64_t count,
                      int64_t stride, uint64_t bytes);
#ifdef __cplusplus
}
#endif

#endif /* PISA_ABI_H */
