/* manifest.h: benchmark suites for `pisa-char sweep`: reading a suite
 * manifest (format pisa-char-suite/1, docs/suites.md) for one data-set size,
 * finding a bundled suite by name, and describing an external PolyBench/C
 * 4.2.1 checkout as a suite. */
#ifndef PISA_CLI_MANIFEST_H
#define PISA_CLI_MANIFEST_H

#include "strvec.h"

#include <stddef.h>

#define PISA_SUITE_FORMAT "pisa-char-suite/1"

/* One benchmark at the chosen size; paths are absolute. */
struct suite_benchmark {
  char *name;
  struct strvec sources;
  struct strvec cflags; /* suite, benchmark, then size flags; -I included */
  struct strvec ldflags;
  struct strvec args; /* the program's arguments */
};

struct suite {
  char *name;
  char *manifest; /* absolute path of the manifest, or the external root */
  char *size;     /* the chosen size; NULL when the suite has no sizes */
  char *compiler; /* "pisa-cc" or "pisa-c++" (from "language") */
  char *checksum_regex; /* NULL: no checksum */
  struct suite_benchmark *benchmarks;
  size_t nbenchmarks;
};

/* Reads the manifest at `path` for data-set size `size` (NULL: the
 * manifest's default_size). On failure returns -1 with a one-line reason
 * naming the file in `err`. */
int suite_load(const char *path, const char *size, struct suite *out, char *err,
               size_t n);

/* The manifest of the suite bundled under `name` (share/pisa-char/suites
 * next to the executable, else the source tree this was built from), as a
 * newly allocated path, or NULL when there is none. */
char *suite_find_bundled(const char *name);

/* Describes the unmodified PolyBench/C checkout at `root` (its
 * utilities/benchmark_list and utilities/polybench.c) at `size` (NULL:
 * SMALL) as a suite without checksums. -1 and `err` on failure. */
int suite_from_polybench_root(const char *root, const char *size,
                              struct suite *out, char *err, size_t n);

void suite_free(struct suite *s);

#endif
