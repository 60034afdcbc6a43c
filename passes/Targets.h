//===- Targets.h - what the pisa-char passes instrument -------------------===//
//
// Which functions of a module the passes instrument, and the refusal of a
// module that a pass has instrumented before.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_TARGETS_H
#define PISA_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace pisa {

/// The module descriptors the passes emit; either marks a module as
/// instrumented.
inline constexpr char DeepModuleVar[] = "__pisa_module";
inline constexpr char CounterModuleVar[] = "__pisa_counter_module";

/// False, after an error, when M holds one of Descriptors: instrumenting a
/// module twice would count every event twice.
bool checkNotInstrumented(llvm::Module &M,
                          llvm::ArrayRef<llvm::StringRef> Descriptors);

/// The functions of M a pass instruments, in module order: those with a
/// body, not the runtime's own (__pisa_*), not naked or excluded, and
/// without funclet-based exception handling (Windows EH has blocks without
/// insertion points; a warning says so).
std::vector<llvm::Function *> functionsToInstrument(llvm::Module &M);

/// A region starts or ends exactly at its marker (pisa.h's PISA_ROI_BEGIN
/// and END): the block holding a marker call is split after it, and the
/// branch that joins the halves is no instruction of the program (it goes
/// to Artificial).  True when F holds a marker.
bool splitAtRegionMarkers(
    llvm::Function &F, llvm::SmallPtrSetImpl<llvm::Instruction *> &Artificial);

} // namespace pisa

#endif
