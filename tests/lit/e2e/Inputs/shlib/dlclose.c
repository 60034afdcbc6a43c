/* dlclose.c: loads the instrumented shared library vec.c, calls it twice,
 * unloads it, then fills its own array; stdout is a pipe or file, so the
 * lines stay buffered until exit. */
#include <dlfcn.h>
#include <stdio.h>

static int own[300];

__attribute__((noinline)) static void own_fill(int *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = i;
}

int main(int argc, char **argv) {
  static int x[500];
  void *lib = dlopen(argc > 1 ? argv[1] : "./libvec.so", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  void (*fill)(int *, int, int) =
      (void (*)(int *, int, int))dlsym(lib, "vec_fill");
  fill(x, 500, 7);
  fill(x, 250, 8);
  printf("x[0]=%d x[499]=%d\n", x[0], x[499]);
  if (dlclose(lib) != 0)
    return 2;
  own_fill(own, 300);
  printf("unloaded, own[299]=%d\n", own[299]);
  return 0;
}
