//===- CounterPlan.h - where the counter pass puts its counters -----------===//
//
// A function's plan: every block's count as a sum of counters, and the
// increments that produce them. Made by flow conservation over a spanning
// tree (CounterFlow.cpp) or one counter per set of blocks (CounterPlan.cpp),
// with loops counted at their entry by their trip count (CounterLoops.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_COUNTER_PLAN_H
#define PISA_COUNTER_PLAN_H

#include "CounterPass.h"

#include "pisa/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace pisa {

/// A count as sum(coeff * counter).
using Expr = std::map<uint32_t, int64_t>;

/// Dst += Sign * Src.
void addTo(Expr &Dst, const Expr &Src, int64_t Sign);

/// Where a counter is incremented and by how much.
struct Increment {
  uint32_t Counter;
  llvm::Instruction *Before = nullptr; // or, when null, on the edge Src -> Dst
  llvm::BasicBlock *Src = nullptr, *Dst = nullptr;
  const llvm::SCEV *Amount = nullptr; // null: 1
};

/// One function's plan: block counts and the increments that produce them.
struct Plan {
  llvm::DenseMap<llvm::BasicBlock *, Expr> Counts;
  std::vector<Increment> Increments;
  std::vector<std::pair<uint32_t, llvm::BasicBlock *>>
      HoistSites; // counter, at
};

/// The module's counters in the order they are made, with the set whose
/// executions count each one's updates (pisa_counter_module.increments).
struct CounterIds {
  uint32_t N = 0;
  std::vector<uint32_t> IncrementSets;

  uint32_t create() {
    IncrementSets.push_back(PISA_COUNTER_NONE);
    return N++;
  }
};

/// Where a block's own increments go: after its phis, landing pad and, in
/// the entry block, its allocas (which must stay static).
llvm::Instruction *firstPoint(llvm::BasicBlock *BB);

/// Whether the function may be left from inside BB rather than through its
/// terminator: a call in BB may throw, or may not return (exit, longjmp).
/// A block's count is its entries (as in deep mode), so flow conservation
/// and shared counters must allow for such blocks.
bool mayLeaveMidway(const llvm::BasicBlock &BB);

/// Whether an increment can go on the edge Src -> Dst: at the end of Src,
/// the start of Dst, or in a block that splits the edge. An edge into an
/// exception pad cannot be split (the pad must stay the unwind target) and
/// neither can one out of an indirectbr or callbr (its targets are
/// addresses the program or the asm took).
bool edgeCountable(llvm::BasicBlock *Src, llvm::BasicBlock *Dst);

/// The back-edge count of a loop entered from outside by one edge, whose
/// only exit is its latch and whose calls all return: ScalarEvolution's
/// exact count, as i64; else null. Counted loops (LoopHoister) and loops
/// marked ahead in footprint builds (FootprintInstrument.cpp) both need it.
const llvm::SCEV *countedBackedges(llvm::Loop *L, llvm::ScalarEvolution &SE);

/// What planning one function needs.
struct PlanContext {
  llvm::Function &F;
  llvm::FunctionAnalysisManager &FAM;
  llvm::ScalarEvolution &SE;
  llvm::LoopInfo &LI;
  llvm::DominatorTree &DT;
  const CounterOptions &Opts;
  CounterIds &Ids;
};

/// Counts a loop's trips once, before the loop, by ScalarEvolution's count.
class LoopHoister {
public:
  explicit LoopHoister(PlanContext &C) : C(C) {}

  /// A new counter to which L's preheader (or the edge into L) adds L's
  /// back-edge count, or with Iterations its iteration count; none when
  /// that count is not known before L.
  std::optional<uint32_t> hoist(llvm::Loop *L, bool Iterations, Plan &P);

private:
  const llvm::SCEV *backedgeCount(llvm::Loop *L);
  const llvm::SCEV *hoistTarget(llvm::Loop *L, const llvm::SCEV *Amount,
                                llvm::BasicBlock *&At,
                                llvm::BasicBlock *&EdgeTo);

  PlanContext &C;
  llvm::DenseMap<llvm::Loop *, const llvm::SCEV *> TripCache;
};

/// gcov's scheme: counters on the edges outside a maximum spanning tree.
void planFlow(PlanContext &C, Plan &P);

/// The plan for C.F: flow conservation where every edge can be counted,
/// else one counter per set of blocks (always so with region markers).
Plan planCounters(PlanContext &C, bool Regions);

} // namespace pisa

#endif
