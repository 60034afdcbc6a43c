//===- CounterInstrument.cpp - the counter pass's increments --------------===//
//
// Puts a function's planned increments into its code (on a block, or on
// an edge), adds the run-time byte counts of memcpy, memset, gathers and
// scatters, and tells the runtime about a thread the first time it runs.
//
//===----------------------------------------------------------------------===//
#include "CounterTables.h"
#include "InstrInfo.h"
#include "Runtime.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace pisa {

namespace {

class CounterWriter {
public:
  CounterWriter(Function &F, const CounterRuntime &RT);

  void emitAdd(Instruction *Before, uint32_t Counter, Value *Amount);
  Instruction *insertionPoint(const Increment &Inc);
  void countDynamicBytes(uint32_t DynCounter);
  void checkThread();

private:
  Instruction *edgePoint(BasicBlock *Src, BasicBlock *Dst);

  Function &F;
  const CounterRuntime &RT;
  Type *I64;
  Value *FnCounters; // this function's thread-local array address
  // Where each edge's increments went: an edge is split once, and a second
  // increment on it (a flow counter and a hoisted trip count) joins the
  // first, since after the split Dst is no successor of Src.
  DenseMap<std::pair<BasicBlock *, BasicBlock *>, Instruction *> EdgePoints;
};

CounterWriter::CounterWriter(Function &F, const CounterRuntime &RT)
    : F(F), RT(RT), I64(Type::getInt64Ty(F.getContext())) {
  IRBuilder<> B(firstPoint(&F.getEntryBlock()));
  FnCounters = B.CreateThreadLocalAddress(RT.Placeholder);
}

void CounterWriter::emitAdd(Instruction *Before, uint32_t Counter,
                            Value *Amount) {
  IRBuilder<> B(Before);
  // Indexed off the placeholder; the real array's type is known at the end.
  Value *Slot = B.CreateConstInBoundsGEP1_64(I64, FnCounters, Counter);
  Value *Old = B.CreateLoad(I64, Slot, "pisa.ctr");
  B.CreateStore(B.CreateAdd(Old, Amount ? Amount : B.getInt64(1)), Slot);
}

Instruction *CounterWriter::insertionPoint(const Increment &Inc) {
  if (Inc.Before)
    return Inc.Before;
  auto [It, New] = EdgePoints.try_emplace({Inc.Src, Inc.Dst}, nullptr);
  if (New)
    It->second = edgePoint(Inc.Src, Inc.Dst);
  return It->second;
}

/// An edge's increment goes where only that edge passes: the end of a
/// source with one successor, the start of a target with one predecessor,
/// or a block of its own on a critical edge (the plan puts increments only
/// on edges where edgeCountable() holds).
Instruction *CounterWriter::edgePoint(BasicBlock *Src, BasicBlock *Dst) {
  if (Src->getUniqueSuccessor() == Dst)
    return Src->getTerminator();
  if (Dst->getUniquePredecessor() == Src)
    return firstPoint(Dst);
  BasicBlock *Mid = SplitCriticalEdge(
      Src->getTerminator(), GetSuccessorNumber(Src, Dst),
      CriticalEdgeSplittingOptions().setMergeIdenticalEdges());
  if (!Mid) {
    F.getContext().emitError("pisa: cannot place a counter on an edge of " +
                             F.getName());
    return Src->getTerminator();
  }
  return Mid->getTerminator();
}

/// memcpy/memmove add their length to both byte counters, memset to the
/// stored one, gathers and scatters their active lanes times the size.
void CounterWriter::countDynamicBytes(uint32_t DynCounter) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<SiteInfo> Sites;
  for (Instruction &I : instructions(F)) {
    SiteInfo S;
    if (isCounted(I) && classifySite(I, DL, S) &&
        (S.Kind == PISA_SITE_MEMCPY || S.Kind == PISA_SITE_MEMSET ||
         S.Kind == PISA_SITE_GATHER || S.Kind == PISA_SITE_SCATTER))
      Sites.push_back(S);
  }
  for (const SiteInfo &S : Sites) {
    auto *CB = cast<CallBase>(S.I);
    IRBuilder<> B(S.I);
    if (S.Kind == PISA_SITE_MEMCPY || S.Kind == PISA_SITE_MEMSET) {
      Value *Len = B.CreateZExtOrTrunc(CB->getArgOperand(2), I64);
      if (S.Kind == PISA_SITE_MEMCPY)
        emitAdd(S.I, DynCounter, Len);
      emitAdd(S.I, DynCounter + 1, Len);
      continue;
    }
    bool Gather = S.Kind == PISA_SITE_GATHER;
    Value *Mask = CB->getArgOperand(Gather ? 2 : 3);
    Value *Bits = B.CreateBitCast(Mask, B.getIntNTy(S.Lanes));
    Value *Active = B.CreateZExtOrTrunc(
        B.CreateUnaryIntrinsic(Intrinsic::ctpop, Bits), I64);
    emitAdd(S.I, DynCounter + (Gather ? 0 : 1),
            B.CreateMul(Active, B.getInt64(S.Size)));
  }
}

/// Functions a new thread can enter first (visible outside the module or
/// called through a pointer) tell the runtime about the thread once.
void CounterWriter::checkThread() {
  if (F.hasLocalLinkage() && !F.hasAddressTaken())
    return;
  Instruction *At = cast<Instruction>(FnCounters)->getNextNode();
  IRBuilder<> B(At);
  Value *Flag =
      B.CreateLoad(B.getInt8Ty(), B.CreateThreadLocalAddress(RT.ThreadFlag));
  Value *New = B.CreateICmpEQ(Flag, B.getInt8(0));
  IRBuilder<>(splitRarePath(New, At)).CreateCall(RT.ThreadStart);
}

} // namespace

CounterRuntime declareCounterRuntime(Module &M, bool Footprint) {
  LLVMContext &Ctx = M.getContext();
  auto *Empty = ArrayType::get(Type::getInt64Ty(Ctx), 0);
  CounterRuntime RT;
  RT.Placeholder = new GlobalVariable(
      M, Empty, false, GlobalValue::InternalLinkage,
      ConstantAggregateZero::get(Empty), "__pisa_counters_tmp", nullptr,
      GlobalValue::GeneralDynamicTLSModel);
  RT.ThreadFlag =
      declareRuntimeTLS(M, Type::getInt8Ty(Ctx), PISA_TLS_COUNTER_THREAD);
  RT.ThreadStart =
      declareColdRuntimeFn(M, PISA_FN_COUNTER_THREAD, Type::getVoidTy(Ctx), {});
  if (!Footprint)
    return RT;
  auto *Ptr = PointerType::getUnqual(Ctx);
  auto *I64 = Type::getInt64Ty(Ctx);
  auto *NoTops = ArrayType::get(Ptr, 0);
  RT.FootprintTops = new GlobalVariable(
      M, NoTops, false, GlobalValue::InternalLinkage,
      ConstantAggregateZero::get(NoTops), "__pisa_fp_tops_tmp", nullptr,
      GlobalValue::GeneralDynamicTLSModel);
  RT.FootprintModule = new GlobalVariable(
      M, Type::getInt8Ty(Ctx), true, GlobalValue::InternalLinkage,
      ConstantInt::get(Type::getInt8Ty(Ctx), 0), "__pisa_fp_module_tmp");
  RT.FootprintTop = declareColdRuntimeFn(M, PISA_FN_FP_TOP, Ptr,
                                         {Ptr, Ptr, Type::getInt32Ty(Ctx)});
  RT.FootprintChunk =
      declareColdRuntimeFn(M, PISA_FN_FP_CHUNK, Ptr, {Ptr, I64});
  RT.FootprintMark = M.getOrInsertFunction(
      PISA_FN_FP_MARK,
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, I64, I64}, false),
      AttributeList().addFnAttribute(Ctx, Attribute::NoUnwind));
  RT.FootprintStride = M.getOrInsertFunction(
      PISA_FN_FP_STRIDE,
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, I64, I64, I64, I64}, false),
      AttributeList().addFnAttribute(Ctx, Attribute::NoUnwind));
  return RT;
}

void instrumentCounters(Function &F, const Plan &P, ScalarEvolution &SE,
                        const CounterRuntime &RT, CounterTables &T) {
  CounterWriter Writer(F, RT);
  // Trip counts are expanded before any edge is split: ScalarEvolution
  // describes the function as it was analysed.
  SCEVExpander Expander(SE, F.getParent()->getDataLayout(), "pisa.trips");
  std::vector<Value *> Amounts;
  for (const Increment &Inc : P.Increments)
    Amounts.push_back(
        Inc.Amount ? Expander.expandCodeFor(
                         Inc.Amount, Type::getInt64Ty(F.getContext()),
                         Inc.Before ? Inc.Before : Inc.Src->getTerminator())
                   : nullptr);
  for (auto &[Counter, At] : P.HoistSites)
    T.Ids.IncrementSets[Counter] = T.SetOfBlock.lookup(At);
  std::vector<Instruction *> Points;
  for (const Increment &Inc : P.Increments)
    Points.push_back(Writer.insertionPoint(Inc));
  for (unsigned I = 0; I < P.Increments.size(); ++I)
    Writer.emitAdd(Points[I], P.Increments[I].Counter, Amounts[I]);
  uint32_t DynCounter = T.Functions.back().DynCounter;
  if (DynCounter != PISA_COUNTER_NONE)
    Writer.countDynamicBytes(DynCounter);
  Writer.checkThread();
}

} // namespace pisa
