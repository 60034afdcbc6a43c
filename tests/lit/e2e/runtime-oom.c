// The runtime runs out of memory (issue 15, item 13): the program limits
// its address space (RLIMIT_AS) to what it has mapped at start plus its
// own 64 MiB array plus 96 MiB, then touches one int in every 64 bytes of
// the array: a million distinct lines, whose reuse-distance, entropy and
// footprint tables need more than that.  The program still runs to its end
// with its own output and status; the runtime says once that it ran out of
// memory; the document is written, valid, and marked incomplete.
// RUN: %pisa-cc -O1 -o %t %s
// RUN: %pisa-char --force -o %t.json %t > %t.out 2> %t.err
// RUN: FileCheck --check-prefix=OUT %s < %t.out
// OUT: sum 1048576
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// ERR: pisa-char runtime: out of memory while analysing; the analysis stops here and the result is marked incomplete: Cannot allocate memory
// ERR-NOT: out of memory
// ERR: pisa-char: wrote {{.*}} incomplete, exit status 0
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['complete'] is False" "d['program']['exit_status'] == 0"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define ARRAY_BYTES ((size_t)64 << 20)

/* VmSize of this process in bytes (/proc/self/status), 0 if unknown. */
static size_t mapped_bytes(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  size_t kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmSize:", 7))
      kib = strtoull(line + 7, NULL, 10);
  if (f)
    fclose(f);
  return kib << 10;
}

int main(void) {
  size_t limit = mapped_bytes() + ARRAY_BYTES + ((size_t)96 << 20);
  struct rlimit rl = {limit, limit};
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    return 3;
  int *a = malloc(ARRAY_BYTES);
  if (!a)
    return 4;
  for (size_t i = 0; i < ARRAY_BYTES / sizeof *a; i += 16)
    a[i] = 1;
  long sum = 0;
  for (size_t i = 0; i < ARRAY_BYTES / sizeof *a; i += 16)
    sum += a[i];
  printf("sum %ld\n", sum);
  free(a);
  return 0;
}
