//===- DeepPass.h - pisa-char deep-mode pass ------------------------------===//
//
// The deep-mode pass class; the workers it runs are declared in
// DeepTables.h. docs/internals.md describes what it emits.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_DEEP_PASS_H
#define PISA_DEEP_PASS_H

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
