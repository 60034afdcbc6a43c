//===- CounterPass.h - pisa-char counter-mode pass ------------------------===//
//
// The counter-mode pass class and its options; the workers it runs are
// declared in CounterPlan.h (where the counters go) and CounterTables.h
// (the tables, the increments, the emission).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_COUNTER_PASS_H
#define PISA_COUNTER_PASS_H

#include "llvm/IR/PassManager.h"

namespace pisa {

struct CounterOptions {
  /// Derive block counts by flow conservation (else one counter per set).
  bool Flow = true;
  /// Count counted loops' back edges at the preheader by their trip count.
  bool Hoist = true;
  /// Footprint build: every access also marks its bytes in a shadow bitmap
  /// (pisa-cc --mode=footprint, -pisa-mode=footprint).
  bool Footprint = false;

  /// The defaults, overridden by -pisa-counter-flow and -pisa-counter-hoist.
  static CounterOptions fromCommandLine();
};

/// Counter mode: thread-local block-set counters, loop trip counts hoisted
/// to preheaders, and the static tables that turn counters into a mix.
class PisaCounterPass : public llvm::PassInfoMixin<PisaCounterPass> {
public:
  explicit PisaCounterPass(
      CounterOptions Opts = CounterOptions::fromCommandLine())
      : Opts(Opts) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  CounterOptions Opts;
};

} // namespace pisa

#endif
