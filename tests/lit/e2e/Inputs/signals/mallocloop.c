/* mallocloop.c: writes its pid to the file named by argv[1] (a new name, so
 * that a reader never sees half of it), then allocates and frees blocks
 * past the thread cache forever: a signal almost always finds it inside
 * malloc or free. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argc > 1 ? argv[1] : "pid");
  FILE *f = fopen(tmp, "w");
  if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
      rename(tmp, argc > 1 ? argv[1] : "pid") != 0)
    return 1;
  for (long i = 0;; i++) {
    void *p[8];
    for (int k = 0; k < 8; k++)
      p[k] = malloc(4096 + (size_t)((i * 8 + k) % 61) * 1024);
    for (int k = 0; k < 8; k++)
      free(p[k]);
  }
}
