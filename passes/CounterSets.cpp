//===- CounterSets.cpp - the counter pass's block sets --------------------===//
//
// Blocks with the same count expression form a set; a set's row holds its
// static instruction mix, fixed-size bytes and accesses, and the terms
// (counter, coefficient) whose sum is its execution count.
//
//===----------------------------------------------------------------------===//
#include "CounterTables.h"
#include "InstrInfo.h"

using namespace llvm;

namespace pisa {

namespace {

// Access sites and the set's access counts come in the same order.
static_assert(PISA_SITE_SCATTER - PISA_SITE_LOAD ==
                  PISA_ACC_SCATTERS - PISA_ACC_LOADS,
              "pisa_site_kind and pisa_access_kind line up");

/// Adds a site's access, fixed bytes or callee to the set's row; true when
/// its bytes are known only at run time (memcpy, memset, gather, scatter).
bool addSite(const SiteInfo &S, pisa_counter_set &Set, CounterTables &T) {
  if (S.Kind == PISA_SITE_CALL) {
    if (!S.Callee.empty()) {
      T.Calls.push_back(S.Callee.str());
      ++Set.n_calls;
    }
    return false;
  }
  ++Set.accesses[PISA_ACC_LOADS + (S.Kind - PISA_SITE_LOAD)];
  addFixedBytes(S, Set.bytes_loaded, Set.bytes_stored);
  return S.Kind >= PISA_SITE_MEMCPY;
}

/// Adds one block's static mix to its set's row.
void addBlockToSet(BasicBlock &BB, const SmallPtrSetImpl<Instruction *> &Skip,
                   pisa_counter_set &Set, bool &HasDyn, CounterTables &T) {
  const DataLayout &DL = BB.getModule()->getDataLayout();
  ++Set.n_blocks;
  for (Instruction &I : BB) {
    if (Skip.count(&I))
      continue;
    if (isa<PHINode>(I)) {
      ++Set.n_phis;
      continue;
    }
    if (!isCounted(I))
      continue;
    if (!Set.line)
      if (const DebugLoc &Loc = I.getDebugLoc())
        Set.line = Loc.getLine();
    T.Instrs.push_back(describeInstr(I, DL));
    SiteInfo S;
    if (classifySite(I, DL, S) && addSite(S, Set, T))
      HasDyn = true;
  }
}

} // namespace

void recordSets(Function &F, const Plan &P,
                const SmallPtrSetImpl<Instruction *> &Artificial,
                CounterTables &T) {
  CounterFunction Row;
  Row.Names = functionNames(F);
  Row.FirstSet = T.Sets.size();
  std::map<Expr, std::vector<BasicBlock *>> Groups;
  std::vector<const Expr *> Order;
  for (BasicBlock &BB : F) {
    auto It = P.Counts.find(&BB);
    if (It == P.Counts.end())
      continue; // unreachable
    auto &Members = Groups[It->second];
    if (Members.empty())
      Order.push_back(&Groups.find(It->second)->first);
    Members.push_back(&BB);
  }
  bool HasDyn = false;
  for (const Expr *E : Order) {
    pisa_counter_set Set = {};
    Set.function = T.Functions.size();
    Set.first_term = T.Terms.size();
    for (const auto &[Counter, Coeff] : *E)
      T.Terms.push_back({Counter, int32_t(Coeff)});
    Set.n_terms = T.Terms.size() - Set.first_term;
    Set.first_instr = T.Instrs.size();
    Set.first_call = T.Calls.size();
    for (BasicBlock *BB : Groups[*E]) {
      T.SetOfBlock[BB] = T.Sets.size();
      addBlockToSet(*BB, Artificial, Set, HasDyn, T);
    }
    Set.n_instrs = T.Instrs.size() - Set.first_instr;
    T.Sets.push_back(Set);
  }
  Row.NSets = T.Sets.size() - Row.FirstSet;
  if (HasDyn) {
    Row.DynCounter = T.Ids.create();
    T.Ids.create();
  }
  T.Functions.push_back(std::move(Row));
}

} // namespace pisa
