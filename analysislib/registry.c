/* registry.c: the global tables of every instrumented module of the
 * process.  Modules register from their constructors (and from dlopen);
 * tables live in reserved address space so they never move and decoders on
 * other threads read them without locks. */
#include "runtime.h"

#include <sys/mman.h>

#define PISA_MAX_BLOCKS (UINT32_C(1) << 25)
#define PISA_MAX_FUNCTIONS (UINT32_C(1) << 22)

PISA_HIDDEN struct pisa_gblock *pisa_blocks;
PISA_HIDDEN struct pisa_gfunction *pisa_functions;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t n_blocks, n_functions;

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
    if (!pisa_blocks || !pisa_functions)
      PISA_ERR("cannot reserve the block tables");
  }
  pthread_mutex_unlock(&registry_lock);
}

PISA_HIDDEN uint32_t pisa_block_count(void) {
  return atomic_load_explicit(&n_blocks, memory_order_acquire);
}

PISA_HIDDEN uint32_t pisa_function_count(void) {
  return atomic_load_explicit(&n_functions, memory_order_acquire);
}

/* The function's frame layout for the schedules: its instructions and
 * phis are contiguous in the module's tables, in block order. */
static void describe_frame(struct pisa_gfunction *gf) {
  const struct pisa_function *f = gf->table;
  const struct pisa_module *m = gf->module;
  if (!f->n_blocks)
    return;
  const struct pisa_block *first = &m->blocks[f->first_block];
  gf->instr_base = first->first_instr;
  gf->phi_base = first->first_phi;
  for (uint32_t b = f->first_block; b < f->first_block + f->n_blocks; b++) {
    gf->n_instrs += m->blocks[b].n_instrs;
    gf->n_phis += m->blocks[b].n_phis;
  }
  /* Tables a module does not carry (hand-built or truncated) give no
   * dependencies rather than wild reads. */
  if (!m->phis || gf->phi_base + (uint64_t)gf->n_phis > m->n_phis)
    gf->n_phis = 0;
  for (uint32_t k = 0; m->operands && k < gf->n_instrs; k++) {
    const struct pisa_instr *in = &m->instrs[gf->instr_base + k];
    if (in->first_operand + (uint64_t)in->n_operands <= m->n_operands)
      gf->n_args = sched_args_used(m->operands + in->first_operand,
                                   in->n_operands, gf->n_args);
  }
  for (uint32_t p = 0; m->incoming && p < gf->n_phis; p++) {
    const struct pisa_phi *phi = &m->phis[gf->phi_base + p];
    for (uint32_t k = 0; k < phi->n_incoming; k++)
      gf->n_args = sched_args_used(
          m->incoming + 2 * ((size_t)phi->first_incoming + k) + 1, 1,
          gf->n_args);
  }
}

__attribute__((visibility("default"))) void
__pisa_register_module(struct pisa_module *m) {
  if (pisa_abi_mismatch(m->name, m->abi_version))
    return;
  pisa_registry_init();
  pthread_mutex_lock(&registry_lock);
  uint32_t b0 = atomic_load_explicit(&n_blocks, memory_order_relaxed);
  uint32_t f0 = atomic_load_explicit(&n_functions, memory_order_relaxed);
  if (!pisa_blocks || b0 + m->n_blocks > PISA_MAX_BLOCKS ||
      f0 + m->n_functions > PISA_MAX_FUNCTIONS) {
    pthread_mutex_unlock(&registry_lock);
    PISA_ERR("too many instrumented blocks; module %s is not analysed",
             m->name);
    return;
  }
  for (uint32_t i = 0; i < m->n_functions; i++) {
    const struct pisa_function *f = &m->functions[i];
    pisa_functions[f0 + i] = (struct pisa_gfunction){
        .table = f, .module = m, .first_block = b0 + f->first_block};
    describe_frame(&pisa_functions[f0 + i]);
  }
  for (uint32_t i = 0; i < m->n_blocks; i++) {
    const struct pisa_block *b = &m->blocks[i];
    pisa_blocks[b0 + i] =
        (struct pisa_gblock){.table = b,
                             .sites = m->sites + b->first_site,
                             .instrs = m->instrs + b->first_instr,
                             .successors = m->successors + b->first_successor,
                             .function = f0 + b->function,
                             .module_first_block = b0};
  }
  atomic_store_explicit(&n_functions, f0 + m->n_functions,
                        memory_order_release);
  atomic_store_explicit(&n_blocks, b0 + m->n_blocks, memory_order_release);
  /* Published last: from now on the module's records carry valid ids. */
  __atomic_store_n(m->block_base, PISA_REC_BLOCK | b0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&registry_lock);
}
