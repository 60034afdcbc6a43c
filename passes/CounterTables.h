//===- CounterTables.h - the counter pass's tables and its workers --------===//
//
// The tables the counter pass builds for a module (pisa/abi.h) and the
// workers that fill them from a function's plan (CounterSets.cpp), put the
// plan's increments into the code (CounterInstrument.cpp) and emit them
// (CounterEmit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_COUNTER_TABLES_H
#define PISA_COUNTER_TABLES_H

#include "CounterPlan.h"
#include "InstrInfo.h"
#include "TableBuilder.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/GlobalVariable.h"

#include <string>
#include <vector>

namespace pisa {

struct CounterFunction {
  FunctionNames Names;
  uint32_t FirstSet = 0, NSets = 0, DynCounter = PISA_COUNTER_NONE;
};

/// A module's counters and tables, indexed module-locally.
struct CounterTables {
  CounterIds Ids;
  std::vector<CounterFunction> Functions;
  std::vector<pisa_counter_set> Sets;
  std::vector<pisa_counter_term> Terms;
  std::vector<pisa_instr> Instrs;
  std::vector<std::string> Calls;
  llvm::DenseMap<llvm::BasicBlock *, uint32_t> SetOfBlock;
};

/// Groups F's blocks by their count in P into sets, in block order, and
/// appends the function's row and its sets' static mixes to T. Artificial
/// instructions (the pass's own) are not part of any mix.
void recordSets(llvm::Function &F, const Plan &P,
                const llvm::SmallPtrSetImpl<llvm::Instruction *> &Artificial,
                CounterTables &T);

/// The variables and entry points of the runtime the counters use.
struct CounterRuntime {
  /// Every function indexes this placeholder; emitCounterTables() replaces
  /// it with the thread-local array once the number of counters is known.
  llvm::GlobalVariable *Placeholder = nullptr;
  llvm::GlobalVariable *ThreadFlag = nullptr;
  llvm::FunctionCallee ThreadStart;
  /// Footprint builds only (null otherwise): the placeholder of the
  /// functions' thread-local tops, of the module's descriptor, and the
  /// runtime's entry points (pisa/abi.h).
  llvm::GlobalVariable *FootprintTops = nullptr;
  llvm::GlobalVariable *FootprintModule = nullptr;
  llvm::FunctionCallee FootprintTop, FootprintChunk, FootprintMark,
      FootprintStride;
};

CounterRuntime declareCounterRuntime(llvm::Module &M, bool Footprint);

/// Puts P's increments into F (after recordSets), the run-time byte counts
/// of its memcpy, memset, gathers and scatters, and the new-thread check.
void instrumentCounters(llvm::Function &F, const Plan &P,
                        llvm::ScalarEvolution &SE, const CounterRuntime &RT,
                        CounterTables &T);

/// The access sites of F whose bytes a footprint build marks, taken before
/// the counters add accesses of their own.
std::vector<SiteInfo> footprintSites(llvm::Function &F);

/// Marks the bytes each of Sites touches in the shadow of the (thread, F),
/// F being the module's function Index (footprint builds); the analyses
/// describe F as it is (after the counters went in).
void instrumentFootprint(llvm::Function &F, const CounterRuntime &RT,
                         uint32_t Index, const std::vector<SiteInfo> &Sites,
                         llvm::ScalarEvolution &SE, llvm::LoopInfo &LI,
                         llvm::DominatorTree &DT);

/// Emits the thread-local counters in place of the placeholder, T, the
/// descriptor (CounterModuleVar), the counter-mode marker string and the
/// constructor that registers the descriptor.
void emitCounterTables(llvm::Module &M, const CounterRuntime &RT,
                       const CounterTables &T);

} // namespace pisa

#endif
