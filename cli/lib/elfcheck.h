/* elfcheck.h: tells, before running a program, whether it is an ELF file
 * built with pisa-cc (it carries the pass's marker section or links the
 * shared runtime) and for which mode, so pisa-char can refuse what it
 * cannot analyse. */
#ifndef PISA_CLI_ELFCHECK_H
#define PISA_CLI_ELFCHECK_H

#include <stddef.h>

enum pisa_elf_kind {
  PISA_ELF_INSTRUMENTED,   /* ELF with pisa instrumentation */
  PISA_ELF_UNINSTRUMENTED, /* ELF without it */
  PISA_ELF_SCRIPT,         /* starts with "#!" */
  PISA_ELF_NOT_ELF,        /* anything else that is not ELF */
  PISA_ELF_UNREADABLE,     /* open/mmap failed or a malformed ELF file */
};

/* Classifies the file at `path`. For PISA_ELF_UNREADABLE, `err` (of `n`
 * bytes) says why, without the path. */
enum pisa_elf_kind pisa_elf_check(const char *path, char *err, size_t n);

/* Whether the file carries the marker string of a module built for counter
 * mode: 1 (pisa-cc --mode=counter), 2 when a module of it is a footprint
 * build (pisa-cc --mode=footprint), 0 for neither or when it cannot be
 * read. */
int pisa_elf_counter_build(const char *path);

#endif
