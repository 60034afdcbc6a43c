//===- Runtime.h - how instrumented code reaches the pisa-char runtime ----===//
//
// Declarations of the runtime's thread-local variables and entry points
// (names in pisa/abi.h), the rarely taken call into it, and the constructor
// and destructor that register and unregister a module's tables.
//
//===----------------------------------------------------------------------===//
#ifndef PISA_RUNTIME_H
#define PISA_RUNTIME_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace pisa {

/// The runtime's thread-local variable Name, initial-exec: the runtime is
/// loaded with the program, never by dlopen.
llvm::GlobalVariable *declareRuntimeTLS(llvm::Module &M, llvm::Type *Ty,
                                        llvm::StringRef Name);

/// A runtime function that instrumented code calls rarely: cold, nounwind.
llvm::FunctionCallee declareColdRuntimeFn(llvm::Module &M, llvm::StringRef Name,
                                          llvm::Type *Ret,
                                          llvm::ArrayRef<llvm::Type *> Params);

/// Splits At's block on Cond into a path taken about once in a million
/// runs (a call into the runtime goes there); returns that path's
/// terminator.
llvm::Instruction *splitRarePath(llvm::Value *Cond, llvm::Instruction *At);

/// A constructor CtorName (priority 1: before the program's) that passes
/// the module's descriptor to the runtime's RegisterFn(ptr).
void emitRegistration(llvm::Module &M, llvm::StringRef RegisterFn,
                      llvm::GlobalVariable *ModVar, llvm::StringRef CtorName);

/// A destructor DtorName (priority 1: after the module's own) that passes
/// the descriptor to the runtime's UnregisterFn(ptr) when the module is
/// unloaded (dlclose) or the process exits.
void emitUnregistration(llvm::Module &M, llvm::StringRef UnregisterFn,
                        llvm::GlobalVariable *ModVar, llvm::StringRef DtorName);

} // namespace pisa

#endif
