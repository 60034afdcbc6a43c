//===- CounterPass.h - pisa-char counter-mode pass ------------------------===//
//
// The counter-mode pass class (CounterPass.cpp) and the -pisa-mode switch
// that decides which pass clang's -fpass-plugin runs.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_COUNTER_PASS_H
#define PISA_COUNTER_PASS_H

#include "llvm/IR/PassManager.h"

namespace pisa {

/// Counter mode: thread-local block-set counters, loop trip counts hoisted
/// to preheaders, and the static tables that turn counters into a mix.
class PisaCounterPass : public llvm::PassInfoMixin<PisaCounterPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// Whether -mllvm -pisa-mode=counter was given (pisa-cc --mode=counter).
bool counterModeSelected();

} // namespace pisa

#endif
