//===- Runtime.cpp - how instrumented code reaches the pisa-char runtime --===//
//
// The IR both passes use to declare and call the runtime, so that the two
// modes reach it the same way.
//
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace pisa {

GlobalVariable *declareRuntimeTLS(Module &M, Type *Ty, StringRef Name) {
  return new GlobalVariable(M, Ty, false, GlobalValue::ExternalLinkage, nullptr,
                            Name, nullptr, GlobalValue::InitialExecTLSModel);
}

FunctionCallee declareColdRuntimeFn(Module &M, StringRef Name, Type *Ret,
                                    ArrayRef<Type *> Params) {
  LLVMContext &Ctx = M.getContext();
  AttributeList Attrs = AttributeList()
                            .addFnAttribute(Ctx, Attribute::Cold)
                            .addFnAttribute(Ctx, Attribute::NoUnwind);
  return M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false),
                               Attrs);
}

Instruction *splitRarePath(Value *Cond, Instruction *At) {
  MDNode *Weights =
      MDBuilder(At->getContext()).createBranchWeights(1, 1u << 20);
  return SplitBlockAndInsertIfThen(Cond, At, false, Weights);
}

void emitRegistration(Module &M, StringRef RegisterFn, GlobalVariable *ModVar,
                      StringRef CtorName) {
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

} // namespace pisa
