/* program.c: finding the program to analyse and checking, before it runs,
 * that pisa-char can analyse it. */
#include "program.h"
#include "elfcheck.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char DefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

static int is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *program_search(const char *name) {
  const char *path = getenv("PATH");
  char *dirs = xstrdup(path ? path : DefaultPath), *rest = dirs, *dir;
  char *found = NULL;
  /* strsep, unlike strtok, keeps empty entries: the current directory */
  while (!found && (dir = strsep(&rest, ":"))) {
    found = xasprintf("%s/%s", *dir ? dir : ".", name);
    if (!is_executable_file(found)) {
      free(found);
      found = NULL;
    }
  }
  free(dirs);
  return found;
}

char *program_find(const char *name) {
  if (!*name)
    die("empty program name");
  if (strchr(name, '/'))
    return xstrdup(name);
  char *found = program_search(name);
  if (!found)
    die("%s: program not found in PATH", name);
  return found;
}

void program_check(const char *given, const char *file) {
  struct stat st;
  char err[256];
  if (stat(file, &st) != 0)
    die("%s: %s", given, errno == ENOENT ? "no such file" : strerror(errno));
  if (S_ISDIR(st.st_mode))
    die("%s: is a directory, not a program", given);
  if (!S_ISREG(st.st_mode))
    die("%s: not a regular file", given);
  if (access(file, X_OK) != 0)
    die("%s: not executable (%s)", given, strerror(errno));
  switch (pisa_elf_check(file, err, sizeof err)) {
  case PISA_ELF_INSTRUMENTED:
    return;
  case PISA_ELF_SCRIPT:
    die("%s: is a script, not an ELF program; run pisa-char on the "
        "program built with pisa-cc itself",
        given);
  case PISA_ELF_NOT_ELF:
    die("%s: not an ELF executable", given);
  case PISA_ELF_UNREADABLE:
    die("%s: %s", given, err);
  case PISA_ELF_UNINSTRUMENTED:
    die("%s: not built with pisa-cc (no pisa-char instrumentation "
        "found); rebuild it with pisa-cc",
        given);
  }
}

/* A deep build cannot run in counter mode, nor the other way round;
 * --mode footprint wants a footprint build (which --mode counter runs as
 * well). */
void program_check_mode(const char *given, const char *file, int counter,
                        int footprint) {
  int built = pisa_elf_counter_build(file);
  if (counter && !built)
    die("%s was built for deep mode; run it without --mode %s, or rebuild "
        "it with pisa-cc --mode=%s",
        given, footprint ? "footprint" : "counter",
        footprint ? "footprint" : "counter");
  if (footprint && built != 2)
    die("%s was built with pisa-cc --mode=counter, not --mode=footprint; run "
        "it with --mode counter, or rebuild it with pisa-cc --mode=footprint",
        given);
  if (!counter && built)
    die("%s was built for counter mode (pisa-cc --mode=%s); run it with "
        "--mode %s, or rebuild it without --mode=%s",
        given, built == 2 ? "footprint" : "counter",
        built == 2 ? "footprint" : "counter",
        built == 2 ? "footprint" : "counter");
}
