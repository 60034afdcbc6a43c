/* fuzz_manifest.c: the reader of suite manifests (pisa-char sweep
 * MANIFEST), at the manifest's default size and at a named one. */
#include "fuzz.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  char err[1024];
  const char *sizes[] = {NULL, "SMALL"};
  for (int i = 0; i < 2; i++) {
    struct suite s = {0};
    if (suite_load(path, sizes[i], &s, err, sizeof err) == 0)
      suite_free(&s);
  }
  return 0;
}
