/* polybench.c: a minimal stand-in for PolyBench/C's utilities/polybench.c,
 * compiled with every kernel of the fake checkout. */
#include "polybench.h"

#include <stdio.h>
#include <stdlib.h>

void *polybench_alloc_data(size_t n, int elem_size) {
  return calloc(n, (size_t)elem_size);
}

void polybench_print(const char *name, double value) {
  printf("%s %.1f\n", name, value);
}
