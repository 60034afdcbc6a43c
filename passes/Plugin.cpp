//===- Plugin.cpp - the pisa-char pass plugin -----------------------------===//
//
// Registers the passes with the new pass manager: the pipelines pisa-deep
// and pisa-counter for opt, and the pass that clang -fpass-plugin runs last
// (chosen by -mllvm -pisa-mode).
//
//===----------------------------------------------------------------------===//
#include "CounterPass.h"
#include "DeepPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<std::string>
    ClMode("pisa-mode",
           cl::desc("instrumentation run by clang -fpass-plugin: deep, "
                    "counter or footprint"),
           cl::Hidden, cl::init("deep"));

/// Whether -mllvm -pisa-mode=counter or =footprint was given (pisa-cc
/// --mode=counter or --mode=footprint).
static bool counterModeSelected() {
  if (ClMode == "counter" || ClMode == "footprint")
    return true;
  if (ClMode != "deep")
    report_fatal_error("pisa: -pisa-mode must be deep, counter or footprint");
  return false;
}

static bool parsePipeline(StringRef Name, ModulePassManager &MPM,
                          ArrayRef<PassBuilder::PipelineElement>) {
  if (Name == "pisa-counter" || Name == "pisa-footprint") {
    pisa::CounterOptions Opts = pisa::CounterOptions::fromCommandLine();
    Opts.Footprint = Name == "pisa-footprint";
    MPM.addPass(pisa::PisaCounterPass(Opts));
    return true;
  }
  if (Name != "pisa-deep")
    return false;
  MPM.addPass(pisa::PisaDeepPass());
  return true;
}

/// clang -fpass-plugin: instrument the optimised code, last.
static void addOptimizerLast(ModulePassManager &MPM, OptimizationLevel) {
  if (counterModeSelected()) {
    pisa::CounterOptions Opts = pisa::CounterOptions::fromCommandLine();
    Opts.Footprint = ClMode == "footprint";
    MPM.addPass(pisa::PisaCounterPass(Opts));
  } else
    MPM.addPass(pisa::PisaDeepPass());
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "pisa-char", "0.1.0", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(parsePipeline);
            PB.registerOptimizerLastEPCallback(addOptimizerLast);
          }};
}
