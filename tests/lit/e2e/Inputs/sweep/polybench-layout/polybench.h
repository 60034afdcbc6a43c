/* polybench.h: a minimal stand-in for PolyBench/C's utilities/polybench.h,
 * for the external-checkout sweep test: the kernels include it with <>. */
#ifndef POLYBENCH_H
#define POLYBENCH_H

#include <stddef.h>

void *polybench_alloc_data(size_t n, int elem_size);
void polybench_print(const char *name, double value);

#endif
