//===- DeepTables.h - the deep pass's tables and its workers --------------===//
//
// The static tables the deep pass builds for a module (pisa/abi.h), with
// the IR each row describes, and the workers that fill them (DeepTables.cpp,
// DeepDataflow.cpp), instrument from them (DeepRecords.cpp) and emit them
// (DeepEmit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_DEEP_TABLES_H
#define PISA_DEEP_TABLES_H

#include "InstrInfo.h"
#include "TableBuilder.h"

#include "pisa/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <array>
#include <vector>

namespace pisa {

struct DeepBlock {
  llvm::BasicBlock *BB;
  pisa_block Table;
};

struct DeepFunction {
  FunctionNames Names;
  uint32_t FirstBlock = 0, NBlocks = 0;
};

/// A call to an allocation or release function (DeepObjects.cpp): how its
/// heap event's words follow from its arguments and result.
struct HeapCall {
  llvm::CallBase *Call;
  const char *Allocator;
  int Size, Count, Released, Out; // argument indexes, -1 for none
  bool Mmap;                      // fails with MAP_FAILED, not NULL
};

/// A global variable of the module (pisa_global).
struct DeepGlobal {
  llvm::GlobalVariable *Var;
  uint64_t Size;
  std::string Name;
  uint32_t File, Line;
};

/// A module's tables, indexed module-locally as the runtime sees them.
struct DeepTables {
  std::vector<DeepFunction> Functions;
  std::vector<DeepBlock> Blocks;
  std::vector<pisa_instr> Instrs;
  std::vector<SiteInfo> Sites;
  std::vector<llvm::BasicBlock *>
      Successors; // of conditional branches, switches
  llvm::DenseMap<llvm::BasicBlock *, uint32_t> BlockIds;
  // Dataflow (issue 4): counted instructions and phis by module-local index.
  std::vector<llvm::Instruction *> InstrValues; // parallel to Instrs
  llvm::DenseMap<const llvm::Instruction *, uint32_t> InstrIndex;
  std::vector<llvm::PHINode *> PhiValues;
  llvm::DenseMap<const llvm::PHINode *, uint32_t> PhiIndex;
  std::vector<pisa_phi> Phis;
  std::vector<uint32_t> Operands, Incoming;
  // Branches the pass added after region markers: not counted.
  llvm::SmallPtrSet<llvm::Instruction *, 8> Artificial;
  // Loops and source lines (issue 17): BlockLoops is parallel to Blocks,
  // BlockLines has one more entry (block b's runs end at BlockLines[b+1]).
  std::vector<pisa_loop> Loops;
  std::vector<uint32_t> BlockLoops, BlockLines;
  std::vector<pisa_line> Lines;
  std::vector<std::string> Files;
  llvm::StringMap<uint32_t> FileIds;
  // Data objects (issue 17): heap sites, parallel to HeapCalls, with their
  // frames; the module's global variables.
  std::vector<HeapCall> HeapCalls;
  std::vector<pisa_heap_site> HeapSites;
  std::vector<pisa_frame> Frames;
  llvm::DenseMap<const llvm::Instruction *, uint32_t> HeapCallIds;
  std::vector<DeepGlobal> Globals;
};

/// The function analyses the deep pass needs.
struct FunctionAnalyses {
  llvm::ScalarEvolution &SE;
  llvm::LoopInfo &LI;
};

/// Appends F's function, blocks, instructions, sites, successors, phis and
/// dataflow to T.
void describeFunction(llvm::Function &F, FunctionAnalyses FA, DeepTables &T);

/// The index of a source file name in T.Files, added at its first use.
uint32_t fileId(llvm::StringRef Name, DeepTables &T);

/// Records CB as a heap site when it calls an allocation or release
/// function and returns to its block (not an invoke or musttail call).
void describeHeapCall(llvm::CallBase &CB, DeepTables &T);

/// The words of CB's heap event after it returned (base, size, released),
/// built with B at the start of the segment that follows the call.
std::array<llvm::Value *, 3> heapEventWords(llvm::IRBuilder<> &B,
                                            const HeapCall &H);

/// The variable that holds the module's first global heap site id.
llvm::GlobalVariable *heapBaseVar(llvm::Module &M);

/// Lists M's global variables (before the pass adds its own).
void describeGlobals(llvm::Module &M, DeepTables &T);

/// Appends the source-line run of I (a counted instruction of the block
/// being described) to T's line table.
void recordLine(const llvm::Instruction &I, DeepTables &T);

/// Appends F's loops (LoopInfo, in preorder) to T and sets the innermost
/// loop of F's blocks, which start at block FirstBlock.
void describeLoops(llvm::Function &F, uint32_t FnIndex, uint32_t FirstBlock,
                   llvm::LoopInfo &LI, DeepTables &T);

/// Operand sources of the counted instructions and incoming values of the
/// phis of the blocks from FirstBlock on; then the loop-index update marks.
void recordDataflow(uint32_t FirstBlock, FunctionAnalyses FA, DeepTables &T);

/// Sets every block's source function (pisa_block.source) from the debug
/// locations of its instructions, adding functions that exist only inlined,
/// and every loop's (its header's).
void attributeSources(DeepTables &T);

/// Makes every block of T write its record words to the thread's buffer;
/// returns the variable that holds the module's first block id.
llvm::GlobalVariable *instrumentRecords(llvm::Module &M, const DeepTables &T);

/// Emits T and the descriptor that points to it (DeepModuleVar), with the
/// constructor that registers it.
void emitDeepTables(llvm::Module &M, const DeepTables &T,
                    llvm::GlobalVariable *BlockBase);

} // namespace pisa

#endif
