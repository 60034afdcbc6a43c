//===- CounterPass.cpp - pisa-char counter-mode instrumentation -----------===//
//
// Counter mode (docs/counter-mode.md): per function, a plan of
// thread-local 64-bit counters (CounterPlan.h), the tables giving each set
// of equally often executed blocks its static instruction mix, and the
// increments; then the module's tables (CounterTables.h).
//
//===----------------------------------------------------------------------===//
#include "CounterPass.h"
#include "CounterTables.h"
#include "Targets.h"

#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

static cl::opt<bool>
    ClFlow("pisa-counter-flow",
           cl::desc("derive block counts by flow conservation (otherwise "
                    "one counter per block)"),
           cl::Hidden, cl::init(true));
static cl::opt<bool>
    ClHoist("pisa-counter-hoist",
            cl::desc("count loop back edges at the preheader by their trip "
                     "count"),
            cl::Hidden, cl::init(true));

namespace pisa {

CounterOptions CounterOptions::fromCommandLine() {
  CounterOptions Opts;
  Opts.Flow = ClFlow;
  Opts.Hoist = ClHoist;
  return Opts;
}

namespace {

bool isRegionMarker(const Instruction &I) {
  const auto *CI = dyn_cast<CallInst>(&I);
  const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
  return Callee && (Callee->getName() == PISA_FN_ROI_BEGIN ||
                    Callee->getName() == PISA_FN_ROI_END);
}

/// A region starts or ends exactly at its marker: the block holding a
/// marker call is split after it, and the branch that joins the halves is
/// no instruction of the program (it goes to Artificial).
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

} // namespace

PreservedAnalyses PisaCounterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!checkNotInstrumented(M, {CounterModuleVar, DeepModuleVar}))
    return PreservedAnalyses::all();
  std::vector<Function *> Targets = functionsToInstrument(M);
  if (Targets.empty())
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  CounterRuntime RT = declareCounterRuntime(M);
  CounterTables T;
  SmallPtrSet<Instruction *, 8> Artificial; // terminators of split blocks
  for (Function *F : Targets) {
    bool Regions = splitAtRegionMarkers(*F, Artificial);
    FAM.invalidate(*F, PreservedAnalyses::none());
    auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
    PlanContext C{*F,
                  FAM,
                  SE,
                  FAM.getResult<LoopAnalysis>(*F),
                  FAM.getResult<DominatorTreeAnalysis>(*F),
                  Opts,
                  T.Ids};
    Plan P = planCounters(C, Regions);
    recordSets(*F, P, Artificial, T);
    instrumentCounters(*F, P, SE, RT, T);
    FAM.invalidate(*F, PreservedAnalyses::none());
  }
  emitCounterTables(M, RT, T);
  return PreservedAnalyses::none();
}

} // namespace pisa
