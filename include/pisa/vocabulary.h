/* pisa/vocabulary.h: the words every part of pisa-char shares: the metric
 * families that can be switched on and off, the instruction categories and
 * LLVM 19's opcode numbers and names.  Plain C, no dependencies; the metric
 * modules include only this of the contracts. */
#ifndef PISA_VOCABULARY_H
#define PISA_VOCABULARY_H

/* ---- Metric families that can be switched off -------------------------
 * pisa-char --metrics=LIST passes the enabled ones to the runtime as
 * PISA_METRICS=name,name,...  The instruction mix is always computed. */
#define PISA_FAMILIES(X)                                                       \
  X(FOOTPRINT, "footprint")                                                    \
  X(ENTROPY, "entropy")                                                        \
  X(REUSE, "reuse")       /* reuse_distance and miss_ratio */                  \
  X(LOCALITY, "locality") /* spatial_locality; needs reuse */                  \
  X(CLASSES, "classes")   /* access_classes */                                 \
  X(BRANCH, "branch")     /* branch behaviour */                               \
  X(ILP, "ilp")           /* ilp (per instruction window) and dlp */           \
  X(BBLP, "bblp")         /* bblp, bblp_smart and pbblp */

enum pisa_family_bit {
#define PISA_FAMILY_BIT(Id, Name) PISA_FAMILY_##Id##_BIT,
  PISA_FAMILIES(PISA_FAMILY_BIT)
#undef PISA_FAMILY_BIT
      PISA_FAMILY_COUNT
};
#define PISA_FAMILY(Id) (1u << PISA_FAMILY_##Id##_BIT)
#define PISA_FAMILIES_ALL ((1u << PISA_FAMILY_COUNT) - 1)

/* ---- Analysis modes ----------------------------------------------------
 * pisa-cc --mode=MODE builds for one, pisa-char --mode MODE runs it (the
 * runtime reads PISA_MODE). */
#define PISA_MODES(X)                                                          \
  X(DEEP, "deep")           /* every block and access: the full metric set */  \
  X(COUNTER, "counter")     /* block counters and regions, a few percent */    \
  X(FOOTPRINT, "footprint") /* counter, and every access's bytes marked */

/* ---- Bounds of the settings -------------------------------------------
 * pisa-char refuses options outside them before anything runs; the runtime
 * refuses the same values in its environment (PISA_*) and then does not
 * measure the run (docs/reliability.md). */
#define PISA_MAX_LINE_SIZE (1u << 20)      /* --line-sizes */
#define PISA_MAX_ENTROPY_BITS 40u          /* --entropy-bits */
#define PISA_MAX_ILP_WINDOWS 8             /* --ilp-windows: how many */
#define PISA_MAX_ILP_WINDOW 1048576u       /* --ilp-windows: each */
#define PISA_MAX_HW_COUNTERS 8             /* --hw-counters */
#define PISA_MAX_SAMPLE_EVERY (1u << 30)   /* --sample-every */
#define PISA_MAX_INTERVAL_MS 3600000u      /* --interval-ms: an hour */
#define PISA_MAX_ANALYSIS_THREADS 64u      /* --analysis-threads */
#define PISA_MIN_MEMORY_LIMIT (1ull << 20) /* --memory-limit */
#define PISA_MIN_SAMPLE_RATE 1e-6          /* --sample */
#define PISA_MAX_SNAPSHOT_INTERVAL 86400u  /* PISA_SNAPSHOT_INTERVAL, s */
#define PISA_SNAPSHOT_AUTO 0xffffffffu     /* PISA_SNAPSHOT_INTERVAL=auto */
#define PISA_MAX_INTERVAL_INSTRUCTIONS (1ull << 50) /* --intervals N */

/* ---- Hardware counters of counter mode (--hw-counters) -----------------
 * X(name, type, config) with linux/perf_event.h's PERF_TYPE_ and
 * PERF_COUNT_ prefixes left out; CACHE(name, cache, operation, result) for
 * the generalised cache events. */
#define PISA_HW_EVENTS(X, CACHE)                                               \
  X("instructions", HARDWARE, HW_INSTRUCTIONS)                                 \
  X("cycles", HARDWARE, HW_CPU_CYCLES)                                         \
  X("cache-misses", HARDWARE, HW_CACHE_MISSES)                                 \
  X("cache-references", HARDWARE, HW_CACHE_REFERENCES)                         \
  X("branches", HARDWARE, HW_BRANCH_INSTRUCTIONS)                              \
  X("branch-misses", HARDWARE, HW_BRANCH_MISSES)                               \
  CACHE("l1d-read-misses", HW_CACHE_L1D, HW_CACHE_OP_READ,                     \
        HW_CACHE_RESULT_MISS)                                                  \
  CACHE("llc-read-misses", HW_CACHE_LL, HW_CACHE_OP_READ,                      \
        HW_CACHE_RESULT_MISS)                                                  \
  X("task-clock", SOFTWARE, SW_TASK_CLOCK)                                     \
  X("page-faults", SOFTWARE, SW_PAGE_FAULTS)                                   \
  X("context-switches", SOFTWARE, SW_CONTEXT_SWITCHES)                         \
  X("cpu-migrations", SOFTWARE, SW_CPU_MIGRATIONS)

/* ---- Opcodes and categories (LLVM 19 numbering) ----------------------- */
enum pisa_category {
  PISA_CAT_MEMORY,
  PISA_CAT_INT,
  PISA_CAT_FP,
  PISA_CAT_BITWISE,
  PISA_CAT_CONVERSION,
  PISA_CAT_ADDRESS,
  PISA_CAT_CONTROL,
  PISA_CAT_VECTOR,
  PISA_CAT_OTHER,
  PISA_CAT_COUNT
};

#define PISA_CATEGORY_NAMES                                                    \
  {"memory",  "int",     "fp",     "bitwise", "conversion",                    \
   "address", "control", "vector", "other"}

/* The access-pattern classes as the documents name them, indexed by enum
 * pisa_access_class (pisa/abi.h): 0 irregular, 1 strided, 2 constant. */
#define PISA_ACCESS_CLASS_COUNT 3
#define PISA_ACCESS_CLASS_NAMES {"irregular", "strided", "constant"}
/* The same names in the order the command line shows them, most regular
 * first. */
#define PISA_ACCESS_CLASS_SHOWN {"constant", "strided", "irregular"}

/* X(number, name, category) for every LLVM 19 opcode; 58 and 59 are
 * pass-internal placeholders that never reach a module, so LLVM itself has
 * no name for them. */
#define PISA_OPCODES(X)                                                        \
  X(1, "ret", CONTROL)                                                         \
  X(2, "br", CONTROL)                                                          \
  X(3, "switch", CONTROL)                                                      \
  X(4, "indirectbr", CONTROL)                                                  \
  X(5, "invoke", CONTROL)                                                      \
  X(6, "resume", CONTROL)                                                      \
  X(7, "unreachable", CONTROL)                                                 \
  X(8, "cleanupret", CONTROL)                                                  \
  X(9, "catchret", CONTROL)                                                    \
  X(10, "catchswitch", CONTROL)                                                \
  X(11, "callbr", CONTROL)                                                     \
  X(12, "fneg", FP)                                                            \
  X(13, "add", INT)                                                            \
  X(14, "fadd", FP)                                                            \
  X(15, "sub", INT)                                                            \
  X(16, "fsub", FP)                                                            \
  X(17, "mul", INT)                                                            \
  X(18, "fmul", FP)                                                            \
  X(19, "udiv", INT)                                                           \
  X(20, "sdiv", INT)                                                           \
  X(21, "fdiv", FP)                                                            \
  X(22, "urem", INT)                                                           \
  X(23, "srem", INT)                                                           \
  X(24, "frem", FP)                                                            \
  X(25, "shl", BITWISE)                                                        \
  X(26, "lshr", BITWISE)                                                       \
  X(27, "ashr", BITWISE)                                                       \
  X(28, "and", BITWISE)                                                        \
  X(29, "or", BITWISE)                                                         \
  X(30, "xor", BITWISE)                                                        \
  X(31, "alloca", ADDRESS)                                                     \
  X(32, "load", MEMORY)                                                        \
  X(33, "store", MEMORY)                                                       \
  X(34, "getelementptr", ADDRESS)                                              \
  X(35, "fence", MEMORY)                                                       \
  X(36, "cmpxchg", MEMORY)                                                     \
  X(37, "atomicrmw", MEMORY)                                                   \
  X(38, "trunc", CONVERSION)                                                   \
  X(39, "zext", CONVERSION)                                                    \
  X(40, "sext", CONVERSION)                                                    \
  X(41, "fptoui", CONVERSION)                                                  \
  X(42, "fptosi", CONVERSION)                                                  \
  X(43, "uitofp", CONVERSION)                                                  \
  X(44, "sitofp", CONVERSION)                                                  \
  X(45, "fptrunc", CONVERSION)                                                 \
  X(46, "fpext", CONVERSION)                                                   \
  X(47, "ptrtoint", CONVERSION)                                                \
  X(48, "inttoptr", CONVERSION)                                                \
  X(49, "bitcast", CONVERSION)                                                 \
  X(50, "addrspacecast", CONVERSION)                                           \
  X(51, "cleanuppad", OTHER)                                                   \
  X(52, "catchpad", OTHER)                                                     \
  X(53, "icmp", INT)                                                           \
  X(54, "fcmp", FP)                                                            \
  X(55, "phi", OTHER)                                                          \
  X(56, "call", CONTROL)                                                       \
  X(57, "select", OTHER)                                                       \
  X(58, "<Invalid operator> ", OTHER)                                          \
  X(59, "<Invalid operator> ", OTHER)                                          \
  X(60, "va_arg", OTHER)                                                       \
  X(61, "extractelement", VECTOR)                                              \
  X(62, "insertelement", VECTOR)                                               \
  X(63, "shufflevector", VECTOR)                                               \
  X(64, "extractvalue", OTHER)                                                 \
  X(65, "insertvalue", OTHER)                                                  \
  X(66, "landingpad", OTHER)                                                   \
  X(67, "freeze", OTHER)

#define PISA_OPCODE_MAX 68 /* opcode numbers are < PISA_OPCODE_MAX */

#endif /* PISA_VOCABULARY_H */
