/* elfcheck.c: finds pisa instrumentation in an ELF file by reading its
 * section headers (ELF32 and ELF64, host byte order): a "pisa_modules"
 * section, or a DT_NEEDED entry naming libpisa_rt. Every offset read from
 * the file is bounds-checked, so a malformed file is reported, not trusted. */
#include "elfcheck.h"

#include "pisa/abi.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char RuntimeLibPrefix[] = "libpisa_rt";

struct elf_view {
  const unsigned char *data;
  size_t size;
  int is64;
};

/* Section header fields this check needs, whatever the ELF class. */
struct elf_section {
  uint32_t name;
  uint32_t type;
  uint32_t link;
  uint64_t offset;
  uint64_t size;
};

/* Copies `len` bytes at `off` into `out`; 0 when they lie outside the file. */
static int elf_read(const struct elf_view *v, uint64_t off, void *out,
                    size_t len) {
  if (off > v->size || len > v->size - off)
    return 0;
  memcpy(out, v->data + off, len);
  return 1;
}

/* Section table location: offset, entry size, count and string table index,
 * with the extended numbering of section 0 applied. */
struct elf_table {
  uint64_t offset;
  uint64_t entsize;
  uint64_t count;
  uint64_t shstrndx;
};

static int elf_read_section(const struct elf_view *v, const struct elf_table *t,
                            uint64_t i, struct elf_section *s) {
  uint64_t off = t->offset + i * t->entsize;
  if (v->is64) {
    Elf64_Shdr h;
    if (t->entsize < sizeof h || !elf_read(v, off, &h, sizeof h))
      return 0;
    *s = (struct elf_section){h.sh_name, h.sh_type, h.sh_link, h.sh_offset,
                              h.sh_size};
  } else {
    Elf32_Shdr h;
    if (t->entsize < sizeof h || !elf_read(v, off, &h, sizeof h))
      return 0;
    *s = (struct elf_section){h.sh_name, h.sh_type, h.sh_link, h.sh_offset,
                              h.sh_size};
  }
  return 1;
}

static int elf_read_table(const struct elf_view *v, struct elf_table *t) {
  if (v->is64) {
    Elf64_Ehdr h;
    if (!elf_read(v, 0, &h, sizeof h))
      return 0;
    *t = (struct elf_table){h.e_shoff, h.e_shentsize, h.e_shnum, h.e_shstrndx};
  } else {
    Elf32_Ehdr h;
    if (!elf_read(v, 0, &h, sizeof h))
      return 0;
    *t = (struct elf_table){h.e_shoff, h.e_shentsize, h.e_shnum, h.e_shstrndx};
  }
  if (t->offset == 0) {
    t->count = 0; /* no section headers at all */
    return 1;
  }
  if (t->count == 0 || t->shstrndx == SHN_XINDEX) {
    struct elf_section first;
    if (!elf_read_section(v, t, 0, &first))
      return 0;
    if (t->count == 0)
      t->count = first.size;
    if (t->shstrndx == SHN_XINDEX)
      t->shstrndx = first.link;
  }
  return t->count <= v->size; /* a count beyond the file size is garbage */
}

/* The NUL-terminated string at `off` inside string section `strtab`, or NULL.
 */
static const char *elf_string(const struct elf_view *v,
                              const struct elf_section *strtab, uint64_t off) {
  if (strtab->offset > v->size || strtab->size > v->size - strtab->offset ||
      off >= strtab->size)
    return NULL;
  const char *s = (const char *)v->data + strtab->offset + off;
  return memchr(s, '\0', strtab->size - off) ? s : NULL;
}

/* Reads dynamic entry `i` of section `dyn`; 0 past its end. */
static int elf_read_dyn(const struct elf_view *v, const struct elf_section *dyn,
                        uint64_t i, int64_t *tag, uint64_t *val) {
  if (v->is64) {
    Elf64_Dyn d;
    if ((i + 1) * sizeof d > dyn->size ||
        !elf_read(v, dyn->offset + i * sizeof d, &d, sizeof d))
      return 0;
    *tag = d.d_tag;
    *val = d.d_un.d_val;
  } else {
    Elf32_Dyn d;
    if ((i + 1) * sizeof d > dyn->size ||
        !elf_read(v, dyn->offset + i * sizeof d, &d, sizeof d))
      return 0;
    *tag = d.d_tag;
    *val = d.d_un.d_val;
  }
  return 1;
}

static int needs_runtime(const struct elf_view *v, const struct elf_table *t,
                         const struct elf_section *dyn) {
  struct elf_section strtab;
  if (!elf_read_section(v, t, dyn->link, &strtab))
    return 0;
  int64_t tag;
  uint64_t val;
  for (uint64_t i = 0; elf_read_dyn(v, dyn, i, &tag, &val) && tag != DT_NULL;
       i++) {
    const char *lib = tag == DT_NEEDED ? elf_string(v, &strtab, val) : NULL;
    if (lib && strncmp(lib, RuntimeLibPrefix, sizeof RuntimeLibPrefix - 1) == 0)
      return 1;
  }
  return 0;
}

static enum pisa_elf_kind classify_elf(const struct elf_view *v, char *err,
                                       size_t n) {
  struct elf_table t;
  struct elf_section names;
  if (!elf_read_table(v, &t) ||
      (t.count && !elf_read_section(v, &t, t.shstrndx, &names))) {
    snprintf(err, n, "malformed ELF file (bad section header table)");
    return PISA_ELF_UNREADABLE;
  }
  for (uint64_t i = 0; i < t.count; i++) {
    struct elf_section s;
    if (!elf_read_section(v, &t, i, &s))
      break;
    const char *name = elf_string(v, &names, s.name);
    if (name && strcmp(name, PISA_MARKER_SECTION) == 0)
      return PISA_ELF_INSTRUMENTED;
    if (s.type == SHT_DYNAMIC && needs_runtime(v, &t, &s))
      return PISA_ELF_INSTRUMENTED;
  }
  return PISA_ELF_UNINSTRUMENTED;
}

static int host_byte_order(void) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return ELFDATA2MSB;
#else
  return ELFDATA2LSB;
#endif
}

/* Classifies by the first bytes of the file: 1 for an ELF file this host
 * can read (the sections tell the rest), else 0 with *kind set. */
static int readable_elf(const unsigned char *id, ssize_t len, int *is64,
                        enum pisa_elf_kind *kind, char *err, size_t n) {
  if (len >= 2 && id[0] == '#' && id[1] == '!')
    *kind = PISA_ELF_SCRIPT;
  else if (len < EI_NIDENT || memcmp(id, ELFMAG, SELFMAG) != 0)
    *kind = PISA_ELF_NOT_ELF;
  else if ((id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64) ||
           id[EI_DATA] != host_byte_order()) {
    snprintf(err, n,
             "ELF file of another class or byte order than this machine's");
    *kind = PISA_ELF_UNREADABLE;
  } else {
    *is64 = id[EI_CLASS] == ELFCLASS64;
    return 1;
  }
  return 0;
}

/* Maps the whole file read-only into v (an empty file: no data); 0, or -1
 * and errno. */
static int map_file(const char *path, struct elf_view *v) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  int saved;
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0)
    goto fail;
  *v = (struct elf_view){NULL, (size_t)st.st_size, 0};
  if (v->size > 0) {
    void *map = mmap(NULL, v->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
      goto fail;
    v->data = map;
  }
  close(fd);
  return 0;
fail:
  saved = errno;
  close(fd);
  errno = saved;
  return -1;
}

static void unmap_file(struct elf_view *v) {
  if (v->data)
    munmap((void *)v->data, v->size);
}

enum pisa_elf_kind pisa_elf_check(const char *path, char *err, size_t n) {
  struct elf_view v;
  if (map_file(path, &v) != 0) {
    snprintf(err, n, "cannot read: %s", strerror(errno));
    return PISA_ELF_UNREADABLE;
  }
  enum pisa_elf_kind kind;
  if (readable_elf(v.data, (ssize_t)v.size, &v.is64, &kind, err, n))
    kind = classify_elf(&v, err, n);
  unmap_file(&v);
  return kind;
}

int pisa_elf_counter_build(const char *path) {
  struct elf_view v;
  if (map_file(path, &v) != 0)
    return 0;
  int found = 0;
  if (v.data &&
      memmem(v.data, v.size, PISA_COUNTER_MARKER, sizeof PISA_COUNTER_MARKER))
    found = memmem(v.data, v.size, PISA_FOOTPRINT_MARKER,
                   sizeof PISA_FOOTPRINT_MARKER)
                ? 2
                : 1;
  unmap_file(&v);
  return found;
}
