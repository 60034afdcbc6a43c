//===- PisaShared.h - helpers shared by the pisa-char passes --------------===//
//
// What counts as an instruction, how it is described in the static tables,
// and which instructions are access or call sites: one definition for the
// deep pass (PisaPass.cpp) and the counter pass (CounterPass.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_SHARED_H
#define PISA_SHARED_H

#include "pisa/abi.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace pisa {
using namespace llvm;

struct SiteInfo {
  Instruction *I = nullptr;
  uint8_t Kind = 0;
  uint8_t Class = PISA_CLASS_IRREGULAR;
  uint16_t Lanes = 1;
  uint32_t Size = 0;
  uint32_t Instr = 0;
  uint32_t Flags = 0;
  StringRef Callee; // empty for indirect calls
};

/// Intrinsics that lower to no code are not instructions (METRICS.md).
inline bool isCounted(const Instruction &I) {
  if (isa<PHINode>(I))
    return false;
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return true;
  if (II->isAssumeLikeIntrinsic())
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::donothing:
  case Intrinsic::is_constant:
  case Intrinsic::launder_invariant_group:
  case Intrinsic::strip_invariant_group:
  case Intrinsic::annotation:
  case Intrinsic::codeview_annotation:
  case Intrinsic::expect:
  case Intrinsic::expect_with_probability:
  case Intrinsic::allow_runtime_check:
  case Intrinsic::allow_ubsan_check:
  case Intrinsic::type_test:
  case Intrinsic::public_type_test:
    return false;
  default:
    return true;
  }
}

inline uint32_t typeBytes(const DataLayout &DL, Type *T) {
  uint64_t Bytes = DL.getTypeStoreSize(T).getKnownMinValue();
  return Bytes > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(Bytes);
}

inline uint8_t opcodeCategory(unsigned Opcode) {
  switch (Opcode) {
#define PISA_CATEGORY_CASE(Num, Name, Cat)                                     \
  case Num:                                                                    \
    return PISA_CAT_##Cat;
    PISA_OPCODES(PISA_CATEGORY_CASE)
#undef PISA_CATEGORY_CASE
  default:
    return PISA_CAT_OTHER;
  }
}

inline uint8_t typeKind(Type *T) {
  if (auto *VT = dyn_cast<VectorType>(T))
    T = VT->getElementType();
  if (T->isVoidTy())
    return PISA_TYPE_VOID;
  if (T->isIntegerTy())
    return PISA_TYPE_INT;
  if (T->isFloatingPointTy())
    return PISA_TYPE_FP;
  if (T->isPointerTy())
    return PISA_TYPE_PTR;
  if (T->isAggregateType())
    return PISA_TYPE_AGGREGATE;
  return PISA_TYPE_OTHER;
}

inline pisa_instr describeInstr(const Instruction &I, const DataLayout &DL) {
  pisa_instr D = {};
  D.opcode = static_cast<uint8_t>(I.getOpcode());
  D.category = opcodeCategory(I.getOpcode());
  Type *T = I.getType();
  if (const auto *SI = dyn_cast<StoreInst>(&I))
    T = SI->getValueOperand()->getType();
  D.type_kind = typeKind(T);
  if (T->isSized()) {
    uint64_t Bits = DL.getTypeSizeInBits(T).getKnownMinValue();
    D.bits = static_cast<uint16_t>(Bits > UINT16_MAX ? UINT16_MAX : Bits);
  }
  if (auto *VT = dyn_cast<VectorType>(T)) {
    D.flags |= PISA_INSTR_VECTOR;
    D.lanes = static_cast<uint16_t>(VT->getElementCount().getKnownMinValue());
  }
  return D;
}

/// Fills S when I is an access or call site; false for everything else.
inline bool classifySite(Instruction &I, const DataLayout &DL, SiteInfo &S) {
  S.I = &I;
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    S.Kind = PISA_SITE_LOAD;
    S.Size = typeBytes(DL, LI->getType());
    return true;
  }
  if (auto *SI = dyn_cast<StoreInst>(&I)) {
    S.Kind = PISA_SITE_STORE;
    S.Size = typeBytes(DL, SI->getValueOperand()->getType());
    return true;
  }
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    S.Kind = PISA_SITE_RMW;
    S.Size = typeBytes(DL, RMW->getValOperand()->getType());
    return true;
  }
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
    S.Kind = PISA_SITE_RMW;
    S.Size = typeBytes(DL, CX->getCompareOperand()->getType());
    return true;
  }
  auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || CB->isInlineAsm())
    return false;
  if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::memcpy:
    case Intrinsic::memcpy_inline:
    case Intrinsic::memmove:
      S.Kind = PISA_SITE_MEMCPY;
      return true;
    case Intrinsic::memset:
    case Intrinsic::memset_inline:
      S.Kind = PISA_SITE_MEMSET;
      return true;
    case Intrinsic::masked_load:
    case Intrinsic::masked_expandload:
      // Recorded as one access of the full vector at the base address.
      S.Kind = PISA_SITE_LOAD;
      S.Size = typeBytes(DL, II->getType());
      return true;
    case Intrinsic::masked_store:
    case Intrinsic::masked_compressstore:
      S.Kind = PISA_SITE_STORE;
      S.Size = typeBytes(DL, II->getArgOperand(0)->getType());
      return true;
    case Intrinsic::masked_gather: {
      auto *VT = cast<FixedVectorType>(II->getType());
      S.Kind = PISA_SITE_GATHER;
      S.Lanes = static_cast<uint16_t>(VT->getNumElements());
      S.Size = typeBytes(DL, VT->getElementType());
      return true;
    }
    case Intrinsic::masked_scatter: {
      auto *VT = cast<FixedVectorType>(II->getArgOperand(0)->getType());
      S.Kind = PISA_SITE_SCATTER;
      S.Lanes = static_cast<uint16_t>(VT->getNumElements());
      S.Size = typeBytes(DL, VT->getElementType());
      return true;
    }
    default:
      return false; // other intrinsics neither access memory we track nor call
    }
  }
  auto *Callee =
      dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
  if (Callee && Callee->isDeclaration() && CB->arg_size() == 3) {
    StringRef Name = Callee->getName();
    if (Name == "memcpy" || Name == "memmove") {
      S.Kind = PISA_SITE_MEMCPY;
      return true;
    }
    if (Name == "memset") {
      S.Kind = PISA_SITE_MEMSET;
      return true;
    }
  }
  S.Kind = PISA_SITE_CALL;
  if (Callee)
    S.Callee = Callee->getName();
  auto *CI = dyn_cast<CallInst>(CB);
  if (!CI || CI->isMustTailCall())
    S.Flags |= PISA_SITE_NO_RESUME; // invoke, callbr, musttail
  return true;
}

/// A private NUL-terminated string in M, one per distinct text (the
/// static tables' names and file names).
inline Constant *internString(Module &M, StringMap<Constant *> &Strings,
                              StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  Constant *Data = ConstantDataArray::getString(M.getContext(), S);
  auto *GV = new GlobalVariable(M, Data->getType(), true,
                                GlobalValue::PrivateLinkage, Data, ".pisa.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Strings[S] = GV;
  return GV;
}

/// A constructor CtorName (priority 1: before the program's) that passes
/// the module's descriptor to the runtime's RegisterFn(ptr).
inline void emitRegistration(Module &M, StringRef RegisterFn,
                             GlobalVariable *ModVar, StringRef CtorName) {
  LLVMContext &Ctx = M.getContext();
  FunctionCallee Register = M.getOrInsertFunction(
      RegisterFn, Type::getVoidTy(Ctx), PointerType::getUnqual(Ctx));
  Function *Ctor =
      Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                       GlobalValue::InternalLinkage, CtorName, M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Ctor));
  B.CreateCall(Register, {ModVar});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 1);
}

/// Record words an access site writes (pisa/abi.h).
inline unsigned pisaSiteWords(const SiteInfo &S) {
  return pisa_site_words(S.Kind, S.Lanes);
}

/// Names of the runtime's own functions; never instrumented.
inline constexpr char PisaPrefix[] = "__pisa_";

/// Whether a pass instruments F: it has a body, is not the runtime's, not
/// naked or excluded, and has no funclet-based exception handling (Windows
/// EH has blocks without insertion points; a warning says so).
inline bool shouldInstrument(Function &F) {
  if (F.isDeclaration() || F.hasAvailableExternallyLinkage())
    return false;
  if (F.getName().starts_with(PisaPrefix))
    return false;
  if (F.hasFnAttribute(Attribute::Naked) ||
      F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) ||
      F.hasFnAttribute("pisa-no-instrument"))
    return false;
  if (F.hasPersonalityFn() &&
      isScopedEHPersonality(classifyEHPersonality(F.getPersonalityFn()))) {
    F.getContext().diagnose(DiagnosticInfoUnsupported(
        F,
        "pisa: functions with funclet-based exception handling are not "
        "instrumented",
        DiagnosticLocation(), DS_Warning));
    return false;
  }
  return true;
}

} // namespace pisa

#endif
