//===- PisaPass.h - pisa-char instrumentation passes ----------------------===//
//
// The pass classes registered by the plugin. The work is done by the
// instrumenter in PisaPass.cpp; see docs/internals.md for what it emits.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_PASS_H
#define PISA_PASS_H

#include "llvm/IR/PassManager.h"

namespace pisa {

/// Deep mode: report every basic-block entry and every memory access to the
/// runtime through the thread-local record buffer, and emit the module's
/// static tables with a constructor that registers them.
class PisaDeepPass : public llvm::PassInfoMixin<PisaDeepPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace pisa

#endif
