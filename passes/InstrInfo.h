//===- InstrInfo.h - what the pisa-char passes count and record -----------===//
//
// What counts as an instruction, how it is described in the static tables,
// and which instructions are access or call sites: one definition for the
// deep pass and the counter pass (pisa/abi.h gives the encodings).
//
//===----------------------------------------------------------------------===//
#ifndef PISA_INSTR_INFO_H
#define PISA_INSTR_INFO_H

#include "pisa/abi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instruction.h"

namespace pisa {

/// An access or call site (pisa_site), with the instruction it describes.
struct SiteInfo {
  llvm::Instruction *I = nullptr;
  uint8_t Kind = 0;
  uint8_t Class = PISA_CLASS_IRREGULAR;
  uint16_t Lanes = 1;
  uint32_t Size = 0;
  uint32_t Instr = 0;
  uint32_t Flags = 0;
  llvm::StringRef Callee; // empty for indirect calls
};

/// Whether I is an instruction of the mix: not a phi, and not an intrinsic
/// that lowers to no code (docs/metrics.md).
bool isCounted(const llvm::Instruction &I);

/// I's row of the instruction table: opcode, category, type, width, lanes
/// (operand sources are the deep pass's to fill).
pisa_instr describeInstr(const llvm::Instruction &I,
                         const llvm::DataLayout &DL);

/// Fills S when I is an access or call site; false for everything else.
bool classifySite(llvm::Instruction &I, const llvm::DataLayout &DL,
                  SiteInfo &S);

/// The address a site's first record word holds (the destination of a
/// memcpy or memset); null for gathers, scatters and calls.
llvm::Value *sitePointer(const SiteInfo &S);

/// Adds the bytes a site loads and stores whenever it runs (loads, stores,
/// atomics: their size is static) to a block's or a set's counts.
void addFixedBytes(const SiteInfo &S, uint32_t &Loaded, uint32_t &Stored);

/// Record words an access site writes (pisa/abi.h).
inline unsigned siteWords(const SiteInfo &S) {
  return pisa_site_words(S.Kind, S.Lanes);
}

} // namespace pisa

#endif
