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
                  sizeof(pisa_phi) == 16 && sizeof(pisa_module) == 232 &&
                  sizeof(pisa_loop) == 36 && sizeof(pisa_line) == 12 &&
                  sizeof(pisa_frame) == 8 && sizeof(pisa_heap_site) == 16 &&
                  sizeof(pisa_global) == 32,
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
             TB.i32(B.first_phi), TB.i32(B.source)}));
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

/// A table whose rows are Width uint32 fields: Fields(Row) gives them.
template <typename Row, typename FieldsFn>
GlobalVariable *emitU32Rows(TableBuilder &TB, const std::vector<Row> &Rows,
                            unsigned Width, FieldsFn Fields, const char *Name) {
  auto *Ty = StructType::get(TB.Ctx, std::vector<Type *>(Width, TB.I32));
  std::vector<Constant *> Consts;
  for (const Row &R : Rows) {
    std::vector<Constant *> Values;
    for (uint32_t V : Fields(R))
      Values.push_back(TB.i32(V));
    Consts.push_back(ConstantStruct::get(Ty, Values));
  }
  return TB.array(Ty, Consts, Name);
}

GlobalVariable *emitPhis(TableBuilder &TB, const DeepTables &T) {
  return emitU32Rows(
      TB, T.Phis, 4,
      [](const pisa_phi &P) {
        return std::vector<uint32_t>{P.block, P.first_incoming, P.n_incoming,
                                     P.flags};
      },
      "__pisa_phis");
}

GlobalVariable *emitLoops(TableBuilder &TB, const DeepTables &T) {
  return emitU32Rows(
      TB, T.Loops, 9,
      [](const pisa_loop &L) {
        return std::vector<uint32_t>{L.function, L.source,     L.parent,
                                     L.header,   L.preheader,  L.depth,
                                     L.file,     L.first_line, L.last_line};
      },
      "__pisa_loops");
}

GlobalVariable *emitLines(TableBuilder &TB, const DeepTables &T) {
  return emitU32Rows(
      TB, T.Lines, 3,
      [](const pisa_line &L) {
        return std::vector<uint32_t>{L.file, L.line, L.n_instrs};
      },
      "__pisa_lines");
}

GlobalVariable *emitFiles(TableBuilder &TB, const DeepTables &T) {
  std::vector<Constant *> Names;
  for (const std::string &F : T.Files)
    Names.push_back(TB.str(F));
  return TB.array(TB.PtrTy, Names, "__pisa_files");
}

GlobalVariable *emitHeapSites(TableBuilder &TB, const DeepTables &T) {
  auto *Ty = StructType::get(TB.Ctx, {TB.PtrTy, TB.I32, TB.I32});
  std::vector<Constant *> Rows;
  for (size_t I = 0; I < T.HeapSites.size(); ++I)
    Rows.push_back(ConstantStruct::get(Ty, {TB.str(T.HeapCalls[I].Allocator),
                                            TB.i32(T.HeapSites[I].first_frame),
                                            TB.i32(T.HeapSites[I].n_frames)}));
  return TB.array(Ty, Rows, "__pisa_heap_sites");
}

GlobalVariable *emitFrames(TableBuilder &TB, const DeepTables &T) {
  return emitU32Rows(
      TB, T.Frames, 2,
      [](const pisa_frame &F) { return std::vector<uint32_t>{F.file, F.line}; },
      "__pisa_frames");
}

GlobalVariable *emitGlobals(TableBuilder &TB, const DeepTables &T) {
  Type *I64 = Type::getInt64Ty(TB.Ctx);
  auto *Ty = StructType::get(TB.Ctx, {TB.PtrTy, I64, TB.PtrTy, TB.I32, TB.I32});
  std::vector<Constant *> Rows;
  for (const DeepGlobal &G : T.Globals)
    Rows.push_back(ConstantStruct::get(
        Ty, {G.Var, ConstantInt::get(I64, G.Size), TB.str(G.Name),
             TB.i32(G.File), TB.i32(G.Line)}));
  return TB.array(Ty, Rows, "__pisa_globals");
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
  std::vector<uint32_t> BlockLines = T.BlockLines;
  BlockLines.push_back(static_cast<uint32_t>(T.Lines.size()));

  std::vector<Type *> Fields(10, TB.I32);
  Fields.insert(Fields.end(), 6, TB.PtrTy);
  Fields.insert(Fields.end(), 4, TB.I32); // loops and lines
  Fields.insert(Fields.end(), 10, TB.PtrTy);
  Fields.insert(Fields.end(), 4, TB.I32); // data objects
  Fields.insert(Fields.end(), 4, TB.PtrTy);
  auto *ModTy = StructType::get(TB.Ctx, Fields);
  Constant *Desc = ConstantStruct::get(
      ModTy, {TB.i32(PISA_ABI_VERSION),
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
              TB.i32(T.Loops.size()),
              TB.i32(T.Lines.size()),
              TB.i32(T.Files.size()),
              TB.i32(0),
              emitLoops(TB, T),
              TB.u32Array(T.BlockLoops, "__pisa_block_loops"),
              TB.u32Array(BlockLines, "__pisa_block_lines"),
              emitLines(TB, T),
              emitFiles(TB, T),
              SuccArr,
              OperandArr,
              PhiArr,
              IncomingArr,
              BlockBase,
              TB.i32(T.HeapSites.size()),
              TB.i32(T.Frames.size()),
              TB.i32(T.Globals.size()),
              TB.i32(0),
              emitHeapSites(TB, T),
              emitFrames(TB, T),
              emitGlobals(TB, T),
              T.HeapCalls.empty() ? Constant::getNullValue(TB.PtrTy)
                                  : static_cast<Constant *>(heapBaseVar(M))});
  GlobalVariable *ModVar = TB.markedGlobal(Desc, DeepModuleVar);
  emitRegistration(M, PISA_FN_REGISTER, ModVar, PisaCtorFn);
}

} // namespace pisa
