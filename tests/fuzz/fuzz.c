/* fuzz.c: the fuzz targets' shared helpers (fuzz.h) and the exit() that
 * returns to the target instead of ending the fuzzer. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

jmp_buf fuzz_exit_jump;
int fuzz_exit_armed;

char *fuzz_text(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  return text;
}

static char path[64];

static void remove_file(void) { unlink(path); }

const char *fuzz_file(const uint8_t *data, size_t size) {
  if (!path[0]) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/pisa-fuzz.%d.json", dir ? dir : "/tmp",
             (int)getpid());
    atexit(remove_file);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  return path;
}

void __real_exit(int status);

void __wrap_exit(int status) {
  if (fuzz_exit_armed) {
    fuzz_exit_armed = 0;
    longjmp(fuzz_exit_jump, status + 1);
  }
  __real_exit(status);
}
