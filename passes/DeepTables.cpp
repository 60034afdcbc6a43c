//===- DeepTables.cpp - the deep pass's description of a function ---------===//
//
// Builds a function's rows of the deep tables: its blocks with their
// counted instructions, access and call sites (with MemGaze's access
// classes) and branch successors.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/CFG.h"

using namespace llvm;

namespace pisa {

namespace {

/// MemGaze's classes (docs/metrics.md): constant for a stack or global slot at
/// a fixed offset, strided for an affine add-recurrence with a constant step,
/// irregular for everything else.
uint8_t accessClass(Value *Ptr, const DataLayout &DL, ScalarEvolution &SE) {
  APInt Offset(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  const Value *Base = Ptr->stripAndAccumulateConstantOffsets(
      DL, Offset, /*AllowNonInbounds=*/true);
  if (isa<AllocaInst>(Base) || isa<GlobalVariable>(Base))
    return PISA_CLASS_CONSTANT;
  if (SE.isSCEVable(Ptr->getType()))
    if (const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Ptr)))
      if (AR->isAffine() && isa<SCEVConstant>(AR->getStepRecurrence(SE)))
        return PISA_CLASS_STRIDED;
  return PISA_CLASS_IRREGULAR;
}

/// Adds I to the instruction table, and to the site table when it is an
/// access or call site; the block's byte counts follow its sites.
void describeInstruction(Instruction &I, ScalarEvolution &SE, pisa_block &B,
                         DeepTables &T) {
  const DataLayout &DL = I.getModule()->getDataLayout();
  uint32_t Index = static_cast<uint32_t>(T.Instrs.size());
  T.Instrs.push_back(describeInstr(I, DL));
  T.InstrIndex[&I] = Index;
  T.InstrValues.push_back(&I);
  SiteInfo S;
  if (!classifySite(I, DL, S))
    return;
  S.Instr = Index;
  if (Value *P = sitePointer(S))
    S.Class = accessClass(P, DL, SE);
  addFixedBytes(S, B.bytes_loaded, B.bytes_stored);
  T.Sites.push_back(S);
  if (S.Kind == PISA_SITE_CALL)
    describeHeapCall(cast<CallBase>(I), T);
}

void describeBlock(BasicBlock &BB, uint32_t FnIndex, ScalarEvolution &SE,
                   DeepTables &T) {
  pisa_block B = {};
  B.function = FnIndex;
  B.first_instr = static_cast<uint32_t>(T.Instrs.size());
  B.first_site = static_cast<uint32_t>(T.Sites.size());
  B.first_phi = static_cast<uint32_t>(T.PhiValues.size());
  T.BlockLines.push_back(static_cast<uint32_t>(T.Lines.size()));
  for (Instruction &I : BB) {
    if (auto *Phi = dyn_cast<PHINode>(&I)) {
      ++B.n_phis;
      T.PhiIndex[Phi] = static_cast<uint32_t>(T.PhiValues.size());
      T.PhiValues.push_back(Phi);
      continue;
    }
    if (isCounted(I) && !T.Artificial.count(&I)) {
      describeInstruction(I, SE, B, T);
      recordLine(I, T);
    }
  }
  B.n_instrs = static_cast<uint32_t>(T.Instrs.size()) - B.first_instr;
  B.n_sites = static_cast<uint32_t>(T.Sites.size()) - B.first_site;
  B.first_successor = static_cast<uint32_t>(T.Successors.size());
  Instruction *Term = BB.getTerminator();
  auto *Br = dyn_cast<BranchInst>(Term);
  if ((Br && Br->isConditional()) || isa<SwitchInst>(Term))
    for (BasicBlock *Succ : successors(&BB))
      T.Successors.push_back(Succ);
  B.n_successors =
      static_cast<uint32_t>(T.Successors.size()) - B.first_successor;
  T.BlockIds[&BB] = static_cast<uint32_t>(T.Blocks.size());
  T.Blocks.push_back({&BB, B});
  T.BlockLoops.push_back(PISA_INDEX_NONE);
}

} // namespace

void describeFunction(Function &F, FunctionAnalyses FA, DeepTables &T) {
  DeepFunction Info;
  Info.Names = functionNames(F);
  Info.FirstBlock = static_cast<uint32_t>(T.Blocks.size());
  uint32_t FnIndex = static_cast<uint32_t>(T.Functions.size());
  for (BasicBlock &BB : F)
    describeBlock(BB, FnIndex, FA.SE, T);
  recordDataflow(Info.FirstBlock, FA, T);
  describeLoops(F, FnIndex, Info.FirstBlock, FA.LI, T);
  Info.NBlocks = static_cast<uint32_t>(T.Blocks.size()) - Info.FirstBlock;
  T.Functions.push_back(std::move(Info));
}

} // namespace pisa
