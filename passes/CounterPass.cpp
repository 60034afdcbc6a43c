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
#include "llvm/Support/CommandLine.h"

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

PreservedAnalyses PisaCounterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!checkNotInstrumented(M, {CounterModuleVar, DeepModuleVar}))
    return PreservedAnalyses::all();
  std::vector<Function *> Targets = functionsToInstrument(M);
  if (Targets.empty())
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  CounterRuntime RT = declareCounterRuntime(M, Opts.Footprint);
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
    std::vector<SiteInfo> Sites;
    if (Opts.Footprint)
      Sites = footprintSites(*F);
    recordSets(*F, P, Artificial, T);
    instrumentCounters(*F, P, SE, RT, T);
    FAM.invalidate(*F, PreservedAnalyses::none());
    if (Opts.Footprint && !Sites.empty()) {
      instrumentFootprint(*F, RT, T.Functions.size() - 1, Sites,
                          FAM.getResult<ScalarEvolutionAnalysis>(*F),
                          FAM.getResult<LoopAnalysis>(*F),
                          FAM.getResult<DominatorTreeAnalysis>(*F));
      FAM.invalidate(*F, PreservedAnalyses::none());
    }
  }
  emitCounterTables(M, RT, T);
  return PreservedAnalyses::none();
}

} // namespace pisa
