//===- DeepDataflow.cpp - the deep pass's dataflow tables -----------------===//
//
// Where each counted instruction's operands and each phi's incoming values
// come from (PISA_SOURCE in pisa/abi.h), and which of them update a loop
// index: what the ILP and BBLP schedules need to rebuild dependences.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"

using namespace llvm;

namespace pisa {

namespace {

/// Where V's value comes from (see PISA_SOURCE in pisa/abi.h).
uint32_t sourceOf(Value *V, const DeepTables &T) {
  for (;;) {
    if (auto *Phi = dyn_cast<PHINode>(V)) {
      auto It = T.PhiIndex.find(Phi);
      return It == T.PhiIndex.end() ? uint32_t(PISA_SRC_NONE)
                                    : PISA_SOURCE(PISA_SRC_PHI, It->second);
    }
    if (auto *A = dyn_cast<Argument>(V))
      return PISA_SOURCE(PISA_SRC_ARG, A->getArgNo());
    auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return uint32_t(PISA_SRC_NONE); // constants, globals, functions
    auto It = T.InstrIndex.find(I);
    if (It != T.InstrIndex.end())
      return PISA_SOURCE(PISA_SRC_INSTR, It->second);
    // An uncounted intrinsic passing a value on (llvm.expect, ...).
    auto *CB = dyn_cast<CallBase>(I);
    if (!CB || CB->arg_size() == 0)
      return uint32_t(PISA_SRC_NONE);
    V = CB->getArgOperand(0);
  }
}

/// A call's sources are all its arguments, then the callee; other
/// instructions list only the operands that have a source.
void recordOperands(uint32_t Index, DeepTables &T) {
  Instruction *Inst = T.InstrValues[Index];
  pisa_instr &D = T.Instrs[Index];
  D.first_operand = static_cast<uint32_t>(T.Operands.size());
  if (auto *CB = dyn_cast<CallBase>(Inst)) {
    for (Value *Arg : CB->args())
      T.Operands.push_back(sourceOf(Arg, T));
    T.Operands.push_back(sourceOf(CB->getCalledOperand(), T));
  } else {
    for (Value *Op : Inst->operands())
      if (uint32_t Src = sourceOf(Op, T))
        T.Operands.push_back(Src);
  }
  D.n_operands = static_cast<uint32_t>(T.Operands.size()) - D.first_operand;
}

void recordPhi(uint32_t Block, PHINode *Phi, DeepTables &T) {
  pisa_phi Entry = {Block, static_cast<uint32_t>(T.Incoming.size() / 2),
                    Phi->getNumIncomingValues(), 0};
  for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
    T.Incoming.push_back(T.BlockIds.lookup(Phi->getIncomingBlock(K)));
    T.Incoming.push_back(sourceOf(Phi->getIncomingValue(K), T));
  }
  T.Phis.push_back(Entry);
}

/// A header phi that ScalarEvolution sees as an add-recurrence of its loop
/// is an induction variable: it and the value fed back from inside the loop
/// form the index update cycle that the smart BBLP variant ignores.
void markIndexUpdates(LoopInfo &LI, ScalarEvolution &SE, DeepTables &T) {
  for (Loop *L : LI.getLoopsInPreorder())
    for (PHINode &Phi : L->getHeader()->phis()) {
      if (!SE.isSCEVable(Phi.getType()))
        continue;
      auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
      if (!AR || AR->getLoop() != L)
        continue;
      T.Phis[T.PhiIndex.lookup(&Phi)].flags |= PISA_INSTR_INDEX_UPDATE;
      for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K) {
        if (!L->contains(Phi.getIncomingBlock(K)))
          continue;
        auto *Step = dyn_cast<Instruction>(Phi.getIncomingValue(K));
        auto It = Step ? T.InstrIndex.find(Step) : T.InstrIndex.end();
        if (It != T.InstrIndex.end())
          T.Instrs[It->second].flags |= PISA_INSTR_INDEX_UPDATE;
      }
    }
}

} // namespace

void recordDataflow(uint32_t FirstBlock, FunctionAnalyses FA, DeepTables &T) {
  for (uint32_t B = FirstBlock; B < T.Blocks.size(); ++B) {
    const pisa_block &Table = T.Blocks[B].Table;
    for (uint32_t I = Table.first_instr; I < Table.first_instr + Table.n_instrs;
         ++I)
      recordOperands(I, T);
    for (uint32_t P = Table.first_phi; P < Table.first_phi + Table.n_phis; ++P)
      recordPhi(B, T.PhiValues[P], T);
  }
  markIndexUpdates(FA.LI, FA.SE, T);
}

} // namespace pisa
