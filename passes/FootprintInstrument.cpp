//===- FootprintInstrument.cpp - footprint builds' shadow marks -----------===//
//
// pisa-cc --mode=footprint (docs/counter-mode.md, pisa/abi.h): on top of
// the counters, every access sets the bits of the bytes it touches in the
// shadow bitmap of the (thread, function) that runs it. The function loads
// its bitmap's top table once, on entry. Then, in this order of preference:
//
// - an access of a loop that runs in every iteration at an address that
//   ScalarEvolution knows as start + i * stride before the loop is marked
//   there, for all iterations at once (a call of the runtime per entry of
//   the loop, not per access);
// - an access at the same address as an access that dominates it, and no
//   larger, is not marked again (the bits are set already);
// - every other access costs a load of its chunk pointer, a test, and one
//   shadow store (a load, an or and a store when it covers part of a
//   shadow byte).
//
//===----------------------------------------------------------------------===//
#include "CounterTables.h"
#include "InstrInfo.h"
#include "Runtime.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

static cl::opt<bool>
    ClHoist("pisa-footprint-hoist",
            cl::desc("footprint builds: mark the accesses of loops whose "
                     "addresses are known before the loop there, and skip "
                     "accesses covered by another"),
            cl::Hidden, cl::init(true));

namespace pisa {

namespace {

constexpr uint64_t TopMask = (uint64_t(1) << PISA_FP_TOP_BITS) - 1;
constexpr uint64_t ChunkBytes = uint64_t(1)
                                << (PISA_FP_CHUNK_SHIFT - 3); // shadow bytes

class FootprintWriter {
public:
  FootprintWriter(Function &F, const CounterRuntime &RT, uint32_t Index);
  void markSite(const SiteInfo &S);
  void markStride(Instruction *At, Value *Start, Value *Count, Value *Step,
                  uint32_t Size);

private:
  Value *chunkOf(IRBuilder<> &B, Value *Addr);
  void markFixed(Instruction *At, Value *Ptr, uint32_t Size);
  void markRange(Instruction *At, Value *Addr, Value *Len);
  void markLanes(const SiteInfo &S);

  Function &F;
  const CounterRuntime &RT;
  Type *I64, *PtrTy;
  Value *Top = nullptr;
};

/// On entry: the top from the function's thread-local slot, or from the
/// runtime the first time this thread runs the function.
FootprintWriter::FootprintWriter(Function &F, const CounterRuntime &RT,
                                 uint32_t Index)
    : F(F), RT(RT), I64(Type::getInt64Ty(F.getContext())),
      PtrTy(PointerType::getUnqual(F.getContext())) {
  Instruction *At = firstPoint(&F.getEntryBlock());
  IRBuilder<> B(At);
  Value *Slot = B.CreateConstInBoundsGEP1_64(
      PtrTy, B.CreateThreadLocalAddress(RT.FootprintTops), Index);
  LoadInst *Loaded = B.CreateLoad(PtrTy, Slot, "pisa.fp.top");
  Value *Missing = B.CreateICmpEQ(Loaded, Constant::getNullValue(PtrTy));
  Instruction *Rare = splitRarePath(Missing, At);
  IRBuilder<> R(Rare);
  CallInst *Made = R.CreateCall(RT.FootprintTop,
                                {Slot, RT.FootprintModule, R.getInt32(Index)});
  IRBuilder<> J(At);
  PHINode *Phi = J.CreatePHI(PtrTy, 2, "pisa.fp.top");
  Phi->addIncoming(Loaded, Loaded->getParent());
  Phi->addIncoming(Made, Made->getParent());
  Top = Phi;
}

/// The chunk holding Addr's shadow, from the runtime when it is not made.
Value *FootprintWriter::chunkOf(IRBuilder<> &B, Value *Addr) {
  Value *Index = B.CreateAnd(B.CreateLShr(Addr, PISA_FP_CHUNK_SHIFT), TopMask);
  Value *Entry = B.CreateInBoundsGEP(PtrTy, Top, Index);
  LoadInst *Chunk = B.CreateLoad(PtrTy, Entry, "pisa.fp.chunk");
  Value *Missing = B.CreateICmpEQ(Chunk, Constant::getNullValue(PtrTy));
  Instruction *At = &*B.GetInsertPoint();
  Instruction *Rare = splitRarePath(Missing, At);
  IRBuilder<> R(Rare);
  CallInst *Made = R.CreateCall(RT.FootprintChunk, {Top, Addr});
  B.SetInsertPoint(At);
  PHINode *Phi = B.CreatePHI(PtrTy, 2, "pisa.fp.chunk");
  Phi->addIncoming(Chunk, Chunk->getParent());
  Phi->addIncoming(Made, Made->getParent());
  return Phi;
}

/// An access of Size bytes at Ptr: its bits set inline.
void FootprintWriter::markFixed(Instruction *At, Value *Ptr, uint32_t Size) {
  if (Size == 0)
    return;
  IRBuilder<> B(At);
  Value *Addr = B.CreatePtrToInt(Ptr, I64);
  if (Size > 64) {
    markRange(At, Addr, B.getInt64(Size));
    return;
  }
  Value *Chunk = chunkOf(B, Addr);
  Value *Off = B.CreateAnd(B.CreateLShr(Addr, 3), ChunkBytes - 1);
  Value *Shadow = B.CreateInBoundsGEP(B.getInt8Ty(), Chunk, Off);
  // The Size bits from Addr % 8 on, in the smallest integer that holds
  // them wherever Addr % 8 is, or-ed into the shadow. The IR's alignment
  // is not trusted: C code reads misaligned words through aligned types
  // (undefined, and common), and the bytes it touches are what counts.
  uint64_t Need = Size + 7;
  unsigned Bits = Need <= 8    ? 8
                  : Need <= 16 ? 16
                  : Need <= 32 ? 32
                  : Need <= 64 ? 64
                               : 128;
  Type *Ty = B.getIntNTy(Bits);
  Value *Ones = ConstantInt::get(Ty, APInt::getLowBitsSet(Bits, Size));
  Value *Shift = B.CreateZExtOrTrunc(B.CreateAnd(Addr, 7), Ty);
  Value *Mask = B.CreateShl(Ones, Shift);
  Value *Old = B.CreateAlignedLoad(Ty, Shadow, Align(1));
  B.CreateAlignedStore(B.CreateOr(Old, Mask), Shadow, Align(1));
}

void FootprintWriter::markRange(Instruction *At, Value *Addr, Value *Len) {
  IRBuilder<> B(At);
  B.CreateCall(RT.FootprintMark, {Top, Addr, B.CreateZExtOrTrunc(Len, I64)});
}

void FootprintWriter::markStride(Instruction *At, Value *Start, Value *Count,
                                 Value *Step, uint32_t Size) {
  IRBuilder<> B(At);
  B.CreateCall(RT.FootprintStride, {Top, Start, Count, Step, B.getInt64(Size)});
}

/// A gather's or scatter's active lanes, each in the runtime.
void FootprintWriter::markLanes(const SiteInfo &S) {
  auto *CB = cast<CallBase>(S.I);
  bool Gather = S.Kind == PISA_SITE_GATHER;
  Value *Ptrs = CB->getArgOperand(Gather ? 0 : 1);
  Value *Mask = CB->getArgOperand(Gather ? 2 : 3);
  for (unsigned L = 0; L < S.Lanes; ++L) {
    IRBuilder<> B(S.I);
    Value *On = B.CreateExtractElement(Mask, L);
    Instruction *Then = SplitBlockAndInsertIfThen(On, S.I, false);
    IRBuilder<> T(Then);
    Value *Addr = T.CreatePtrToInt(T.CreateExtractElement(Ptrs, L), I64);
    T.CreateCall(RT.FootprintMark, {Top, Addr, T.getInt64(S.Size)});
  }
}

void FootprintWriter::markSite(const SiteInfo &S) {
  switch (S.Kind) {
  case PISA_SITE_LOAD:
  case PISA_SITE_STORE:
  case PISA_SITE_RMW:
    markFixed(S.I, sitePointer(S), S.Size);
    return;
  case PISA_SITE_MEMCPY:
  case PISA_SITE_MEMSET: {
    auto *CB = cast<CallBase>(S.I);
    IRBuilder<> B(S.I);
    Value *Len = CB->getArgOperand(2);
    markRange(S.I, B.CreatePtrToInt(CB->getArgOperand(0), I64), Len);
    if (S.Kind == PISA_SITE_MEMCPY)
      markRange(S.I, B.CreatePtrToInt(CB->getArgOperand(1), I64), Len);
    return;
  }
  case PISA_SITE_GATHER:
  case PISA_SITE_SCATTER:
    markLanes(S);
    return;
  default:
    return;
  }
}

/// An access marked before its loop, for every iteration.
struct Stride {
  Instruction *At; // the preheader's terminator
  const SCEV *Start, *Step, *Count;
  uint32_t Size;
  Value *StartV = nullptr, *StepV = nullptr, *CountV = nullptr;
};

class FootprintPlanner {
public:
  FootprintPlanner(Function &F, ScalarEvolution &SE, LoopInfo &LI,
                   DominatorTree &DT)
      : F(F), SE(SE), LI(LI), DT(DT) {}

  /// Which sites are marked before their loop (into Strides), which are
  /// covered by another and need nothing (into Skip).
  void plan(const std::vector<SiteInfo> &Sites, std::vector<Stride> &Strides,
            std::vector<bool> &Skip);

private:
  const SCEV *iterations(Loop *L);
  void mergeStrides(std::vector<Stride> &Strides);
  bool hoistable(const SiteInfo &S, Stride &St, Loop *&L);

  Function &F;
  ScalarEvolution &SE;
  LoopInfo &LI;
  DominatorTree &DT;
  DenseMap<Loop *, const SCEV *> Trips;
};

bool fixedSize(const SiteInfo &S) {
  return (S.Kind == PISA_SITE_LOAD || S.Kind == PISA_SITE_STORE ||
          S.Kind == PISA_SITE_RMW) &&
         S.Size > 0;
}

/// The iterations of a loop entered from a preheader whose back edges the
/// counters' rule counts (countedBackedges): that count + 1; else null.
const SCEV *FootprintPlanner::iterations(Loop *L) {
  auto [It, New] = Trips.try_emplace(L, nullptr);
  if (!New || !L->getLoopPreheader())
    return It->second;
  if (const SCEV *BTC = countedBackedges(L, SE))
    It->second = SE.getAddExpr(BTC, SE.getOne(BTC->getType()));
  return It->second;
}

/// Whether S runs once in every iteration of its innermost loop, at an
/// address start + i * step that can be computed before the loop.
bool FootprintPlanner::hoistable(const SiteInfo &S, Stride &St, Loop *&L) {
  BasicBlock *BB = S.I->getParent();
  L = LI.getLoopFor(BB);
  if (!L || !fixedSize(S) || S.I->isVolatile())
    return false;
  const SCEV *N = iterations(L);
  if (!N || !DT.dominates(BB, L->getLoopLatch()))
    return false;
  auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(sitePointer(S)));
  if (!AR || AR->getLoop() != L || !AR->isAffine())
    return false;
  Type *I64 = Type::getInt64Ty(F.getContext());
  const SCEV *Step = AR->getStepRecurrence(SE);
  if (!SE.isLoopInvariant(Step, L) ||
      SE.getTypeSizeInBits(Step->getType()) > 64)
    return false;
  Step = SE.getNoopOrSignExtend(Step, I64);
  Instruction *At = L->getLoopPreheader()->getTerminator();
  SCEVExpander Check(SE, F.getParent()->getDataLayout(), "pisa.fp");
  if (!Check.isSafeToExpandAt(AR->getStart(), At) ||
      !Check.isSafeToExpandAt(Step, At) || !Check.isSafeToExpandAt(N, At))
    return false;
  St = {At, AR->getStart(), Step, N, S.Size};
  return true;
}

/// Strides of one loop with the same constant step whose starts differ by
/// constants, as an unrolled or vectorised loop's accesses to one array
/// are: the bytes they cover in one period of the step, as intervals; when
/// those make one interval at least a step long, one range covers them
/// all, and the runtime marks it at once.
void FootprintPlanner::mergeStrides(std::vector<Stride> &Strides) {
  std::vector<Stride> Out;
  std::vector<bool> Done(Strides.size(), false);
  for (size_t I = 0; I < Strides.size(); ++I) {
    if (Done[I])
      continue;
    const Stride &Base = Strides[I];
    auto *Step = dyn_cast<SCEVConstant>(Base.Step);
    // Offsets from Base's start of the strides that share its loop, step
    // and count, with their sizes.
    std::vector<std::pair<int64_t, int64_t>> Parts;
    std::vector<size_t> Members;
    for (size_t J = I; J < Strides.size(); ++J) {
      const Stride &S = Strides[J];
      if (Done[J] || S.At != Base.At || S.Step != Base.Step ||
          S.Count != Base.Count)
        continue;
      auto *Off =
          Step ? dyn_cast<SCEVConstant>(SE.getMinusSCEV(S.Start, Base.Start))
               : nullptr;
      if (J != I && !Off)
        continue;
      Parts.push_back({J == I ? 0 : Off->getAPInt().getSExtValue(), S.Size});
      Members.push_back(J);
    }
    std::sort(Parts.begin(), Parts.end());
    int64_t Lo = Parts[0].first, Hi = Lo + Parts[0].second;
    bool OneRange = true;
    for (auto &[Off, Size] : Parts) {
      if (Off > Hi) {
        OneRange = false;
        break;
      }
      Hi = std::max(Hi, Off + Size);
    }
    int64_t Period = Step ? std::abs(Step->getAPInt().getSExtValue()) : 0;
    if (Members.size() < 2 || !OneRange || Hi - Lo < Period) {
      Done[I] = true;
      Out.push_back(Base);
      continue;
    }
    for (size_t J : Members)
      Done[J] = true;
    Stride M = Base;
    M.Start = SE.getAddExpr(Base.Start,
                            SE.getConstant(Base.Start->getType(), Lo, true));
    M.Size = static_cast<uint32_t>(Hi - Lo);
    Out.push_back(M);
  }
  Strides = std::move(Out);
}

void FootprintPlanner::plan(const std::vector<SiteInfo> &Sites,
                            std::vector<Stride> &Strides,
                            std::vector<bool> &Skip) {
  Skip.assign(Sites.size(), false);
  // Per site: the loop it was marked before, or null.
  std::vector<Loop *> HoistedIn(Sites.size(), nullptr);
  DenseMap<std::pair<const SCEV *, Loop *>, size_t> Made; // -> Strides
  for (size_t I = 0; I < Sites.size(); ++I) {
    Stride St;
    Loop *L;
    if (!hoistable(Sites[I], St, L))
      continue;
    HoistedIn[I] = L;
    Skip[I] = true;
    const SCEV *Key = SE.getSCEV(sitePointer(Sites[I]));
    auto [It, New] = Made.try_emplace({Key, L}, Strides.size());
    if (New)
      Strides.push_back(St);
    else if (Strides[It->second].Size < St.Size)
      Strides[It->second].Size = St.Size;
  }
  mergeStrides(Strides);
  // An access covered by another at the same address and at least as
  // large: one that dominates it, or one marked before a loop it is in.
  DenseMap<Value *, std::vector<size_t>> ByPointer;
  for (size_t I = 0; I < Sites.size(); ++I)
    if (fixedSize(Sites[I]))
      ByPointer[sitePointer(Sites[I])].push_back(I);
  for (auto &[Ptr, Group] : ByPointer)
    for (size_t B : Group) {
      if (Skip[B])
        continue;
      for (size_t A : Group) {
        if (A == B || Sites[A].Size < Sites[B].Size)
          continue;
        bool Covers = HoistedIn[A]
                          ? HoistedIn[A]->contains(Sites[B].I->getParent())
                          : !Skip[A] && DT.dominates(Sites[A].I, Sites[B].I);
        if (Covers) {
          Skip[B] = true;
          break;
        }
      }
    }
}

} // namespace

std::vector<SiteInfo> footprintSites(Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<SiteInfo> Sites;
  for (Instruction &I : instructions(F)) {
    SiteInfo S;
    if (isCounted(I) && classifySite(I, DL, S) && S.Kind != PISA_SITE_CALL)
      Sites.push_back(S);
  }
  return Sites;
}

void instrumentFootprint(Function &F, const CounterRuntime &RT, uint32_t Index,
                         const std::vector<SiteInfo> &Sites,
                         ScalarEvolution &SE, LoopInfo &LI, DominatorTree &DT) {
  if (Sites.empty())
    return;
  std::vector<Stride> Strides;
  std::vector<bool> Skip;
  Skip.assign(Sites.size(), false);
  if (ClHoist)
    FootprintPlanner(F, SE, LI, DT).plan(Sites, Strides, Skip);
  // Expanded while the analyses still describe the function: the top's
  // test below splits the entry block.
  SCEVExpander Expander(SE, F.getParent()->getDataLayout(), "pisa.fp");
  Type *I64 = Type::getInt64Ty(F.getContext());
  for (Stride &St : Strides) {
    IRBuilder<> B(St.At);
    Value *Start = Expander.expandCodeFor(St.Start, St.Start->getType(), St.At);
    St.StartV = Start->getType()->isPointerTy()
                    ? B.CreatePtrToInt(Start, I64)
                    : B.CreateZExtOrTrunc(Start, I64);
    St.StepV = Expander.expandCodeFor(St.Step, I64, St.At);
    St.CountV = Expander.expandCodeFor(St.Count, I64, St.At);
  }
  FootprintWriter W(F, RT, Index);
  for (const Stride &St : Strides)
    W.markStride(St.At, St.StartV, St.CountV, St.StepV, St.Size);
  for (size_t I = 0; I < Sites.size(); ++I)
    if (!Skip[I])
      W.markSite(Sites[I]);
}

} // namespace pisa
