//===- DeepEmit.cpp - the deep pass's static tables -----------------------===//
//
// Emits the module's deep tables (pisa/abi.h), the descriptor that points
// to them in the marker section, and the constructor that registers it.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"
#include "Runtime.h"
#include "Targets.h"

using namespace llvm;

namespace pisa {

namespace {

const char PisaCtorFn[] = "__pisa_module_ctor";

static_assert(sizeof(pisa_block) == 48 && sizeof(pisa_site) == 24 &&
                  sizeof(pisa_phi) == 16 && sizeof(pisa_module) == 128,
              "the emitted struct types below mirror pisa/abi.h");

GlobalVariable *emitFunctions(TableBuilder &TB, const DeepTables &T) {
  std::vector<Constant *> Rows;
  for (const DeepFunction &F : T.Functions)
    Rows.push_back(TB.functionRow(F.Names, F.FirstBlock, F.NBlocks, 0));
  return TB.array(TB.functionType(), Rows, "__pisa_functions");
}

GlobalVariable *emitBlocks(TableBuilder &TB, const DeepTables &T) {
  auto *Ty = StructType::get(TB.Ctx, std::vector<Type *>(12, TB.I32));
  std::vector<Constant *> Rows;
  for (const DeepBlock &Block : T.Blocks) {
    const pisa_block &B = Block.Table;
    Rows.push_back(ConstantStruct::get(
        Ty, {TB.i32(B.function), TB.i32(B.first_instr), TB.i32(B.n_instrs),
             TB.i32(B.first_site), TB.i32(B.n_sites), TB.i32(B.n_phis),
             TB.i32(B.bytes_loaded), TB.i32(B.bytes_stored),
             TB.i32(B.first_successor), TB.i32(B.n_successors),
             TB.i32(B.first_phi), TB.i32(0)}));
  }
  return TB.array(Ty, Rows, "__pisa_blocks");
}

GlobalVariable *emitInstrs(TableBuilder &TB, const DeepTables &T) {
  std::vector<Constant *> Rows;
  for (const pisa_instr &I : T.Instrs)
    Rows.push_back(TB.instrRow(I));
  return TB.array(TB.instrType(), Rows, "__pisa_instrs");
}

GlobalVariable *emitSites(TableBuilder &TB, const DeepTables &T) {
  auto *Ty = StructType::get(
      TB.Ctx, {TB.I8, TB.I8, TB.I16, TB.I32, TB.I32, TB.I32, TB.PtrTy});
  std::vector<Constant *> Rows;
  for (const SiteInfo &S : T.Sites)
    Rows.push_back(ConstantStruct::get(
        Ty, {TB.i8(S.Kind), TB.i8(S.Class), TB.i16(S.Lanes), TB.i32(S.Size),
             TB.i32(S.Instr), TB.i32(S.Flags), TB.strOrNull(S.Callee)}));
  return TB.array(Ty, Rows, "__pisa_sites");
}

GlobalVariable *emitPhis(TableBuilder &TB, const DeepTables &T) {
  auto *Ty = StructType::get(TB.Ctx, {TB.I32, TB.I32, TB.I32, TB.I32});
  std::vector<Constant *> Rows;
  for (const pisa_phi &P : T.Phis)
    Rows.push_back(
        ConstantStruct::get(Ty, {TB.i32(P.block), TB.i32(P.first_incoming),
                                 TB.i32(P.n_incoming), TB.i32(P.flags)}));
  return TB.array(Ty, Rows, "__pisa_phis");
}

} // namespace

void emitDeepTables(Module &M, const DeepTables &T, GlobalVariable *BlockBase) {
  TableBuilder TB(M);
  GlobalVariable *FnArr = emitFunctions(TB, T);
  GlobalVariable *BlockArr = emitBlocks(TB, T);
  GlobalVariable *InstrArr = emitInstrs(TB, T);
  GlobalVariable *SiteArr = emitSites(TB, T);
  std::vector<uint32_t> SuccIds;
  for (BasicBlock *Succ : T.Successors)
    SuccIds.push_back(T.BlockIds.lookup(Succ));
  GlobalVariable *SuccArr = TB.u32Array(SuccIds, "__pisa_successors");
  GlobalVariable *OperandArr = TB.u32Array(T.Operands, "__pisa_operands");
  GlobalVariable *IncomingArr = TB.u32Array(T.Incoming, "__pisa_incoming");
  GlobalVariable *PhiArr = emitPhis(TB, T);

  std::vector<Type *> Fields(10, TB.I32);
  Fields.insert(Fields.end(), 11, TB.PtrTy);
  auto *ModTy = StructType::get(TB.Ctx, Fields);
  Constant *Desc = ConstantStruct::get(ModTy, {TB.i32(PISA_ABI_VERSION),
                                               TB.i32(T.Functions.size()),
                                               TB.i32(T.Blocks.size()),
                                               TB.i32(T.Instrs.size()),
                                               TB.i32(T.Sites.size()),
                                               TB.i32(T.Successors.size()),
                                               TB.i32(T.Operands.size()),
                                               TB.i32(T.Phis.size()),
                                               TB.i32(T.Incoming.size() / 2),
                                               TB.i32(PISA_MODE_DEEP),
                                               TB.str(M.getSourceFileName()),
                                               TB.directory(),
                                               FnArr,
                                               BlockArr,
                                               InstrArr,
                                               SiteArr,
                                               SuccArr,
                                               OperandArr,
                                               PhiArr,
                                               IncomingArr,
                                               BlockBase});
  GlobalVariable *ModVar = TB.markedGlobal(Desc, DeepModuleVar);
  emitRegistration(M, PISA_FN_REGISTER, ModVar, PisaCtorFn);
}

} // namespace pisa
