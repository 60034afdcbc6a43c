// memcpy and memset sizes are recorded at run time: bytes loaded and stored
// and the footprint follow the lengths the program passes.
// RUN: %pisa-cc -O2 -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 4096 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "fn('copy')['memory_accesses']['memcpy'] == 1" \
// RUN:   "fn('copy')['memory_accesses']['memset'] == 1" \
// RUN:   "fn('copy')['instruction_mix']['bytes_loaded'] == 4096" \
// RUN:   "fn('copy')['instruction_mix']['bytes_stored'] == 4096 + 1000" \
// RUN:   "fn('copy')['footprint']['bytes'] == 2 * 4096"
// CHECK: 0 7
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void copy(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  memset(dst + 10, 0, 1000); /* within dst: no new footprint */
}

int main(int argc, char **argv) {
  size_t n = strtoul(argv[1], 0, 10);
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (char)(i % 10);
  copy(dst, src, n);
  printf("%d %d\n", dst[10], dst[1017]);
  free(src);
  free(dst);
  return 0;
}
