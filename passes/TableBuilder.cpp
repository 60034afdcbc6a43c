//===- TableBuilder.cpp - the static tables' constants --------------------===//
//
// One way to build table constants for both passes: the rows they share
// are laid out once, against the static_asserts on pisa/abi.h's structs.
//
//===----------------------------------------------------------------------===//
#include "TableBuilder.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace pisa {

static_assert(sizeof(pisa_function) == 40 &&
                  sizeof(pisa_counter_function) == 40 &&
                  sizeof(pisa_instr) == 16,
              "functionType() and instrType() mirror pisa/abi.h");

FunctionNames functionNames(const Function &F) {
  FunctionNames Names;
  Names.Name = F.getName().str();
  Names.Display = demangle(Names.Name);
  if (DISubprogram *SP = F.getSubprogram()) {
    Names.File = SP->getFilename().str();
    Names.Line = SP->getLine();
  }
  return Names;
}

TableBuilder::TableBuilder(Module &M)
    : M(M), Ctx(M.getContext()), I8(Type::getInt8Ty(Ctx)),
      I16(Type::getInt16Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
      PtrTy(PointerType::getUnqual(Ctx)) {}

Constant *TableBuilder::i8(uint64_t V) const { return ConstantInt::get(I8, V); }

Constant *TableBuilder::i16(uint64_t V) const {
  return ConstantInt::get(I16, V);
}

Constant *TableBuilder::i32(uint64_t V) const {
  return ConstantInt::get(I32, V);
}

Constant *TableBuilder::str(StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  Constant *Data = ConstantDataArray::getString(Ctx, S);
  auto *GV = new GlobalVariable(M, Data->getType(), true,
                                GlobalValue::PrivateLinkage, Data, ".pisa.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Strings[S] = GV;
  return GV;
}

Constant *TableBuilder::strOrNull(StringRef S) {
  return S.empty() ? ConstantPointerNull::get(PtrTy) : str(S);
}

Constant *TableBuilder::directory() {
  for (DICompileUnit *CU : M.debug_compile_units())
    if (!CU->getDirectory().empty())
      return str(CU->getDirectory());
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    return ConstantPointerNull::get(PtrTy);
  return str(Cwd);
}

GlobalVariable *TableBuilder::array(Type *Elem, ArrayRef<Constant *> Elems,
                                    const Twine &Name) {
  auto *Ty = ArrayType::get(Elem, Elems.size());
  return new GlobalVariable(M, Ty, true, GlobalValue::PrivateLinkage,
                            ConstantArray::get(Ty, Elems), Name);
}

GlobalVariable *TableBuilder::u32Array(ArrayRef<uint32_t> Values,
                                       const Twine &Name) {
  std::vector<Constant *> Elems;
  for (uint32_t V : Values)
    Elems.push_back(i32(V));
  return array(I32, Elems, Name);
}

StructType *TableBuilder::functionType() const {
  return StructType::get(Ctx, {PtrTy, PtrTy, PtrTy, I32, I32, I32, I32});
}

Constant *TableBuilder::functionRow(const FunctionNames &F, uint32_t A,
                                    uint32_t B, uint32_t C) {
  return ConstantStruct::get(functionType(),
                             {str(F.Name), str(F.Display), strOrNull(F.File),
                              i32(F.Line), i32(A), i32(B), i32(C)});
}

StructType *TableBuilder::instrType() const {
  return StructType::get(Ctx, {I8, I8, I8, I8, I16, I16, I32, I32});
}

Constant *TableBuilder::instrRow(const pisa_instr &I) const {
  return ConstantStruct::get(instrType(),
                             {i8(I.opcode), i8(I.category), i8(I.type_kind),
                              i8(I.flags), i16(I.lanes), i16(I.bits),
                              i32(I.first_operand), i32(I.n_operands)});
}

GlobalVariable *TableBuilder::markedGlobal(Constant *Init, const Twine &Name) {
  auto *GV = new GlobalVariable(M, Init->getType(), false,
                                GlobalValue::InternalLinkage, Init, Name);
  GV->setSection(PISA_MARKER_SECTION);
  appendToUsed(M, {GV});
  return GV;
}

} // namespace pisa
