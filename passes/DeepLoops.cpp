//===- DeepLoops.cpp - the deep pass's loop and line tables ---------------===//
//
// Records every loop LoopInfo finds in the optimised code (nesting, header,
// preheader, source range) and, per block, the source line of each counted
// instruction as runs, so the runtime attributes counts to loops and lines.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"

#include "llvm/IR/DebugInfoMetadata.h"

using namespace llvm;

namespace pisa {

uint32_t fileId(StringRef Name, DeepTables &T) {
  auto [It, Added] =
      T.FileIds.try_emplace(Name, static_cast<uint32_t>(T.Files.size()));
  if (Added)
    T.Files.push_back(Name.str());
  return It->second;
}

namespace {

/// L's source range: llvm.loop's start and end locations when the front
/// end wrote them, else the header's location (Loop::getLocRange).
void setRange(const Loop &L, pisa_loop &Row, DeepTables &T) {
  Loop::LocRange Range = L.getLocRange();
  const DILocation *Start = Range.getStart().get();
  if (!Start)
    return;
  Row.file = fileId(Start->getFilename(), T);
  Row.first_line = Start->getLine();
  const DILocation *End = Range.getEnd().get();
  Row.last_line =
      End && End->getLine() >= Row.first_line ? End->getLine() : Row.first_line;
}

} // namespace

void recordLine(const Instruction &I, DeepTables &T) {
  pisa_line Run = {PISA_INDEX_NONE, 0, 1};
  if (const DILocation *Loc = I.getDebugLoc().get()) {
    Run.file = fileId(Loc->getFilename(), T);
    Run.line = Loc->getLine();
  }
  // Runs never span blocks: the current block's runs start at the last
  // BlockLines entry.
  if (T.Lines.size() > T.BlockLines.back() && T.Lines.back().file == Run.file &&
      T.Lines.back().line == Run.line) {
    ++T.Lines.back().n_instrs;
    return;
  }
  T.Lines.push_back(Run);
}

void describeLoops(Function &F, uint32_t FnIndex, uint32_t FirstBlock,
                   LoopInfo &LI, DeepTables &T) {
  DenseMap<const Loop *, uint32_t> Ids;
  for (Loop *L : LI.getLoopsInPreorder()) {
    uint32_t Id = static_cast<uint32_t>(T.Loops.size());
    Ids[L] = Id;
    pisa_loop Row = {};
    Row.function = FnIndex;
    Row.parent =
        L->getParentLoop() ? Ids.lookup(L->getParentLoop()) : PISA_INDEX_NONE;
    Row.header = T.BlockIds.lookup(L->getHeader());
    BasicBlock *Pre = L->getLoopPreheader();
    Row.preheader = Pre ? T.BlockIds.lookup(Pre) : PISA_INDEX_NONE;
    Row.depth = L->getLoopDepth();
    Row.file = PISA_INDEX_NONE;
    setRange(*L, Row, T);
    T.Loops.push_back(Row);
  }
  for (uint32_t B = FirstBlock; B < T.Blocks.size(); ++B)
    if (const Loop *L = LI.getLoopFor(T.Blocks[B].BB))
      T.BlockLoops[B] = Ids.lookup(L);
}

} // namespace pisa
