//===- DeepSource.cpp - the source function of each block -----------------===//
//
// Inlined code keeps the name of the function it came from: every block is
// attributed to the innermost inlined subprogram of its counted
// instructions' debug locations (the frame llvm-symbolizer would print), so
// a kernel inlined into main is still a function of the document.
//
//===----------------------------------------------------------------------===//
#include "DeepTables.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"

using namespace llvm;

namespace pisa {

namespace {

/// The subprogram most of BB's counted instructions come from (the first
/// one on a tie), or null when none carries a debug location.
const DISubprogram *blockSubprogram(const BasicBlock &BB) {
  MapVector<const DISubprogram *, unsigned> Votes;
  for (const Instruction &I : BB)
    if (const DILocation *Loc = I.getDebugLoc().get())
      if (isCounted(I))
        ++Votes[Loc->getScope()->getSubprogram()];
  const DISubprogram *Best = nullptr;
  unsigned Most = 0;
  for (const auto &[SP, N] : Votes)
    if (N > Most) {
      Best = SP;
      Most = N;
    }
  return Best;
}

/// The linkage name of a subprogram; C functions have only a name.
StringRef subprogramName(const DISubprogram &SP) {
  StringRef Linkage = SP.getLinkageName();
  return Linkage.empty() ? SP.getName() : Linkage;
}

/// The module-local function named after SP: an instrumented function of
/// that name, else an entry (without blocks) added for inlined code.
uint32_t functionFor(const DISubprogram &SP, StringMap<uint32_t> &ByName,
                     DeepTables &T) {
  StringRef Name = subprogramName(SP);
  auto [It, Added] =
      ByName.try_emplace(Name, static_cast<uint32_t>(T.Functions.size()));
  if (Added) {
    DeepFunction Inlined;
    Inlined.Names.Name = Name.str();
    Inlined.Names.Display = demangle(Inlined.Names.Name);
    Inlined.Names.File = SP.getFilename().str();
    Inlined.Names.Line = SP.getLine();
    T.Functions.push_back(std::move(Inlined));
  }
  return It->second;
}

} // namespace

void attributeSources(DeepTables &T) {
  StringMap<uint32_t> ByName;
  for (uint32_t F = 0; F < T.Functions.size(); F++)
    ByName.try_emplace(T.Functions[F].Names.Name, F);
  for (DeepBlock &Block : T.Blocks) {
    pisa_block &B = Block.Table;
    B.source = B.function;
    const DISubprogram *SP = blockSubprogram(*Block.BB);
    if (SP && SP != Block.BB->getParent()->getSubprogram())
      B.source = functionFor(*SP, ByName, T);
  }
  for (pisa_loop &L : T.Loops)
    L.source = T.Blocks[L.header].Table.source;
}

} // namespace pisa
