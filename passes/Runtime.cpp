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

/// An internal function FnName that passes the descriptor to RuntimeFn.
static Function *emitDescriptorCall(Module &M, StringRef RuntimeFn,
                                    GlobalVariable *ModVar, StringRef FnName) {
  LLVMContext &Ctx = M.getContext();
  FunctionCallee Callee = M.getOrInsertFunction(RuntimeFn, Type::getVoidTy(Ctx),
                                                PointerType::getUnqual(Ctx));
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                 GlobalValue::InternalLinkage, FnName, M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", F));
  B.CreateCall(Callee, {ModVar});
  B.CreateRetVoid();
  return F;
}

void emitRegistration(Module &M, StringRef RegisterFn, GlobalVariable *ModVar,
                      StringRef CtorName) {
  appendToGlobalCtors(M, emitDescriptorCall(M, RegisterFn, ModVar, CtorName),
                      1);
}

void emitUnregistration(Module &M, StringRef UnregisterFn,
                        GlobalVariable *ModVar, StringRef DtorName) {
  appendToGlobalDtors(M, emitDescriptorCall(M, UnregisterFn, ModVar, DtorName),
                      1);
}

} // namespace pisa
