//===- CounterPlan.cpp - the counter pass's choice of plan ----------------===//
//
// Chooses between flow conservation and one counter per set of blocks, and
// makes the latter: blocks that run equally often share a counter, and
// loop spines are counted at their preheader.
//
//===----------------------------------------------------------------------===//
#include "CounterPlan.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>

using namespace llvm;

namespace pisa {

void addTo(Expr &Dst, const Expr &Src, int64_t Sign) {
  for (const auto &[Counter, Coeff] : Src)
    if ((Dst[Counter] += Sign * Coeff) == 0)
      Dst.erase(Counter);
}

Instruction *firstPoint(BasicBlock *BB) {
  BasicBlock::iterator It = BB->getFirstInsertionPt();
  while (isa<AllocaInst>(*It))
    ++It;
  return &*It;
}

bool mayLeaveMidway(const BasicBlock &BB) {
  return any_of(BB, [](const Instruction &I) {
    return isa<CallBase>(I) && (I.mayThrow() || !I.willReturn());
  });
}

bool edgeCountable(BasicBlock *Src, BasicBlock *Dst) {
  if (Src->getUniqueSuccessor() == Dst || Dst->getUniquePredecessor() == Src)
    return true;
  const Instruction *T = Src->getTerminator();
  return !Dst->isEHPad() && !isa<IndirectBrInst>(T) && !isa<CallBrInst>(T);
}

namespace {

/// Flow conservation needs every edge to be countable: no indirect branches,
/// no exception pads (their edges cannot be split).
bool flowApplies(Function &F, const CounterOptions &Opts) {
  if (!Opts.Flow)
    return false;
  for (BasicBlock &BB : F) {
    if (BB.isEHPad())
      return false;
    const Instruction *T = BB.getTerminator();
    if (isa<IndirectBrInst>(T) || isa<CallBrInst>(T) || isa<InvokeInst>(T))
      return false;
  }
  return true;
}

/// Without flow conservation, a counted loop's spine (the blocks of the
/// loop itself, not of inner loops, that dominate its latch: once per
/// iteration) is counted at the preheader by the number of iterations.
/// Loops holding region markers are never counted (the markers' calls may
/// not return, as far as the trip count knows).
DenseMap<Loop *, uint32_t> planSpines(PlanContext &C, Plan &P) {
  DenseMap<Loop *, uint32_t> Spines;
  if (!C.Opts.Hoist)
    return Spines;
  LoopHoister Hoister(C);
  for (Loop *L : C.LI.getLoopsInPreorder())
    if (std::optional<uint32_t> Counter = Hoister.hoist(L, true, P))
      Spines[L] = *Counter;
  return Spines;
}

/// One counter per set, at the entry of its first block, without flow
/// conservation.  Outside loops a block joins the set of an earlier block
/// that dominates it and that it post-dominates (both run at most once per
/// call, and one exactly when the other does) unless a call on the way may
/// leave the function (the blocks on the way from A to B are those that A
/// dominates and B post-dominates); blocks in loops, and every block of a
/// function with region markers (a region window must see exact block
/// entries), have a counter of their own.
void planBlocks(PlanContext &C, Plan &P, bool Regions) {
  PostDominatorTree *PDT =
      Regions ? nullptr : &C.FAM.getResult<PostDominatorTreeAnalysis>(C.F);
  DenseMap<Loop *, uint32_t> Spines = planSpines(C, P);
  std::vector<BasicBlock *> Leaving;
  for (BasicBlock &BB : C.F)
    if (mayLeaveMidway(BB))
      Leaving.push_back(&BB);
  auto JoinsLeader = [&](BasicBlock *A, BasicBlock *BB) {
    return C.DT.dominates(A, BB) && PDT->dominates(BB, A) &&
           none_of(Leaving, [&](BasicBlock *X) {
             return X != BB && C.DT.dominates(A, X) && PDT->dominates(BB, X);
           });
  };
  std::vector<BasicBlock *> Leaders;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&C.F)) {
    Loop *L = C.LI.getLoopFor(BB);
    auto Spine = L ? Spines.find(L) : Spines.end();
    if (Spine != Spines.end() && C.DT.dominates(BB, L->getLoopLatch())) {
      P.Counts[BB] = Expr{{Spine->second, 1}};
      continue;
    }
    bool Loose = !Regions && !L;
    auto Leader = std::find_if(Leaders.begin(), Leaders.end(), [&](auto *A) {
      return Loose && JoinsLeader(A, BB);
    });
    if (Leader != Leaders.end()) {
      // A copy: inserting BB may grow the map under a reference into it.
      P.Counts[BB] = P.Counts.lookup(*Leader);
      continue;
    }
    uint32_t Counter = C.Ids.create();
    P.Counts[BB] = Expr{{Counter, 1}};
    P.Increments.push_back({Counter, firstPoint(BB)});
    if (Loose)
      Leaders.push_back(BB);
  }
}

} // namespace

Plan planCounters(PlanContext &C, bool Regions) {
  Plan P;
  if (!Regions && flowApplies(C.F, C.Opts))
    planFlow(C, P);
  else
    planBlocks(C, P, Regions);
  return P;
}

} // namespace pisa
