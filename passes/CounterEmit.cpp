//===- CounterEmit.cpp - the counter pass's static tables -----------------===//
//
// Emits the thread-local counter array, the module's counter tables
// (pisa/abi.h), the descriptor and marker string in the marker section,
// and the constructor and destructor that register and unregister the
// descriptor.
//
//===----------------------------------------------------------------------===//
#include "CounterTables.h"
#include "Runtime.h"
#include "Targets.h"

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace pisa {

namespace {

const char CounterArrayVar[] = "__pisa_counters";
const char CounterAddrFn[] = "__pisa_counters_addr";
const char CtorFn[] = "__pisa_counter_ctor";
const char DtorFn[] = "__pisa_counter_dtor";
const char MarkerVar[] = "__pisa_counter_marker";

static_assert(sizeof(pisa_counter_set) == 19 * 4 &&
                  sizeof(pisa_counter_term) == 8 &&
                  sizeof(pisa_counter_module) == 104,
              "the emitted struct types below mirror pisa/abi.h");

/// The thread-local counters, replacing the placeholder, and the function
/// through which the runtime finds a thread's copy.
Function *emitCounters(Module &M, const CounterRuntime &RT, uint32_t N) {
  auto *ArrTy = ArrayType::get(Type::getInt64Ty(M.getContext()), N);
  auto *Counters =
      new GlobalVariable(M, ArrTy, false, GlobalValue::InternalLinkage,
                         ConstantAggregateZero::get(ArrTy), CounterArrayVar,
                         nullptr, GlobalValue::GeneralDynamicTLSModel);
  Counters->setAlignment(Align(64));
  RT.Placeholder->replaceAllUsesWith(Counters);
  RT.Placeholder->eraseFromParent();
  Function *Addr = Function::Create(
      FunctionType::get(PointerType::getUnqual(M.getContext()), false),
      GlobalValue::InternalLinkage, CounterAddrFn, M);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "", Addr));
  B.CreateRet(B.CreateThreadLocalAddress(Counters));
  return Addr;
}

/// A footprint build's thread-local tops, one per function, and the
/// descriptor the functions pass to the runtime, in place of the
/// placeholders.
void emitFootprintTops(Module &M, const CounterRuntime &RT,
                       GlobalVariable *ModVar, size_t NFunctions) {
  auto *ArrTy =
      ArrayType::get(PointerType::getUnqual(M.getContext()), NFunctions);
  auto *Tops =
      new GlobalVariable(M, ArrTy, false, GlobalValue::InternalLinkage,
                         ConstantAggregateZero::get(ArrTy), "__pisa_fp_tops",
                         nullptr, GlobalValue::GeneralDynamicTLSModel);
  RT.FootprintTops->replaceAllUsesWith(Tops);
  RT.FootprintTops->eraseFromParent();
  RT.FootprintModule->replaceAllUsesWith(ModVar);
  RT.FootprintModule->eraseFromParent();
}

std::vector<Constant *> functionRows(TableBuilder &TB, const CounterTables &T) {
  std::vector<Constant *> Rows;
  for (const CounterFunction &F : T.Functions)
    Rows.push_back(TB.functionRow(F.Names, F.FirstSet, F.NSets, F.DynCounter));
  return Rows;
}

StructType *setType(TableBuilder &TB) {
  return StructType::get(TB.Ctx, std::vector<Type *>(19, TB.I32));
}

std::vector<Constant *> setRows(TableBuilder &TB, const CounterTables &T) {
  std::vector<Constant *> Rows;
  for (const pisa_counter_set &S : T.Sets) {
    std::vector<Constant *> F = {
        TB.i32(S.function),     TB.i32(S.n_blocks),     TB.i32(S.first_term),
        TB.i32(S.n_terms),      TB.i32(S.first_instr),  TB.i32(S.n_instrs),
        TB.i32(S.first_call),   TB.i32(S.n_calls),      TB.i32(S.n_phis),
        TB.i32(S.bytes_loaded), TB.i32(S.bytes_stored), TB.i32(S.line)};
    for (uint32_t A : S.accesses)
      F.push_back(TB.i32(A));
    Rows.push_back(ConstantStruct::get(setType(TB), F));
  }
  return Rows;
}

StructType *termType(TableBuilder &TB) {
  return StructType::get(TB.Ctx, {TB.I32, TB.I32});
}

std::vector<Constant *> termRows(TableBuilder &TB, const CounterTables &T) {
  std::vector<Constant *> Rows;
  for (const pisa_counter_term &Term : T.Terms)
    Rows.push_back(ConstantStruct::get(
        termType(TB), {TB.i32(Term.counter), TB.i32(uint32_t(Term.coeff))}));
  return Rows;
}

} // namespace

void emitCounterTables(Module &M, const CounterRuntime &RT,
                       const CounterTables &T) {
  TableBuilder TB(M);
  Function *Addr = emitCounters(M, RT, T.Ids.N);
  std::vector<Constant *> Fns = functionRows(TB, T);
  std::vector<Constant *> Sets = setRows(TB, T);
  std::vector<Constant *> Terms = termRows(TB, T);
  std::vector<Constant *> Instrs, Calls;
  for (const pisa_instr &I : T.Instrs)
    Instrs.push_back(TB.instrRow(I));
  for (const std::string &C : T.Calls)
    Calls.push_back(TB.str(C));

  std::vector<Type *> Fields(8, TB.I32);
  Fields.insert(Fields.end(), 9, TB.PtrTy);
  auto *ModTy = StructType::get(TB.Ctx, Fields);
  Constant *Desc = ConstantStruct::get(
      ModTy,
      {TB.i32(PISA_ABI_VERSION),
       TB.i32(RT.FootprintTops ? PISA_MODE_FOOTPRINT : PISA_MODE_COUNTER),
       TB.i32(T.Functions.size()), TB.i32(T.Sets.size()),
       TB.i32(T.Terms.size()), TB.i32(T.Instrs.size()), TB.i32(T.Calls.size()),
       TB.i32(T.Ids.N), TB.str(M.getSourceFileName()), TB.directory(),
       TB.array(TB.functionType(), Fns, "__pisa_counter_functions"),
       TB.array(setType(TB), Sets, "__pisa_counter_sets"),
       TB.array(termType(TB), Terms, "__pisa_counter_terms"),
       TB.array(TB.instrType(), Instrs, "__pisa_counter_instrs"),
       TB.array(TB.PtrTy, Calls, "__pisa_counter_calls"),
       TB.u32Array(T.Ids.IncrementSets, "__pisa_counter_increments"), Addr});
  GlobalVariable *ModVar = TB.markedGlobal(Desc, CounterModuleVar);
  if (RT.FootprintTops) {
    emitFootprintTops(M, RT, ModVar, T.Functions.size());
    TB.markedGlobal(ConstantDataArray::getString(TB.Ctx, PISA_FOOTPRINT_MARKER),
                    "__pisa_footprint_marker");
  }
  // pisa-char tells a counter build from a deep one by this string.
  TB.markedGlobal(ConstantDataArray::getString(TB.Ctx, PISA_COUNTER_MARKER),
                  MarkerVar);
  emitRegistration(M, PISA_FN_COUNTER_REGISTER, ModVar, CtorFn);
  // Its counters live in the module's thread-local storage and its tables
  // in its image: the runtime copies both when a dlclose unloads it.
  emitUnregistration(M, PISA_FN_COUNTER_UNREGISTER, ModVar, DtorFn);
}

} // namespace pisa
