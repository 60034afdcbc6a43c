//===- DeepObjects.cpp - the deep pass's data objects ---------------------===//
//
// Finds the calls that allocate or release heap memory (each a heap site
// with its source location and inlined-at chain), writes what such a call
// did as a heap event after it returns, and lists the module's global
// variables, so the runtime can attribute every access to a data object.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace pisa {

namespace {

const char PisaHeapBaseVar[] = "__pisa_heap_base";

/// What a call of an allocation function did, from its arguments: the
/// size is Size * Count (argument indexes, -1: none; Count -1: 1), the
/// released pointer argument Released, the allocated pointer the result or
/// (posix_memalign) stored through argument Out.
struct HeapFn {
  const char *Name;
  int Size, Count, Released, Out;
};

// clang-format off
const HeapFn HeapFns[] = {
    {"malloc", 0, -1, -1, -1},        {"calloc", 1, 0, -1, -1},
    {"realloc", 1, -1, 0, -1},        {"reallocarray", 2, 1, 0, -1},
    {"aligned_alloc", 1, -1, -1, -1}, {"memalign", 1, -1, -1, -1},
    {"valloc", 0, -1, -1, -1},        {"pvalloc", 0, -1, -1, -1},
    {"posix_memalign", 2, -1, -1, 0}, {"free", -1, -1, 0, -1},
    {"mmap", 1, -1, -1, -1},          {"mmap64", 1, -1, -1, -1},
    {"munmap", -1, -1, 0, -1},
    // operator new and new[]: plain, nothrow, aligned, aligned nothrow.
    {"_Znwm", 0, -1, -1, -1},  {"_Znam", 0, -1, -1, -1},
    {"_ZnwmRKSt9nothrow_t", 0, -1, -1, -1},
    {"_ZnamRKSt9nothrow_t", 0, -1, -1, -1},
    {"_ZnwmSt11align_val_t", 0, -1, -1, -1},
    {"_ZnamSt11align_val_t", 0, -1, -1, -1},
    {"_ZnwmSt11align_val_tRKSt9nothrow_t", 0, -1, -1, -1},
    {"_ZnamSt11align_val_tRKSt9nothrow_t", 0, -1, -1, -1},
    // operator delete and delete[]: plain, sized, aligned, sized aligned.
    {"_ZdlPv", -1, -1, 0, -1},  {"_ZdaPv", -1, -1, 0, -1},
    {"_ZdlPvm", -1, -1, 0, -1}, {"_ZdaPvm", -1, -1, 0, -1},
    {"_ZdlPvSt11align_val_t", -1, -1, 0, -1},
    {"_ZdaPvSt11align_val_t", -1, -1, 0, -1},
    {"_ZdlPvmSt11align_val_t", -1, -1, 0, -1},
    {"_ZdaPvmSt11align_val_t", -1, -1, 0, -1},
};
// clang-format on

bool isMmap(const HeapFn &F) { return StringRef(F.Name).starts_with("mmap"); }

const HeapFn *heapFn(const CallBase &CB) {
  auto *Callee = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!Callee || !Callee->isDeclaration())
    return nullptr;
  for (const HeapFn &F : HeapFns)
    if (Callee->getName() == F.Name) {
      int Highest = std::max({F.Size, F.Count, F.Released, F.Out});
      return Highest < static_cast<int>(CB.arg_size()) ? &F : nullptr;
    }
  return nullptr;
}

} // namespace

void describeHeapCall(CallBase &CB, DeepTables &T) {
  const HeapFn *F = heapFn(CB);
  if (!F || isa<InvokeInst>(CB) || isa<CallBrInst>(CB) || CB.isMustTailCall())
    return; // nothing follows the call in its block to write the event
  pisa_heap_site Site = {};
  Site.first_frame = static_cast<uint32_t>(T.Frames.size());
  for (const DILocation *Loc = CB.getDebugLoc().get();
       Loc && Site.n_frames < PISA_MAX_HEAP_FRAMES;
       Loc = Loc->getInlinedAt(), ++Site.n_frames)
    T.Frames.push_back({fileId(Loc->getFilename(), T), Loc->getLine()});
  T.HeapCalls.push_back(
      {&CB, F->Name, F->Size, F->Count, F->Released, F->Out, isMmap(*F)});
  T.HeapSites.push_back(Site);
  T.HeapCallIds[&CB] = static_cast<uint32_t>(T.HeapCalls.size() - 1);
}

GlobalVariable *heapBaseVar(Module &M) {
  if (GlobalVariable *G = M.getNamedGlobal(PisaHeapBaseVar))
    return G;
  // Unregistered: a heap site id no registered module has, so events
  // written before the constructor ran are dropped, not misread.
  Type *I64 = Type::getInt64Ty(M.getContext());
  return new GlobalVariable(
      M, I64, false, GlobalValue::InternalLinkage,
      ConstantInt::get(I64, PISA_REC_BLOCK | PISA_REC_HEAP |
                                PISA_REC_HEAP_UNREGISTERED),
      PisaHeapBaseVar);
}

std::array<Value *, 3> heapEventWords(IRBuilder<> &B, const HeapCall &H) {
  Type *I64 = B.getInt64Ty();
  Value *Zero = B.getInt64(0);
  auto Arg = [&](int Index) -> Value * {
    Value *V = H.Call->getArgOperand(static_cast<unsigned>(Index));
    return V->getType()->isPointerTy() ? B.CreatePtrToInt(V, I64)
                                       : B.CreateZExtOrTrunc(V, I64);
  };
  Value *Base = Zero;
  if (H.Out >= 0) { // posix_memalign: the pointer it stored, when it did
    Value *Stored = B.CreateLoad(
        B.getPtrTy(), H.Call->getArgOperand(static_cast<unsigned>(H.Out)));
    Value *Ok = B.CreateICmpEQ(H.Call, ConstantInt::get(H.Call->getType(), 0));
    Base = B.CreateSelect(Ok, B.CreatePtrToInt(Stored, I64), Zero);
  } else if (H.Call->getType()->isPointerTy()) {
    Base = B.CreatePtrToInt(H.Call, I64);
    if (H.Mmap) // MAP_FAILED is (void *)-1
      Base = B.CreateSelect(B.CreateICmpEQ(Base, B.getInt64(~UINT64_C(0))),
                            Zero, Base);
  }
  Value *Size = H.Size >= 0 ? Arg(H.Size) : Zero;
  if (H.Count >= 0)
    Size = B.CreateMul(Size, Arg(H.Count));
  // No record word but a tag has bit 63 set.
  Size = B.CreateAnd(Size, B.getInt64(~PISA_REC_BLOCK));
  Value *Released = H.Released >= 0 ? Arg(H.Released) : Zero;
  return {Base, Size, Released};
}

void describeGlobals(Module &M, DeepTables &T) {
  const DataLayout &DL = M.getDataLayout();
  for (GlobalVariable &G : M.globals()) {
    if (G.isDeclaration() || G.isThreadLocal() || G.hasPrivateLinkage() ||
        G.getName().starts_with("llvm.") || G.getName().starts_with("__pisa"))
      continue;
    uint64_t Size = DL.getTypeAllocSize(G.getValueType());
    if (!Size)
      continue;
    DeepGlobal Row = {&G, Size, G.getName().str(), PISA_INDEX_NONE, 0};
    SmallVector<DIGlobalVariableExpression *, 1> Exprs;
    G.getDebugInfo(Exprs);
    if (!Exprs.empty()) {
      DIGlobalVariable *Var = Exprs.front()->getVariable();
      Row.Name = Var->getName().str();
      Row.File = fileId(Var->getFilename(), T);
      Row.Line = Var->getLine();
    }
    T.Globals.push_back(std::move(Row));
  }
}

} // namespace pisa
