//===- InstrInfo.cpp - what the pisa-char passes count and record ---------===//
//
// The instruction and site descriptions both passes put in their tables, so
// that counter mode's instruction mix is deep mode's by construction.
//
//===----------------------------------------------------------------------===//
#include "InstrInfo.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace pisa {

bool isCounted(const Instruction &I) {
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

namespace {

uint32_t typeBytes(const DataLayout &DL, Type *T) {
  uint64_t Bytes = DL.getTypeStoreSize(T).getKnownMinValue();
  return Bytes > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(Bytes);
}

uint8_t opcodeCategory(unsigned Opcode) {
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

uint8_t typeKind(Type *T) {
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

/// Memory intrinsics and masked vector accesses; false for the other
/// intrinsics, which neither access memory we track nor call.
bool classifyIntrinsic(IntrinsicInst &II, const DataLayout &DL, SiteInfo &S) {
  switch (II.getIntrinsicID()) {
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
    S.Size = typeBytes(DL, II.getType());
    return true;
  case Intrinsic::masked_store:
  case Intrinsic::masked_compressstore:
    S.Kind = PISA_SITE_STORE;
    S.Size = typeBytes(DL, II.getArgOperand(0)->getType());
    return true;
  case Intrinsic::masked_gather: {
    auto *VT = cast<FixedVectorType>(II.getType());
    S.Kind = PISA_SITE_GATHER;
    S.Lanes = static_cast<uint16_t>(VT->getNumElements());
    S.Size = typeBytes(DL, VT->getElementType());
    return true;
  }
  case Intrinsic::masked_scatter: {
    auto *VT = cast<FixedVectorType>(II.getArgOperand(0)->getType());
    S.Kind = PISA_SITE_SCATTER;
    S.Lanes = static_cast<uint16_t>(VT->getNumElements());
    S.Size = typeBytes(DL, VT->getElementType());
    return true;
  }
  default:
    return false;
  }
}

/// A call: libc's memcpy, memmove and memset are accesses, everything else
/// a call site.
void classifyCall(CallBase &CB, SiteInfo &S) {
  auto *Callee = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (Callee && Callee->isDeclaration() && CB.arg_size() == 3) {
    StringRef Name = Callee->getName();
    if (Name == "memcpy" || Name == "memmove") {
      S.Kind = PISA_SITE_MEMCPY;
      return;
    }
    if (Name == "memset") {
      S.Kind = PISA_SITE_MEMSET;
      return;
    }
  }
  S.Kind = PISA_SITE_CALL;
  if (Callee)
    S.Callee = Callee->getName();
  auto *CI = dyn_cast<CallInst>(&CB);
  if (!CI || CI->isMustTailCall())
    S.Flags |= PISA_SITE_NO_RESUME; // invoke, callbr, musttail
}

/// The category of an intrinsic that lowers to arithmetic rather than to a
/// call: fp or int by its value's element type, bitwise for bit
/// manipulation; control (a call) for every other intrinsic.
uint8_t intrinsicCategory(const IntrinsicInst &II) {
  Type *T = II.getType()->getScalarType();
  uint8_t Arith = T->isFloatingPointTy() ? PISA_CAT_FP : PISA_CAT_INT;
  switch (II.getIntrinsicID()) {
  case Intrinsic::fmuladd:
  case Intrinsic::fma:
  case Intrinsic::sqrt:
  case Intrinsic::fabs:
  case Intrinsic::copysign:
  case Intrinsic::minnum:
  case Intrinsic::maxnum:
  case Intrinsic::minimum:
  case Intrinsic::maximum:
  case Intrinsic::floor:
  case Intrinsic::ceil:
  case Intrinsic::trunc:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
  case Intrinsic::round:
  case Intrinsic::roundeven:
  case Intrinsic::sin:
  case Intrinsic::cos:
  case Intrinsic::exp:
  case Intrinsic::exp2:
  case Intrinsic::log:
  case Intrinsic::log2:
  case Intrinsic::log10:
  case Intrinsic::pow:
  case Intrinsic::powi:
  case Intrinsic::vector_reduce_fadd:
  case Intrinsic::vector_reduce_fmul:
  case Intrinsic::vector_reduce_fmin:
  case Intrinsic::vector_reduce_fmax:
  case Intrinsic::smin:
  case Intrinsic::smax:
  case Intrinsic::umin:
  case Intrinsic::umax:
  case Intrinsic::abs:
  case Intrinsic::sadd_sat:
  case Intrinsic::uadd_sat:
  case Intrinsic::ssub_sat:
  case Intrinsic::usub_sat:
  case Intrinsic::sadd_with_overflow:
  case Intrinsic::uadd_with_overflow:
  case Intrinsic::ssub_with_overflow:
  case Intrinsic::usub_with_overflow:
  case Intrinsic::smul_with_overflow:
  case Intrinsic::umul_with_overflow:
  case Intrinsic::vector_reduce_add:
  case Intrinsic::vector_reduce_mul:
  case Intrinsic::vector_reduce_smin:
  case Intrinsic::vector_reduce_smax:
  case Intrinsic::vector_reduce_umin:
  case Intrinsic::vector_reduce_umax:
    return Arith;
  case Intrinsic::ctpop:
  case Intrinsic::ctlz:
  case Intrinsic::cttz:
  case Intrinsic::bswap:
  case Intrinsic::bitreverse:
  case Intrinsic::fshl:
  case Intrinsic::fshr:
  case Intrinsic::vector_reduce_and:
  case Intrinsic::vector_reduce_or:
  case Intrinsic::vector_reduce_xor:
    return PISA_CAT_BITWISE;
  default:
    return PISA_CAT_CONTROL;
  }
}

} // namespace

pisa_instr describeInstr(const Instruction &I, const DataLayout &DL) {
  pisa_instr D = {};
  D.opcode = static_cast<uint8_t>(I.getOpcode());
  D.category = opcodeCategory(I.getOpcode());
  if (const auto *II = dyn_cast<IntrinsicInst>(&I))
    D.category = intrinsicCategory(*II);
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

bool classifySite(Instruction &I, const DataLayout &DL, SiteInfo &S) {
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
  if (auto *II = dyn_cast<IntrinsicInst>(CB))
    return classifyIntrinsic(*II, DL, S);
  classifyCall(*CB, S);
  return true;
}

void addFixedBytes(const SiteInfo &S, uint32_t &Loaded, uint32_t &Stored) {
  if (S.Kind == PISA_SITE_LOAD || S.Kind == PISA_SITE_RMW)
    Loaded += S.Size;
  if (S.Kind == PISA_SITE_STORE || S.Kind == PISA_SITE_RMW)
    Stored += S.Size;
}

Value *sitePointer(const SiteInfo &S) {
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

} // namespace pisa
