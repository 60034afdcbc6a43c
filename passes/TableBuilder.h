//===- TableBuilder.h - the static tables' constants ----------------------===//
//
// Builds the constants of a module's static tables (pisa/abi.h): rows of
// integers and interned strings, private arrays, the rows both modes share
// (functions, instructions) and the descriptor in the marker section.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_TABLE_BUILDER_H
#define PISA_TABLE_BUILDER_H

#include "pisa/abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <string>

namespace pisa {

/// How the tables name a function: linkage name, demangled name, and the
/// source file and line when the module has debug information.
struct FunctionNames {
  std::string Name, Display, File;
  uint32_t Line = 0;
};

FunctionNames functionNames(const llvm::Function &F);

class TableBuilder {
public:
  explicit TableBuilder(llvm::Module &M);

  llvm::Constant *i8(uint64_t V) const;
  llvm::Constant *i16(uint64_t V) const;
  llvm::Constant *i32(uint64_t V) const;
  /// A private NUL-terminated string, one per distinct text.
  llvm::Constant *str(llvm::StringRef S);
  /// str(S), or a null pointer for an empty S.
  llvm::Constant *strOrNull(llvm::StringRef S);
  /// The module's compilation directory: its compile unit's, else the
  /// compiler's working directory (a module without debug information was
  /// still compiled somewhere, and its name is relative to that).
  llvm::Constant *directory();

  /// A private constant array of Elems.
  llvm::GlobalVariable *array(llvm::Type *Elem,
                              llvm::ArrayRef<llvm::Constant *> Elems,
                              const llvm::Twine &Name);
  llvm::GlobalVariable *u32Array(llvm::ArrayRef<uint32_t> Values,
                                 const llvm::Twine &Name);

  /// pisa_function and pisa_counter_function: names, then three counts
  /// whose meaning is the mode's.
  llvm::StructType *functionType() const;
  llvm::Constant *functionRow(const FunctionNames &F, uint32_t A, uint32_t B,
                              uint32_t C);
  /// pisa_instr.
  llvm::StructType *instrType() const;
  llvm::Constant *instrRow(const pisa_instr &I) const;

  /// A writable internal global in PISA_MARKER_SECTION, kept by llvm.used:
  /// pisa-char recognises instrumented binaries by this section.
  llvm::GlobalVariable *markedGlobal(llvm::Constant *Init,
                                     const llvm::Twine &Name);

  llvm::Module &M;
  llvm::LLVMContext &Ctx;
  llvm::Type *I8, *I16, *I32;
  llvm::PointerType *PtrTy;

private:
  llvm::StringMap<llvm::Constant *> Strings;
};

} // namespace pisa

#endif
