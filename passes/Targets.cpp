//===- Targets.cpp - what the pisa-char passes instrument -----------------===//
//
// The skip list both passes apply before they touch a function, and the
// check that keeps a module from being instrumented twice.
//
//===----------------------------------------------------------------------===//
#include "Targets.h"

#include "pisa/abi.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace pisa {

namespace {

/// Names of the runtime's own functions; never instrumented.
constexpr char PisaPrefix[] = "__pisa_";

bool shouldInstrument(Function &F) {
  if (F.isDeclaration() || F.hasAvailableExternallyLinkage())
    return false;
  if (F.getName().starts_with(PisaPrefix))
    return false;
  if (F.hasFnAttribute(Attribute::Naked) ||
      F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) ||
      F.hasFnAttribute("pisa-no-instrument"))
    return false;
  if (F.hasPersonalityFn() &&
      isScopedEHPersonality(classifyEHPersonality(F.getPersonalityFn()))) {
    F.getContext().diagnose(DiagnosticInfoUnsupported(
        F,
        "pisa: functions with funclet-based exception handling are not "
        "instrumented",
        DiagnosticLocation(), DS_Warning));
    return false;
  }
  return true;
}

} // namespace

bool checkNotInstrumented(Module &M, ArrayRef<StringRef> Descriptors) {
  for (StringRef Name : Descriptors)
    if (M.getNamedGlobal(Name)) {
      M.getContext().emitError("pisa: module '" + M.getModuleIdentifier() +
                               "' is already instrumented by pisa-char");
      return false;
    }
  return true;
}

std::vector<Function *> functionsToInstrument(Module &M) {
  std::vector<Function *> Targets;
  for (Function &F : M)
    if (shouldInstrument(F))
      Targets.push_back(&F);
  return Targets;
}

namespace {

bool isRegionMarker(const Instruction &I) {
  const auto *CI = dyn_cast<CallInst>(&I);
  const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
  return Callee && (Callee->getName() == PISA_FN_ROI_BEGIN ||
                    Callee->getName() == PISA_FN_ROI_END);
}

} // namespace

bool splitAtRegionMarkers(Function &F,
                          SmallPtrSetImpl<Instruction *> &Artificial) {
  std::vector<Instruction *> Markers;
  for (Instruction &I : instructions(F))
    if (isRegionMarker(I))
      Markers.push_back(&I);
  for (Instruction *Call : Markers) {
    BasicBlock *BB = Call->getParent();
    SplitBlock(BB, Call->getNextNode());
    Artificial.insert(BB->getTerminator());
  }
  return !Markers.empty();
}

} // namespace pisa
