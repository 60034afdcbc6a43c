//===- Targets.cpp - what the pisa-char passes instrument -----------------===//
//
// The skip list both passes apply before they touch a function, and the
// check that keeps a module from being instrumented twice.
//
//===----------------------------------------------------------------------===//
#include "Targets.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/Function.h"

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

} // namespace pisa
