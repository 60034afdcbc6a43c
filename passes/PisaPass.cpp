//===- PisaPass.cpp - pisa-char deep-mode instrumentation -----------------===//
//
// Instruments every basic-block entry and every memory access so that the
// analysis runtime can rebuild each thread's dynamic instruction stream, and
// emits the module's static tables (include/pisa/abi.h) with a
// constructor that registers them. docs/internals.md describes the records.
//
//===----------------------------------------------------------------------===//
#include "PisaPass.h"
#include "CounterPass.h"
#include "PisaShared.h"

#include "pisa/abi.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace pisa;

namespace {

static const char PisaModuleVar[] = "__pisa_module";
static const char PisaBlockBaseVar[] = "__pisa_block_base";
static const char PisaCtorFn[] = "__pisa_module_ctor";

// The runtime treats block ids at or above the number of registered blocks as
// unknown, so records written before registration are dropped, not misread.
static const uint64_t UnregisteredBase =
    PISA_REC_BLOCK | (PISA_REC_ID_MASK >> 1);

struct BlockInfo {
  BasicBlock *BB;
  pisa_block Table;
};

struct FunctionInfo {
  std::string Name, Display, File;
  uint32_t Line = 0, FirstBlock = 0, NBlocks = 0;
};

/// The function analyses the instrumenter needs.
struct FunctionAnalyses {
  ScalarEvolution &SE;
  LoopInfo &LI;
};
using GetAnalyses = function_ref<FunctionAnalyses(Function &)>;

class DeepInstrumenter {
public:
  DeepInstrumenter(Module &M, GetAnalyses AnalysesFor)
      : M(M), AnalysesFor(AnalysesFor), Ctx(M.getContext()),
        DL(M.getDataLayout()), I8(Type::getInt8Ty(Ctx)),
        I16(Type::getInt16Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        I64(Type::getInt64Ty(Ctx)), PtrTy(PointerType::getUnqual(Ctx)) {}

  bool run();

private:
  bool checkModule();
  void analyzeFunction(Function &F);
  void analyzeBlock(BasicBlock &BB, uint32_t FnIndex, ScalarEvolution &SE);
  uint32_t sourceOf(Value *V) const;
  void recordDataflow(Function &F, uint32_t FirstBlock, FunctionAnalyses &FA);
  void markIndexUpdates(LoopInfo &LI, ScalarEvolution &SE);
  uint8_t accessClass(Value *Ptr, ScalarEvolution &SE) const;
  Value *sitePointer(const SiteInfo &S) const;
  void declareRuntime();
  void instrumentBlock(const BlockInfo &B, uint32_t LocalId);
  Value *openSegment(Instruction *At, uint64_t Words, Value *&Slot);
  void writeSiteWords(const SiteInfo &S, Value *Cur, uint64_t First);
  void storeWord(IRBuilder<> &B, Value *Word, Value *Cur, uint64_t Index);
  Constant *stringConstant(StringRef S);
  void emitTables();

  Module &M;
  GetAnalyses AnalysesFor;
  LLVMContext &Ctx;
  const DataLayout &DL;
  Type *I8, *I16, *I32, *I64;
  PointerType *PtrTy;

  GlobalVariable *TLSBuffer = nullptr;
  GlobalVariable *BlockBase = nullptr;
  FunctionCallee Refill;
  MDNode *ColdWeights = nullptr;
  StringMap<Constant *> Strings;

  std::vector<FunctionInfo> Functions;
  std::vector<BlockInfo> Blocks;
  std::vector<pisa_instr> Instrs;
  std::vector<SiteInfo> Sites;
  std::vector<BasicBlock *> Successors; // of conditional branches, switches
  DenseMap<BasicBlock *, uint32_t> BlockIds;
  // Dataflow (issue 4): counted instructions and phis by module-local index.
  std::vector<Instruction *> InstrValues; // parallel to Instrs
  DenseMap<const Instruction *, uint32_t> InstrIndex;
  std::vector<PHINode *> PhiValues;
  DenseMap<const PHINode *, uint32_t> PhiIndex;
  std::vector<pisa_phi> Phis;
  std::vector<uint32_t> Operands, Incoming;
};

bool DeepInstrumenter::checkModule() {
  if (M.getNamedGlobal(PisaModuleVar)) {
    Ctx.emitError("pisa: module '" + M.getModuleIdentifier() +
                  "' is already instrumented by pisa-char");
    return false;
  }
  // The runtime names opcodes by LLVM 19's numbering; a different LLVM must
  // not silently mislabel the instruction mix.
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

/// MemGaze's classes (METRICS.md): constant for a stack or global slot at a
/// fixed offset, strided for an affine add-recurrence with a constant step,
/// irregular for everything else.
uint8_t DeepInstrumenter::accessClass(Value *Ptr, ScalarEvolution &SE) const {
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

/// The address a site's first record word holds (the destination of a
/// memcpy or memset); null for gathers, scatters and calls.
Value *DeepInstrumenter::sitePointer(const SiteInfo &S) const {
  if (Value *P = getLoadStorePointerOperand(S.I))
    return P;
  if (auto *RMW = dyn_cast<AtomicRMWInst>(S.I))
    return RMW->getPointerOperand();
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(S.I))
    return CX->getPointerOperand();
  if (S.Kind == PISA_SITE_GATHER || S.Kind == PISA_SITE_SCATTER ||
      S.Kind == PISA_SITE_CALL)
    return nullptr;
  auto *CB = cast<CallBase>(S.I);
  if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
    auto ID = II->getIntrinsicID();
    if (ID == Intrinsic::masked_store || ID == Intrinsic::masked_compressstore)
      return CB->getArgOperand(1);
  }
  return CB->getArgOperand(0); // masked load, memcpy, memmove, memset
}

void DeepInstrumenter::analyzeBlock(BasicBlock &BB, uint32_t FnIndex,
                                    ScalarEvolution &SE) {
  pisa_block T = {};
  T.function = FnIndex;
  T.first_instr = static_cast<uint32_t>(Instrs.size());
  T.first_site = static_cast<uint32_t>(Sites.size());
  T.first_phi = static_cast<uint32_t>(PhiValues.size());
  for (Instruction &I : BB) {
    if (auto *Phi = dyn_cast<PHINode>(&I)) {
      ++T.n_phis;
      PhiIndex[Phi] = static_cast<uint32_t>(PhiValues.size());
      PhiValues.push_back(Phi);
      continue;
    }
    if (!isCounted(I))
      continue;
    uint32_t Index = static_cast<uint32_t>(Instrs.size());
    Instrs.push_back(describeInstr(I, DL));
    InstrIndex[&I] = Index;
    InstrValues.push_back(&I);
    SiteInfo S;
    if (!classifySite(I, DL, S))
      continue;
    S.Instr = Index;
    if (Value *P = sitePointer(S))
      S.Class = accessClass(P, SE);
    if (S.Kind == PISA_SITE_LOAD || S.Kind == PISA_SITE_RMW)
      T.bytes_loaded += S.Size;
    if (S.Kind == PISA_SITE_STORE || S.Kind == PISA_SITE_RMW)
      T.bytes_stored += S.Size;
    Sites.push_back(S);
  }
  T.n_instrs = static_cast<uint32_t>(Instrs.size()) - T.first_instr;
  T.n_sites = static_cast<uint32_t>(Sites.size()) - T.first_site;
  T.first_successor = static_cast<uint32_t>(Successors.size());
  Instruction *Term = BB.getTerminator();
  auto *Br = dyn_cast<BranchInst>(Term);
  if ((Br && Br->isConditional()) || isa<SwitchInst>(Term))
    for (BasicBlock *Succ : successors(&BB))
      Successors.push_back(Succ);
  T.n_successors = static_cast<uint32_t>(Successors.size()) - T.first_successor;
  BlockIds[&BB] = static_cast<uint32_t>(Blocks.size());
  Blocks.push_back({&BB, T});
}

void DeepInstrumenter::analyzeFunction(Function &F) {
  FunctionInfo Info;
  Info.Name = F.getName().str();
  Info.Display = demangle(Info.Name);
  if (DISubprogram *SP = F.getSubprogram()) {
    Info.File = SP->getFilename().str();
    Info.Line = SP->getLine();
  }
  Info.FirstBlock = static_cast<uint32_t>(Blocks.size());
  uint32_t FnIndex = static_cast<uint32_t>(Functions.size());
  FunctionAnalyses FA = AnalysesFor(F);
  for (BasicBlock &BB : F)
    analyzeBlock(BB, FnIndex, FA.SE);
  recordDataflow(F, Info.FirstBlock, FA);
  Info.NBlocks = static_cast<uint32_t>(Blocks.size()) - Info.FirstBlock;
  Functions.push_back(std::move(Info));
}

/// Where V's value comes from (see PISA_SOURCE in pisa/abi.h).
uint32_t DeepInstrumenter::sourceOf(Value *V) const {
  for (;;) {
    if (auto *Phi = dyn_cast<PHINode>(V)) {
      auto It = PhiIndex.find(Phi);
      return It == PhiIndex.end() ? uint32_t(PISA_SRC_NONE)
                                  : PISA_SOURCE(PISA_SRC_PHI, It->second);
    }
    if (auto *A = dyn_cast<Argument>(V))
      return PISA_SOURCE(PISA_SRC_ARG, A->getArgNo());
    auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return uint32_t(PISA_SRC_NONE); // constants, globals, functions
    auto It = InstrIndex.find(I);
    if (It != InstrIndex.end())
      return PISA_SOURCE(PISA_SRC_INSTR, It->second);
    // An uncounted intrinsic passing a value on (llvm.expect, ...).
    auto *CB = dyn_cast<CallBase>(I);
    if (!CB || CB->arg_size() == 0)
      return uint32_t(PISA_SRC_NONE);
    V = CB->getArgOperand(0);
  }
}

/// Operand sources of the function's counted instructions and incoming
/// values of its phis; then the loop-index update marks.
void DeepInstrumenter::recordDataflow(Function &F, uint32_t FirstBlock,
                                      FunctionAnalyses &FA) {
  for (uint32_t B = FirstBlock; B < Blocks.size(); ++B) {
    pisa_block &T = Blocks[B].Table;
    for (uint32_t I = T.first_instr; I < T.first_instr + T.n_instrs; ++I) {
      Instruction *Inst = InstrValues[I];
      pisa_instr &D = Instrs[I];
      D.first_operand = static_cast<uint32_t>(Operands.size());
      if (auto *CB = dyn_cast<CallBase>(Inst)) {
        for (Value *Arg : CB->args())
          Operands.push_back(sourceOf(Arg));
        Operands.push_back(sourceOf(CB->getCalledOperand()));
      } else {
        for (Value *Op : Inst->operands())
          if (uint32_t Src = sourceOf(Op))
            Operands.push_back(Src);
      }
      D.n_operands = static_cast<uint32_t>(Operands.size()) - D.first_operand;
    }
    for (uint32_t P = T.first_phi; P < T.first_phi + T.n_phis; ++P) {
      PHINode *Phi = PhiValues[P];
      pisa_phi Entry = {B, static_cast<uint32_t>(Incoming.size() / 2),
                        Phi->getNumIncomingValues(), 0};
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
        Incoming.push_back(BlockIds.lookup(Phi->getIncomingBlock(K)));
        Incoming.push_back(sourceOf(Phi->getIncomingValue(K)));
      }
      Phis.push_back(Entry);
    }
  }
  (void)F;
  markIndexUpdates(FA.LI, FA.SE);
}

/// A header phi that ScalarEvolution sees as an add-recurrence of its loop
/// is an induction variable: it and the value fed back from inside the loop
/// form the index update cycle that the smart BBLP variant ignores.
void DeepInstrumenter::markIndexUpdates(LoopInfo &LI, ScalarEvolution &SE) {
  for (Loop *L : LI.getLoopsInPreorder())
    for (PHINode &Phi : L->getHeader()->phis()) {
      if (!SE.isSCEVable(Phi.getType()))
        continue;
      auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
      if (!AR || AR->getLoop() != L)
        continue;
      Phis[PhiIndex.lookup(&Phi)].flags |= PISA_INSTR_INDEX_UPDATE;
      for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K) {
        if (!L->contains(Phi.getIncomingBlock(K)))
          continue;
        auto *Step = dyn_cast<Instruction>(Phi.getIncomingValue(K));
        auto It = Step ? InstrIndex.find(Step) : InstrIndex.end();
        if (It != InstrIndex.end())
          Instrs[It->second].flags |= PISA_INSTR_INDEX_UPDATE;
      }
    }
}

void DeepInstrumenter::declareRuntime() {
  // struct pisa_tls_buffer { uint64_t *cursor, *limit; } in the runtime.
  StructType *BufTy = StructType::get(Ctx, {PtrTy, PtrTy});
  TLSBuffer = new GlobalVariable(M, BufTy, false, GlobalValue::ExternalLinkage,
                                 nullptr, PISA_TLS_BUFFER, nullptr,
                                 GlobalValue::InitialExecTLSModel);
  BlockBase = new GlobalVariable(M, I64, false, GlobalValue::InternalLinkage,
                                 ConstantInt::get(I64, UnregisteredBase),
                                 PisaBlockBaseVar);
  AttributeList Attrs = AttributeList()
                            .addFnAttribute(Ctx, Attribute::Cold)
                            .addFnAttribute(Ctx, Attribute::NoUnwind);
  Refill = M.getOrInsertFunction(PISA_FN_REFILL, Attrs, PtrTy, I64);
  ColdWeights = MDBuilder(Ctx).createBranchWeights(1, 1u << 20);
}

/// Loads the thread's cursor before At and makes room for Words words,
/// calling the runtime when the buffer is full. Returns the cursor; Slot is
/// set to the address of the thread's cursor variable.
Value *DeepInstrumenter::openSegment(Instruction *At, uint64_t Words,
                                     Value *&Slot) {
  IRBuilder<> B(At);
  Slot = B.CreateThreadLocalAddress(TLSBuffer);
  Value *Cur = B.CreateLoad(PtrTy, Slot, "pisa.cur");
  Value *LimitAddr = B.CreateConstInBoundsGEP1_64(I8, Slot, sizeof(void *));
  Value *Limit = B.CreateLoad(PtrTy, LimitAddr, "pisa.limit");
  Value *Need = B.CreateGEP(I64, Cur, B.getInt64(Words));
  Value *Full = B.CreateICmpUGT(Need, Limit);
  BasicBlock *Head = At->getParent();
  Instruction *ThenTerm =
      SplitBlockAndInsertIfThen(Full, At, false, ColdWeights);
  IRBuilder<> TB(ThenTerm);
  Value *Fresh = TB.CreateCall(Refill, {TB.getInt64(Words)});
  B.SetInsertPoint(At);
  PHINode *Phi = B.CreatePHI(PtrTy, 2, "pisa.seg");
  Phi->addIncoming(Cur, Head);
  Phi->addIncoming(Fresh, ThenTerm->getParent());
  return Phi;
}

void DeepInstrumenter::storeWord(IRBuilder<> &B, Value *Word, Value *Cur,
                                 uint64_t Index) {
  B.CreateStore(Word, B.CreateConstInBoundsGEP1_64(I64, Cur, Index));
}

void DeepInstrumenter::writeSiteWords(const SiteInfo &S, Value *Cur,
                                      uint64_t First) {
  IRBuilder<> B(S.I);
  auto Addr = [&](Value *P) { return B.CreatePtrToInt(P, I64); };
  auto Len = [&](Value *L) { return B.CreateZExtOrTrunc(L, I64); };
  auto *CB = dyn_cast<CallBase>(S.I);
  switch (S.Kind) {
  case PISA_SITE_LOAD:
  case PISA_SITE_STORE:
  case PISA_SITE_RMW:
    storeWord(B, Addr(sitePointer(S)), Cur, First);
    return;
  case PISA_SITE_MEMCPY:
    storeWord(B, Addr(CB->getArgOperand(0)), Cur, First);
    storeWord(B, Addr(CB->getArgOperand(1)), Cur, First + 1);
    storeWord(B, Len(CB->getArgOperand(2)), Cur, First + 2);
    return;
  case PISA_SITE_MEMSET:
    storeWord(B, Addr(CB->getArgOperand(0)), Cur, First);
    storeWord(B, Len(CB->getArgOperand(2)), Cur, First + 1);
    return;
  case PISA_SITE_GATHER:
  case PISA_SITE_SCATTER: {
    bool Gather = S.Kind == PISA_SITE_GATHER;
    Value *Ptrs = CB->getArgOperand(Gather ? 0 : 1);
    Value *Mask = CB->getArgOperand(Gather ? 2 : 3);
    for (unsigned L = 0; L < S.Lanes; ++L) {
      Value *P = Addr(B.CreateExtractElement(Ptrs, B.getInt64(L)));
      Value *On = B.CreateExtractElement(Mask, B.getInt64(L));
      storeWord(B, B.CreateSelect(On, P, B.getInt64(0)), Cur, First + L);
    }
    return;
  }
  default:
    llvm_unreachable("not an access site");
  }
}

/// A block is cut into segments at its call sites; each segment reserves its
/// words once, writes them at constant offsets and publishes the cursor
/// before the call or the terminator that ends it.
void DeepInstrumenter::instrumentBlock(const BlockInfo &Info,
                                       uint32_t LocalId) {
  const pisa_block &T = Info.Table;
  Instruction *Term = Info.BB->getTerminator(); // before splitting moves it
  Instruction *Start = &*Info.BB->getFirstInsertionPt();
  uint64_t HeaderTag = 0; // 0: BLOCK word, else RESUME tag bits
  uint32_t Site = 0;
  for (;;) {
    // Gather this segment's access sites up to the next call.
    uint32_t End = Site;
    uint64_t Words = 1;
    while (End < T.n_sites && Sites[T.first_site + End].Kind != PISA_SITE_CALL)
      Words += pisaSiteWords(Sites[T.first_site + End++]);
    Instruction *Stop = End < T.n_sites ? Sites[T.first_site + End].I : Term;
    Value *Slot;
    Value *Cur = openSegment(Start, Words, Slot);
    {
      IRBuilder<> B(Start);
      Value *Base = B.CreateLoad(I64, BlockBase);
      Value *Word = B.CreateAdd(Base, B.getInt64(LocalId + HeaderTag));
      storeWord(B, Word, Cur, 0);
    }
    uint64_t Next = 1;
    for (uint32_t S = Site; S < End; ++S) {
      writeSiteWords(Sites[T.first_site + S], Cur, Next);
      Next += pisaSiteWords(Sites[T.first_site + S]);
    }
    IRBuilder<> B(Stop);
    // A release store: the segment's words are visible before the cursor
    // that covers them, to a thread draining this one at exit (a plain
    // mov on x86, but no store may sink below it).
    StoreInst *Publish =
        B.CreateStore(B.CreateConstInBoundsGEP1_64(I64, Cur, Words), Slot);
    Publish->setAtomic(AtomicOrdering::Release);
    Publish->setAlignment(Align(8));
    if (End == T.n_sites)
      return;
    const SiteInfo &Call = Sites[T.first_site + End];
    if (Call.Flags & PISA_SITE_NO_RESUME)
      return; // a terminator or a musttail call: nothing may follow it
    Start = Call.I->getNextNode();
    HeaderTag = (PISA_REC_RESUME & ~PISA_REC_BLOCK) |
                (uint64_t(End) << PISA_REC_SITE_SHIFT);
    Site = End + 1;
  }
}

Constant *DeepInstrumenter::stringConstant(StringRef S) {
  return internString(M, Strings, S);
}

template <typename T>
static GlobalVariable *
emitArray(Module &M, StructType *Ty, const std::vector<T> &Items,
          function_ref<Constant *(const T &)> Build, const char *Name) {
  std::vector<Constant *> Elems;
  Elems.reserve(Items.size());
  for (const T &Item : Items)
    Elems.push_back(Build(Item));
  auto *ATy = ArrayType::get(Ty, Elems.size());
  return new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                            ConstantArray::get(ATy, Elems), Name);
}

void DeepInstrumenter::emitTables() {
  auto C8 = [&](uint64_t V) { return ConstantInt::get(I8, V); };
  auto C16 = [&](uint64_t V) { return ConstantInt::get(I16, V); };
  auto C32 = [&](uint64_t V) { return ConstantInt::get(I32, V); };
  Constant *Null = ConstantPointerNull::get(PtrTy);
  auto Str = [&](StringRef S) { return stringConstant(S); };
  auto StrOrNull = [&](StringRef S) { return S.empty() ? Null : Str(S); };

  auto *FnTy = StructType::get(Ctx, {PtrTy, PtrTy, PtrTy, I32, I32, I32, I32});
  auto *BlockTy = StructType::get(Ctx, std::vector<Type *>(12, I32));
  auto *InstrTy = StructType::get(Ctx, {I8, I8, I8, I8, I16, I16, I32, I32});
  auto *PhiTy = StructType::get(Ctx, {I32, I32, I32, I32});
  auto *SiteTy = StructType::get(Ctx, {I8, I8, I16, I32, I32, I32, PtrTy});
  std::vector<Type *> ModFields(10, I32);
  ModFields.insert(ModFields.end(), 10, PtrTy);
  auto *ModTy = StructType::get(Ctx, ModFields);
  static_assert(sizeof(pisa_function) == 40 && sizeof(pisa_block) == 48 &&
                    sizeof(pisa_instr) == 16 && sizeof(pisa_site) == 24 &&
                    sizeof(pisa_phi) == 16 && sizeof(pisa_module) == 120,
                "the emitted struct types below mirror pisa/abi.h");

  GlobalVariable *FnArr = emitArray<FunctionInfo>(
      M, FnTy, Functions,
      [&](const FunctionInfo &F) -> Constant * {
        return ConstantStruct::get(
            FnTy, {Str(F.Name), Str(F.Display), StrOrNull(F.File), C32(F.Line),
                   C32(F.FirstBlock), C32(F.NBlocks), C32(0)});
      },
      "__pisa_functions");
  GlobalVariable *BlockArr = emitArray<BlockInfo>(
      M, BlockTy, Blocks,
      [&](const BlockInfo &B) -> Constant * {
        const pisa_block &T = B.Table;
        return ConstantStruct::get(
            BlockTy,
            {C32(T.function), C32(T.first_instr), C32(T.n_instrs),
             C32(T.first_site), C32(T.n_sites), C32(T.n_phis),
             C32(T.bytes_loaded), C32(T.bytes_stored), C32(T.first_successor),
             C32(T.n_successors), C32(T.first_phi), C32(0)});
      },
      "__pisa_blocks");
  GlobalVariable *InstrArr = emitArray<pisa_instr>(
      M, InstrTy, Instrs,
      [&](const pisa_instr &I) -> Constant * {
        return ConstantStruct::get(
            InstrTy, {C8(I.opcode), C8(I.category), C8(I.type_kind),
                      C8(I.flags), C16(I.lanes), C16(I.bits),
                      C32(I.first_operand), C32(I.n_operands)});
      },
      "__pisa_instrs");
  GlobalVariable *SiteArr = emitArray<SiteInfo>(
      M, SiteTy, Sites,
      [&](const SiteInfo &S) -> Constant * {
        return ConstantStruct::get(
            SiteTy, {C8(S.Kind), C8(S.Class), C16(S.Lanes), C32(S.Size),
                     C32(S.Instr), C32(S.Flags), StrOrNull(S.Callee)});
      },
      "__pisa_sites");
  auto U32Array = [&](const std::vector<uint32_t> &Values, const char *Name) {
    std::vector<Constant *> Elems;
    for (uint32_t V : Values)
      Elems.push_back(C32(V));
    auto *Ty = ArrayType::get(I32, Elems.size());
    return new GlobalVariable(M, Ty, true, GlobalValue::PrivateLinkage,
                              ConstantArray::get(Ty, Elems), Name);
  };
  std::vector<uint32_t> SuccIds;
  for (BasicBlock *Succ : Successors)
    SuccIds.push_back(BlockIds.lookup(Succ));
  GlobalVariable *SuccArr = U32Array(SuccIds, "__pisa_successors");
  GlobalVariable *OperandArr = U32Array(Operands, "__pisa_operands");
  GlobalVariable *IncomingArr = U32Array(Incoming, "__pisa_incoming");
  GlobalVariable *PhiArr = emitArray<pisa_phi>(
      M, PhiTy, Phis,
      [&](const pisa_phi &P) -> Constant * {
        return ConstantStruct::get(PhiTy, {C32(P.block), C32(P.first_incoming),
                                           C32(P.n_incoming), C32(P.flags)});
      },
      "__pisa_phis");

  Constant *Desc = ConstantStruct::get(ModTy, {C32(PISA_ABI_VERSION),
                                               C32(Functions.size()),
                                               C32(Blocks.size()),
                                               C32(Instrs.size()),
                                               C32(Sites.size()),
                                               C32(Successors.size()),
                                               C32(Operands.size()),
                                               C32(Phis.size()),
                                               C32(Incoming.size() / 2),
                                               C32(PISA_MODE_DEEP),
                                               Str(M.getSourceFileName()),
                                               FnArr,
                                               BlockArr,
                                               InstrArr,
                                               SiteArr,
                                               SuccArr,
                                               OperandArr,
                                               PhiArr,
                                               IncomingArr,
                                               BlockBase});
  // Writable, in its own section: pisa-char recognises instrumented
  // binaries by this section.
  auto *ModVar = new GlobalVariable(
      M, ModTy, false, GlobalValue::InternalLinkage, Desc, PisaModuleVar);
  ModVar->setSection(PISA_MARKER_SECTION);
  appendToUsed(M, {ModVar});

  emitRegistration(M, PISA_FN_REGISTER, ModVar, PisaCtorFn);
}

bool DeepInstrumenter::run() {
  if (!checkModule())
    return false;
  std::vector<Function *> Targets;
  for (Function &F : M)
    if (shouldInstrument(F))
      Targets.push_back(&F);
  if (Targets.empty())
    return false;
  for (Function *F : Targets)
    analyzeFunction(*F);
  declareRuntime();
  for (uint32_t Id = 0; Id < Blocks.size(); ++Id)
    instrumentBlock(Blocks[Id], Id);
  emitTables();
  return true;
}

} // namespace

PreservedAnalyses pisa::PisaDeepPass::run(Module &M,
                                          ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  auto AnalysesFor = [&](Function &F) {
    return FunctionAnalyses{FAM.getResult<ScalarEvolutionAnalysis>(F),
                            FAM.getResult<LoopAnalysis>(F)};
  };
  return DeepInstrumenter(M, AnalysesFor).run() ? PreservedAnalyses::none()
                                                : PreservedAnalyses::all();
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "pisa-char", "0.1.0", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "pisa-counter") {
                    MPM.addPass(pisa::PisaCounterPass());
                    return true;
                  }
                  if (Name != "pisa-deep")
                    return false;
                  MPM.addPass(pisa::PisaDeepPass());
                  return true;
                });
            // clang -fpass-plugin: instrument the optimised code, last.
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  if (pisa::counterModeSelected())
                    MPM.addPass(pisa::PisaCounterPass());
                  else
                    MPM.addPass(pisa::PisaDeepPass());
                });
          }};
}
