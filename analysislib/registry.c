/* registry.c: the global tables of every instrumented module of the
 * process.  Modules register from their constructors (and from dlopen);
 * each module's pass tables are translated once, there, into the metrics'
 * description of the program (program.h) with global ids and resolved
 * frame slots.  Blocks and functions live in reserved address space, so
 * they never move and decoders and engines on any thread read them without
 * locks. */
#include "objects.h"
#include "runtime.h"

#include <stdlib.h>
#include <sys/mman.h>

#define PISA_MAX_BLOCKS (UINT32_C(1) << 25)
#define PISA_MAX_FUNCTIONS (UINT32_C(1) << 22)
#define PISA_MAX_LOOPS (UINT32_C(1) << 22)

PISA_HIDDEN struct program_block *pisa_blocks;
PISA_HIDDEN struct program_function *pisa_functions;
PISA_HIDDEN struct program pisa_program;
PISA_HIDDEN struct program_loop *pisa_loops;
PISA_HIDDEN struct program_block_source *pisa_block_sources;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t n_blocks, n_functions, n_loops;

static void *reserve(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

PISA_HIDDEN void pisa_registry_init(void) {
  pthread_mutex_lock(&registry_lock);
  if (!pisa_blocks) {
    pisa_blocks = reserve(PISA_MAX_BLOCKS * sizeof *pisa_blocks);
    pisa_functions = reserve(PISA_MAX_FUNCTIONS * sizeof *pisa_functions);
    pisa_loops = reserve(PISA_MAX_LOOPS * sizeof *pisa_loops);
    pisa_block_sources = reserve(PISA_MAX_BLOCKS * sizeof *pisa_block_sources);
    if (!pisa_blocks || !pisa_functions || !pisa_loops || !pisa_block_sources)
      PISA_ERR("cannot reserve the block tables");
    pisa_program = (struct program){pisa_blocks, pisa_functions,
                                    pisa_block_sources, pisa_loops};
  }
  pthread_mutex_unlock(&registry_lock);
}

PISA_HIDDEN uint32_t pisa_block_count(void) {
  return atomic_load_explicit(&n_blocks, memory_order_acquire);
}

PISA_HIDDEN uint32_t pisa_function_count(void) {
  return atomic_load_explicit(&n_functions, memory_order_acquire);
}

PISA_HIDDEN uint32_t pisa_loop_count(void) {
  return atomic_load_explicit(&n_loops, memory_order_acquire);
}

/* ---- The metrics' description of a module (program.h) ----
 * The ABI's enumerations are the program's, so sites are copied. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(PROGRAM_SITE_LOAD, PISA_SITE_LOAD) &&
                   SAME(PROGRAM_SITE_STORE, PISA_SITE_STORE) &&
                   SAME(PROGRAM_SITE_RMW, PISA_SITE_RMW) &&
                   SAME(PROGRAM_SITE_MEMCPY, PISA_SITE_MEMCPY) &&
                   SAME(PROGRAM_SITE_MEMSET, PISA_SITE_MEMSET) &&
                   SAME(PROGRAM_SITE_GATHER, PISA_SITE_GATHER) &&
                   SAME(PROGRAM_SITE_SCATTER, PISA_SITE_SCATTER) &&
                   SAME(PROGRAM_SITE_CALL, PISA_SITE_CALL),
               "site kinds");
_Static_assert(SAME(PROGRAM_CLASS_IRREGULAR, PISA_CLASS_IRREGULAR) &&
                   SAME(PROGRAM_CLASS_STRIDED, PISA_CLASS_STRIDED) &&
                   SAME(PROGRAM_CLASS_CONSTANT, PISA_CLASS_CONSTANT),
               "access classes");
_Static_assert(SAME(PROGRAM_INSTR_VECTOR, PISA_INSTR_VECTOR) &&
                   SAME(PROGRAM_INSTR_INDEX_UPDATE, PISA_INSTR_INDEX_UPDATE),
               "instruction flags");
#undef SAME

/* A module's translation: its tables and scratch. */
struct translation {
  const struct pisa_module *m;
  uint32_t b0; /* global id of its block 0 */
  struct program_instr *instrs;
  struct program_site *sites;
  uint64_t *site_sizes; /* the sites' columns (program_block) */
  uint8_t *site_kinds, *site_classes;
  struct program_phi *phis;
  struct program_line *lines;
  uint32_t *successors, *operands, *incoming;
  char *strings; /* where the next copied name goes */
  /* Per module-local function: its first instruction and phi. */
  uint32_t *instr_base, *phi_base;
};

/* ---- Names: copied, as a module may be unloaded (dlclose) ---- */
static size_t string_size(const char *s) { return s ? strlen(s) + 1 : 0; }

/* The bytes of the module's names: module, functions, direct callees,
 * source files. */
static size_t strings_size(const struct pisa_module *m) {
  size_t bytes = string_size(m->name) + string_size(m->directory);
  for (uint32_t i = 0; m->files && i < m->n_files; i++)
    bytes += string_size(m->files[i]);
  for (uint32_t i = 0; i < m->n_functions; i++)
    bytes += string_size(m->functions[i].name) +
             string_size(m->functions[i].display) +
             string_size(m->functions[i].file);
  for (uint32_t b = 0; b < m->n_blocks; b++) /* the sites translated */
    for (uint32_t j = 0; j < m->blocks[b].n_sites; j++)
      bytes += string_size(m->sites[m->blocks[b].first_site + j].callee);
  return bytes;
}

/* A copy of s among the kept names (NULL stays NULL). */
static const char *keep_string(struct translation *x, const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *copy = memcpy(x->strings, s, n);
  x->strings += n;
  return copy;
}

PISA_HIDDEN struct program_instr
pisa_program_instr(const struct pisa_instr *in) {
  /* The pass's category: an arithmetic intrinsic is a call by opcode but
   * fp, int or bitwise work by category. */
  uint8_t category = in->category < PISA_CAT_COUNT
                         ? in->category
                         : (uint8_t)program_category(in->opcode);
  return (struct program_instr){.opcode = in->opcode,
                                .category = category,
                                .flags = in->flags,
                                .lanes = in->lanes,
                                .bits = in->bits,
                                .site = PROGRAM_NONE};
}

/* 1 + the highest parameter a source names, or so_far. */
static uint32_t args_used(uint32_t src, uint32_t so_far) {
  uint32_t index = src & PISA_SRC_INDEX_MASK;
  return src >> PISA_SRC_KIND_SHIFT == PISA_SRC_ARG && index + 1 > so_far
             ? index + 1
             : so_far;
}

/* The operands of a module instruction that its table really holds. */
static uint32_t operands_held(const struct pisa_module *m,
                              const struct pisa_instr *in) {
  if (!m->operands || in->first_operand > m->n_operands)
    return 0;
  uint32_t room = m->n_operands - in->first_operand;
  return in->n_operands < room ? in->n_operands : room;
}

/* The function's frame: its instructions and phis are contiguous in the
 * module's tables, in block order, then its parameters.  Tables a module
 * does not carry (hand-built or truncated) give no dependencies rather
 * than wild reads. */
static void describe_frame(struct translation *x, uint32_t fn,
                           struct program_function *pf) {
  const struct pisa_module *m = x->m;
  const struct pisa_function *f = &m->functions[fn];
  if (!f->n_blocks)
    return;
  const struct pisa_block *first = &m->blocks[f->first_block];
  x->instr_base[fn] = first->first_instr;
  x->phi_base[fn] = first->first_phi;
  for (uint32_t b = f->first_block; b < f->first_block + f->n_blocks; b++) {
    pf->n_instrs += m->blocks[b].n_instrs;
    pf->n_phis += m->blocks[b].n_phis;
  }
  if (!m->phis || x->phi_base[fn] + (uint64_t)pf->n_phis > m->n_phis)
    pf->n_phis = 0;
  for (uint32_t k = 0; k < pf->n_instrs; k++) {
    const struct pisa_instr *in = &m->instrs[x->instr_base[fn] + k];
    for (uint32_t j = 0; j < operands_held(m, in); j++)
      pf->n_args = args_used(m->operands[in->first_operand + j], pf->n_args);
  }
  for (uint32_t p = 0; m->incoming && p < pf->n_phis; p++) {
    const struct pisa_phi *phi = &m->phis[x->phi_base[fn] + p];
    for (uint32_t k = 0; k < phi->n_incoming; k++)
      pf->n_args = args_used(
          m->incoming[2 * ((size_t)phi->first_incoming + k) + 1], pf->n_args);
  }
}

/* The frame slot a source names in function fn (module-local), or
 * PROGRAM_NONE: instructions first, then phis, then parameters. */
static uint32_t source_slot(const struct translation *x, uint32_t fn,
                            const struct program_function *pf, uint32_t src) {
  uint32_t index = src & PISA_SRC_INDEX_MASK;
  switch (src >> PISA_SRC_KIND_SHIFT) {
  case PISA_SRC_INSTR:
    index -= x->instr_base[fn];
    return index < pf->n_instrs ? index : PROGRAM_NONE;
  case PISA_SRC_PHI:
    index -= x->phi_base[fn];
    return index < pf->n_phis ? pf->n_instrs + index : PROGRAM_NONE;
  case PISA_SRC_ARG:
    return index < pf->n_args ? pf->n_instrs + pf->n_phis + index
                              : PROGRAM_NONE;
  default:
    return PROGRAM_NONE;
  }
}

/* The block's instructions and their operands' slots; operands are
 * numbered from the block's first instruction's. */
static void translate_instrs(struct translation *x, const struct pisa_block *b,
                             uint32_t fn, const struct program_function *pf,
                             struct program_block *pb) {
  const struct pisa_module *m = x->m;
  uint32_t base = b->n_instrs ? m->instrs[b->first_instr].first_operand : 0;
  pb->instrs = x->instrs + b->first_instr;
  pb->operands = x->operands + (base < m->n_operands ? base : 0);
  for (uint32_t k = 0; k < b->n_instrs; k++) {
    const struct pisa_instr *in = &m->instrs[b->first_instr + k];
    struct program_instr *out = &x->instrs[b->first_instr + k];
    *out = pisa_program_instr(in);
    int after = in->first_operand >= base;
    uint32_t held = after ? operands_held(m, in) : 0;
    out->first_operand = after ? in->first_operand - base : 0;
    out->n_operands = held;
    for (uint32_t j = 0; j < held; j++)
      x->operands[in->first_operand + j] =
          source_slot(x, fn, pf, m->operands[in->first_operand + j]);
  }
}

/* Its sites, with block-relative instructions (and the instructions' own
 * site numbers). */
static void translate_sites(struct translation *x, const struct pisa_block *b,
                            struct program_block *pb) {
  pb->sites = x->sites + b->first_site;
  pb->site_sizes = x->site_sizes + b->first_site;
  pb->site_kinds = x->site_kinds + b->first_site;
  pb->site_classes = x->site_classes + b->first_site;
  for (uint32_t j = 0; j < b->n_sites; j++) {
    const struct pisa_site *in = &x->m->sites[b->first_site + j];
    uint32_t k = in->instr - b->first_instr;
    x->site_sizes[b->first_site + j] = in->size;
    x->site_kinds[b->first_site + j] = in->kind;
    x->site_classes[b->first_site + j] = in->access_class;
    x->sites[b->first_site + j] =
        (struct program_site){.kind = in->kind,
                              .access_class = in->access_class,
                              .lanes = in->lanes,
                              .size = in->size,
                              .instr = k,
                              .callee = keep_string(x, in->callee)};
    if (k < b->n_instrs && x->instrs[b->first_instr + k].site == PROGRAM_NONE)
      x->instrs[b->first_instr + k].site = j;
  }
  for (uint32_t j = b->n_sites, run = 0; j-- > 0;) {
    struct program_site *site = &x->sites[b->first_site + j];
    run = site->kind - 1u < PROGRAM_SITE_RMW ? run + 1 : 0;
    site->fixed_run = run;
  }
}

/* Its phis (when the module carries their dataflow) with global
 * predecessors, and its successors as global ids. */
static void translate_edges(struct translation *x, const struct pisa_block *b,
                            uint32_t fn, const struct program_function *pf,
                            struct program_block *pb) {
  const struct pisa_module *m = x->m;
  if (pf->n_phis && m->incoming) {
    pb->phis = x->phis + b->first_phi;
    pb->incoming = x->incoming;
  }
  for (uint32_t p = 0; pb->phis && p < b->n_phis; p++) {
    const struct pisa_phi *phi = &m->phis[b->first_phi + p];
    uint32_t n = phi->first_incoming > m->n_incoming
                     ? 0
                     : m->n_incoming - phi->first_incoming;
    n = phi->n_incoming < n ? phi->n_incoming : n;
    x->phis[b->first_phi + p] =
        (struct program_phi){.first_incoming = phi->first_incoming,
                             .n_incoming = n,
                             .flags = phi->flags};
    for (size_t k = 2 * (size_t)phi->first_incoming;
         k < 2 * ((size_t)phi->first_incoming + n); k += 2) {
      x->incoming[k] = x->b0 + m->incoming[k];
      x->incoming[k + 1] = source_slot(x, fn, pf, m->incoming[k + 1]);
    }
  }
  pb->successors = x->successors + b->first_successor;
  if (!m->successors)
    pb->n_successors = 0;
  for (uint32_t k = 0; k < pb->n_successors; k++)
    x->successors[b->first_successor + k] =
        x->b0 + m->successors[b->first_successor + k];
}

static void translate_block(struct translation *x, uint32_t local,
                            uint32_t f0) {
  const struct pisa_block *b = &x->m->blocks[local];
  const struct program_function *pf = &pisa_functions[f0 + b->function];
  struct program_block *pb = &pisa_blocks[x->b0 + local];
  *pb = (struct program_block){
      .function = f0 + b->function,
      .source = f0 + (b->source < x->m->n_functions && !pisa_config.frames_only
                          ? b->source
                          : b->function),
      .first_slot = b->first_instr - x->instr_base[b->function],
      .phi_slot = pf->n_instrs + b->first_phi - x->phi_base[b->function],
      .n_instrs = b->n_instrs,
      .n_sites = b->n_sites,
      .n_phis = b->n_phis,
      .n_successors = b->n_successors,
      .bytes_loaded = b->bytes_loaded,
      .bytes_stored = b->bytes_stored};
  translate_instrs(x, b, b->function, pf, pb);
  translate_sites(x, b, pb);
  translate_edges(x, b, b->function, pf, pb);
}

/* The line runs a module carries (0 without a line table). */
static uint32_t lines_held(const struct pisa_module *m) {
  return m->lines && m->block_lines ? m->n_lines : 0;
}

/* A module-local index into a table of n entries as a global one, or
 * PROGRAM_NONE when it is none of them. */
static uint32_t global_index(uint32_t local, uint32_t n, uint32_t base) {
  return local < n ? base + local : PROGRAM_NONE;
}

/* The block's loop (global) and its line runs, when the module has them. */
static void translate_block_source(struct translation *x, uint32_t local,
                                   const char *const *files, uint32_t l0) {
  const struct pisa_module *m = x->m;
  struct program_block_source *bs = &pisa_block_sources[x->b0 + local];
  *bs = (struct program_block_source){.loop = PROGRAM_NONE,
                                      .entry_loop = PROGRAM_NONE};
  if (m->block_loops)
    bs->loop = global_index(m->block_loops[local], m->n_loops, l0);
  if (!lines_held(m))
    return;
  uint32_t first = m->block_lines[local], end = m->block_lines[local + 1];
  if (first > end || end > m->n_lines)
    return;
  bs->lines = x->lines + first;
  bs->n_lines = end - first;
  for (uint32_t r = first; r < end; r++) {
    const struct pisa_line *in = &m->lines[r];
    x->lines[r] = (struct program_line){
        .file = in->file < m->n_files ? files[in->file] : NULL,
        .line = in->line,
        .n_instrs = in->n_instrs};
  }
}

/* The module's loops at global ids from l0 on; the header of a loop
 * without a preheader is marked (program_block_source.entry_loop). */
static void translate_loops(const struct pisa_module *m,
                            const char *const *files, uint32_t f0, uint32_t b0,
                            uint32_t l0) {
  for (uint32_t i = 0; m->loops && i < m->n_loops; i++) {
    const struct pisa_loop *in = &m->loops[i];
    pisa_loops[l0 + i] = (struct program_loop){
        .function = f0 + in->function,
        .source =
            f0 + (in->source < m->n_functions ? in->source : in->function),
        .parent = global_index(in->parent, i, l0),
        .header = b0 + in->header,
        .preheader = global_index(in->preheader, m->n_blocks, b0),
        .depth = in->depth,
        .first_line = in->first_line,
        .last_line = in->last_line,
        .file = in->file < m->n_files ? files[in->file] : NULL};
    if (pisa_loops[l0 + i].preheader == PROGRAM_NONE &&
        in->header < m->n_blocks)
      pisa_block_sources[b0 + in->header].entry_loop = l0 + i;
  }
}

/* Every module's translated tables, one allocation each, kept for the
 * life of the process: a module may be unloaded (dlclose) before the result
 * is written, so nothing here points into it, names included. */
struct kept_tables {
  struct kept_tables *next;
  uint64_t tables[]; /* sites, instrs, phis, the uint32 arrays, names */
};
static struct kept_tables *kept_tables;

/* The translation's arrays (zeroed) carved from one block, and the
 * per-function scratch; -1 when memory ran out. */
static int translation_alloc(struct translation *x) {
  const struct pisa_module *m = x->m;
  size_t words32 = m->n_successors + m->n_operands + 2 * (size_t)m->n_incoming;
  size_t bytes =
      m->n_sites * (sizeof *x->sites + sizeof *x->site_sizes +
                    sizeof *x->site_kinds + sizeof *x->site_classes) +
      m->n_instrs * sizeof *x->instrs + m->n_phis * sizeof *x->phis +
      lines_held(m) * sizeof *x->lines + words32 * sizeof(uint32_t) +
      strings_size(m);
  struct kept_tables *k = calloc(1, sizeof *k + bytes);
  x->instr_base = calloc(m->n_functions + 1, sizeof *x->instr_base);
  x->phi_base = calloc(m->n_functions + 1, sizeof *x->phi_base);
  if (!k || !x->instr_base || !x->phi_base) {
    free(k);
    return -1;
  }
  /* The arrays of 8-byte members first (each size a multiple of 8, so
   * each keeps the alignment), the 4-byte ones next, the bytes last. */
  x->sites = (struct program_site *)k->tables;
  x->site_sizes = (uint64_t *)(x->sites + m->n_sites);
  x->lines = (struct program_line *)(x->site_sizes + m->n_sites);
  x->instrs = (struct program_instr *)(x->lines + lines_held(m));
  x->phis = (struct program_phi *)(x->instrs + m->n_instrs);
  x->successors = (uint32_t *)(x->phis + m->n_phis);
  x->operands = x->successors + m->n_successors;
  x->incoming = x->operands + m->n_operands;
  x->site_kinds = (uint8_t *)(x->incoming + 2 * (size_t)m->n_incoming);
  x->site_classes = x->site_kinds + m->n_sites;
  x->strings = (char *)(x->site_classes + m->n_sites);
  k->next = kept_tables;
  kept_tables = k;
  return 0;
}

static void translation_free(struct translation *x) {
  free(x->instr_base);
  free(x->phi_base);
}

/* Writes the module's functions, blocks and loops at global ids f0, b0
 * and l0. */
static int translate_module(const struct pisa_module *m, uint32_t f0,
                            uint32_t b0, uint32_t l0) {
  struct translation x = {.m = m, .b0 = b0};
  const char **files = calloc(m->n_files + 1, sizeof *files);
  if (!files || translation_alloc(&x)) {
    free(files);
    translation_free(&x);
    return -1;
  }
  for (uint32_t i = 0; m->files && i < m->n_files; i++)
    files[i] = keep_string(&x, m->files[i]);
  const char *module = keep_string(&x, m->name);
  const char *directory = keep_string(&x, m->directory);
  for (uint32_t i = 0; i < m->n_functions; i++) {
    const struct pisa_function *f = &m->functions[i];
    struct program_function *pf = &pisa_functions[f0 + i];
    *pf = (struct program_function){.name = keep_string(&x, f->name),
                                    .display = keep_string(&x, f->display),
                                    .file = keep_string(&x, f->file),
                                    .module = module,
                                    .directory = directory,
                                    .line = f->line,
                                    .first_block = b0 + f->first_block,
                                    .n_blocks = f->n_blocks};
    describe_frame(&x, i, pf);
  }
  for (uint32_t i = 0; i < m->n_blocks; i++) {
    translate_block(&x, i, f0);
    translate_block_source(&x, i, files, l0);
  }
  translate_loops(m, files, f0, b0, l0);
  int failed = pisa_objects_register(m, files);
  free(files);
  translation_free(&x);
  return failed;
}

__attribute__((visibility("default"))) void
__pisa_register_module(struct pisa_module *m) {
  if (pisa_abi_mismatch(m->name, m->abi_version))
    return;
  pisa_registry_init();
  pthread_mutex_lock(&registry_lock);
  uint32_t b0 = atomic_load_explicit(&n_blocks, memory_order_relaxed);
  uint32_t f0 = atomic_load_explicit(&n_functions, memory_order_relaxed);
  uint32_t l0 = atomic_load_explicit(&n_loops, memory_order_relaxed);
  uint32_t loops = m->loops ? m->n_loops : 0;
  if (!pisa_blocks || b0 + m->n_blocks > PISA_MAX_BLOCKS ||
      f0 + m->n_functions > PISA_MAX_FUNCTIONS || l0 + loops > PISA_MAX_LOOPS) {
    pthread_mutex_unlock(&registry_lock);
    PISA_ERR("too many instrumented blocks; module %s is not analysed",
             m->name);
    return;
  }
  if (translate_module(m, f0, b0, l0)) {
    pthread_mutex_unlock(&registry_lock);
    PISA_ERR("out of memory; module %s is not analysed", m->name);
    return;
  }
  atomic_store_explicit(&n_functions, f0 + m->n_functions,
                        memory_order_release);
  atomic_store_explicit(&n_loops, l0 + loops, memory_order_release);
  atomic_store_explicit(&n_blocks, b0 + m->n_blocks, memory_order_release);
  /* Published last: from now on the module's records carry valid ids. */
  __atomic_store_n(m->block_base, PISA_REC_BLOCK | b0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&registry_lock);
}
