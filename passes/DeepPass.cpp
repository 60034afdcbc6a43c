//===- DeepPass.cpp - pisa-char deep-mode instrumentation -----------------===//
//
// The deep pass: checks the module, describes every function it instruments
// into the tables, makes the blocks write their records and emits the
// tables (see DeepTables.h for the workers).
//
//===----------------------------------------------------------------------===//
#include "DeepPass.h"
#include "DeepTables.h"
#include "Targets.h"

using namespace llvm;

namespace pisa {

namespace {

/// The runtime names opcodes by LLVM 19's numbering; a different LLVM must
/// not silently mislabel the instruction mix.
bool checkOpcodes(LLVMContext &Ctx) {
#define PISA_CHECK_OPCODE(Num, Name, Cat)                                      \
  if (StringRef(Instruction::getOpcodeName(Num)) != Name) {                    \
    Ctx.emitError(Twine("pisa: LLVM opcode ") + Twine(Num) + " is '" +         \
                  Instruction::getOpcodeName(Num) +                            \
                  "', the runtime expects '" + Name + "'");                    \
    return false;                                                              \
  }
  PISA_OPCODES(PISA_CHECK_OPCODE)
#undef PISA_CHECK_OPCODE
  return true;
}

} // namespace

PreservedAnalyses PisaDeepPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!checkNotInstrumented(M, {DeepModuleVar}) ||
      !checkOpcodes(M.getContext()))
    return PreservedAnalyses::all();
  std::vector<Function *> Targets = functionsToInstrument(M);
  if (Targets.empty())
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  DeepTables T;
  describeGlobals(M, T);
  for (Function *F : Targets) {
    if (splitAtRegionMarkers(*F, T.Artificial))
      FAM.invalidate(*F, PreservedAnalyses::none());
    describeFunction(*F,
                     {FAM.getResult<ScalarEvolutionAnalysis>(*F),
                      FAM.getResult<LoopAnalysis>(*F)},
                     T);
  }
  attributeSources(T);
  GlobalVariable *BlockBase = instrumentRecords(M, T);
  emitDeepTables(M, T, BlockBase);
  return PreservedAnalyses::none();
}

} // namespace pisa
