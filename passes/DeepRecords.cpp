//===- DeepRecords.cpp - the deep pass's record words ---------------------===//
//
// Makes every basic-block entry and every memory access write its record
// words (pisa/abi.h) to the thread's buffer, so that the runtime can
// rebuild each thread's dynamic instruction stream.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"
#include "Runtime.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace pisa {

namespace {

const char PisaBlockBaseVar[] = "__pisa_block_base";

// The runtime treats block ids at or above the number of registered blocks as
// unknown, so records written before registration are dropped, not misread.
const uint64_t UnregisteredBase = PISA_REC_BLOCK | (PISA_REC_ID_MASK >> 1);

class RecordWriter {
public:
  RecordWriter(Module &M, const DeepTables &T);

  void instrumentBlock(const DeepBlock &Info, uint32_t LocalId);

  GlobalVariable *BlockBase = nullptr;

private:
  Value *openSegment(Instruction *At, uint64_t Words, Value *&Slot);
  void writeSiteWords(const SiteInfo &S, Value *Cur, uint64_t First);
  void storeWord(IRBuilder<> &B, Value *Word, Value *Cur, uint64_t Index);
  void writeHeapEvent(IRBuilder<> &B, const Instruction *Call, Value *Cur);

  const DeepTables &T;
  Type *I8, *I64;
  PointerType *PtrTy;
  GlobalVariable *TLSBuffer = nullptr;
  GlobalVariable *HeapBase = nullptr;
  FunctionCallee Refill;
};

RecordWriter::RecordWriter(Module &M, const DeepTables &T)
    : T(T), I8(Type::getInt8Ty(M.getContext())),
      I64(Type::getInt64Ty(M.getContext())),
      PtrTy(PointerType::getUnqual(M.getContext())) {
  // struct pisa_tls_buffer { uint64_t *cursor, *limit; } in the runtime.
  StructType *BufTy = StructType::get(M.getContext(), {PtrTy, PtrTy});
  TLSBuffer = declareRuntimeTLS(M, BufTy, PISA_TLS_BUFFER);
  BlockBase = new GlobalVariable(M, I64, false, GlobalValue::InternalLinkage,
                                 ConstantInt::get(I64, UnregisteredBase),
                                 PisaBlockBaseVar);
  Refill = declareColdRuntimeFn(M, PISA_FN_REFILL, PtrTy, {I64});
  if (!T.HeapCalls.empty())
    HeapBase = heapBaseVar(M);
}

/// Loads the thread's cursor before At and makes room for Words words,
/// calling the runtime when the buffer is full. Returns the cursor; Slot is
/// set to the address of the thread's cursor variable.
Value *RecordWriter::openSegment(Instruction *At, uint64_t Words,
                                 Value *&Slot) {
  IRBuilder<> B(At);
  Slot = B.CreateThreadLocalAddress(TLSBuffer);
  Value *Cur = B.CreateLoad(PtrTy, Slot, "pisa.cur");
  Value *LimitAddr = B.CreateConstInBoundsGEP1_64(I8, Slot, sizeof(void *));
  Value *Limit = B.CreateLoad(PtrTy, LimitAddr, "pisa.limit");
  Value *Need = B.CreateGEP(I64, Cur, B.getInt64(Words));
  Value *Full = B.CreateICmpUGT(Need, Limit);
  BasicBlock *Head = At->getParent();
  Instruction *ThenTerm = splitRarePath(Full, At);
  IRBuilder<> TB(ThenTerm);
  Value *Fresh = TB.CreateCall(Refill, {TB.getInt64(Words)});
  B.SetInsertPoint(At);
  PHINode *Phi = B.CreatePHI(PtrTy, 2, "pisa.seg");
  Phi->addIncoming(Cur, Head);
  Phi->addIncoming(Fresh, ThenTerm->getParent());
  return Phi;
}

void RecordWriter::storeWord(IRBuilder<> &B, Value *Word, Value *Cur,
                             uint64_t Index) {
  B.CreateStore(Word, B.CreateConstInBoundsGEP1_64(I64, Cur, Index));
}

/// The heap event of Call (a heap site) at words 1 to 4 of the segment
/// that follows it: the site's marker, then base, size and released.
void RecordWriter::writeHeapEvent(IRBuilder<> &B, const Instruction *Call,
                                  Value *Cur) {
  uint32_t Id = T.HeapCallIds.lookup(Call);
  Value *Marker = B.CreateAdd(B.CreateLoad(I64, HeapBase), B.getInt64(Id));
  storeWord(B, Marker, Cur, 1);
  std::array<Value *, 3> Words = heapEventWords(B, T.HeapCalls[Id]);
  for (unsigned W = 0; W < Words.size(); ++W)
    storeWord(B, Words[W], Cur, 2 + W);
}

void RecordWriter::writeSiteWords(const SiteInfo &S, Value *Cur,
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
void RecordWriter::instrumentBlock(const DeepBlock &Info, uint32_t LocalId) {
  const pisa_block &Table = Info.Table;
  const SiteInfo *Sites = T.Sites.data() + Table.first_site;
  Instruction *Term = Info.BB->getTerminator(); // before splitting moves it
  Instruction *Start = &*Info.BB->getFirstInsertionPt();
  uint64_t HeaderTag = 0; // 0: BLOCK word, else RESUME tag bits
  uint32_t Site = 0;
  const Instruction *HeapCall = nullptr; // the call before, a heap site
  for (;;) {
    // Gather this segment's access sites up to the next call.
    uint32_t End = Site;
    const uint64_t Head = 1 + (HeapCall ? PISA_REC_HEAP_WORDS : 0);
    uint64_t Words = Head;
    while (End < Table.n_sites && Sites[End].Kind != PISA_SITE_CALL)
      Words += siteWords(Sites[End++]);
    Instruction *Stop = End < Table.n_sites ? Sites[End].I : Term;
    Value *Slot;
    Value *Cur = openSegment(Start, Words, Slot);
    {
      IRBuilder<> B(Start);
      Value *Base = B.CreateLoad(I64, BlockBase);
      Value *Word = B.CreateAdd(Base, B.getInt64(LocalId + HeaderTag));
      storeWord(B, Word, Cur, 0);
      if (HeapCall)
        writeHeapEvent(B, HeapCall, Cur);
    }
    uint64_t Next = Head;
    for (uint32_t S = Site; S < End; ++S) {
      writeSiteWords(Sites[S], Cur, Next);
      Next += siteWords(Sites[S]);
    }
    IRBuilder<> B(Stop);
    // A release store: the segment's words are visible before the cursor
    // that covers them, to a thread draining this one at exit (a plain
    // mov on x86, but no store may sink below it).
    StoreInst *Publish =
        B.CreateStore(B.CreateConstInBoundsGEP1_64(I64, Cur, Words), Slot);
    Publish->setAtomic(AtomicOrdering::Release);
    Publish->setAlignment(Align(8));
    if (End == Table.n_sites)
      return;
    const SiteInfo &Call = Sites[End];
    if (Call.Flags & PISA_SITE_NO_RESUME)
      return; // a terminator or a musttail call: nothing may follow it
    Start = Call.I->getNextNode();
    HeapCall = T.HeapCallIds.count(Call.I) ? Call.I : nullptr;
    HeaderTag = (PISA_REC_RESUME & ~PISA_REC_BLOCK) |
                (uint64_t(End) << PISA_REC_SITE_SHIFT);
    Site = End + 1;
  }
}

} // namespace

GlobalVariable *instrumentRecords(Module &M, const DeepTables &T) {
  RecordWriter Writer(M, T);
  for (uint32_t Id = 0; Id < T.Blocks.size(); ++Id)
    Writer.instrumentBlock(T.Blocks[Id], Id);
  return Writer.BlockBase;
}

} // namespace pisa
