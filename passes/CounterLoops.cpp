//===- CounterLoops.cpp - counting loops by their trip count --------------===//
//
// A loop whose trip count ScalarEvolution knows at entry is counted once,
// before it, by that count: moved out of enclosing counted loops and
// multiplied by their counts while it stays invariant, so that a perfect
// nest of counted loops costs one addition per nest.
//
//===----------------------------------------------------------------------===//
#include "CounterPlan.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace pisa {

const SCEV *countedBackedges(Loop *L, ScalarEvolution &SE) {
  BasicBlock *Latch = L->getLoopLatch();
  if (!L->getLoopPredecessor() || !Latch || L->getExitingBlock() != Latch)
    return nullptr;
  // the loop might be left through a call
  if (any_of(L->blocks(), [](BasicBlock *BB) { return mayLeaveMidway(*BB); }))
    return nullptr;
  const SCEV *BTC = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(BTC) ||
      SE.getTypeSizeInBits(BTC->getType()) > 64)
    return nullptr;
  return SE.getNoopOrZeroExtend(BTC,
                                Type::getInt64Ty(L->getHeader()->getContext()));
}

const SCEV *LoopHoister::backedgeCount(Loop *L) {
  auto [It, New] = TripCache.try_emplace(L, nullptr);
  if (New)
    It->second = countedBackedges(L, C.SE);
  return It->second;
}

/// Where and by how much to count Amount executions per entry of L at
/// once: L's preheader, moved out of enclosing counted loops (times their
/// iterations) while Amount is invariant there and the preheader runs once
/// per enclosing iteration.  Without a dedicated preheader, on the edge
/// from L's predecessor (EdgeTo is then L's header, else null).  Null when
/// it cannot be expanded before L, or that edge cannot be counted.
const SCEV *LoopHoister::hoistTarget(Loop *L, const SCEV *Amount,
                                     BasicBlock *&At, BasicBlock *&EdgeTo) {
  ScalarEvolution &SE = C.SE;
  SCEVExpander Expander(SE, C.F.getParent()->getDataLayout(), "pisa.trips");
  At = L->getLoopPreheader();
  EdgeTo = At ? nullptr : L->getHeader();
  if (EdgeTo) {
    At = L->getLoopPredecessor();
    return edgeCountable(At, EdgeTo) &&
                   Expander.isSafeToExpandAt(Amount, At->getTerminator())
               ? Amount
               : nullptr;
  }
  std::vector<std::pair<const SCEV *, BasicBlock *>> Chain{{Amount, At}};
  for (Loop *Outer = C.LI.getLoopFor(At); Outer; Outer = C.LI.getLoopFor(At)) {
    const SCEV *OuterCount = backedgeCount(Outer);
    if (!OuterCount || !Outer->getLoopPreheader() ||
        !C.DT.dominates(At, Outer->getLoopLatch()) ||
        !SE.isLoopInvariant(Amount, Outer))
      break;
    Amount = SE.getMulExpr(
        Amount, SE.getAddExpr(OuterCount, SE.getOne(OuterCount->getType())));
    At = Outer->getLoopPreheader();
    Chain.push_back({Amount, At});
  }
  while (!Chain.empty() &&
         !Expander.isSafeToExpandAt(Chain.back().first,
                                    Chain.back().second->getTerminator()))
    Chain.pop_back();
  if (Chain.empty())
    return nullptr;
  At = Chain.back().second;
  return Chain.back().first;
}

/// The counter is incremented at At's end, or on the edge from At to
/// EdgeTo; its updates are counted as At's executions (exact for a
/// preheader, an upper bound for an edge; pisa_counter_module.increments).
std::optional<uint32_t> LoopHoister::hoist(Loop *L, bool Iterations, Plan &P) {
  const SCEV *Trips = backedgeCount(L);
  if (!Trips)
    return std::nullopt;
  if (Iterations)
    Trips = C.SE.getAddExpr(Trips, C.SE.getOne(Trips->getType()));
  BasicBlock *At, *EdgeTo;
  const SCEV *Amount = hoistTarget(L, Trips, At, EdgeTo);
  if (!Amount)
    return std::nullopt;
  uint32_t Counter = C.Ids.create();
  if (EdgeTo)
    P.Increments.push_back({Counter, nullptr, At, EdgeTo, Amount});
  else
    P.Increments.push_back(
        {Counter, At->getTerminator(), nullptr, nullptr, Amount});
  P.HoistSites.push_back({Counter, At});
  return Counter;
}

} // namespace pisa
