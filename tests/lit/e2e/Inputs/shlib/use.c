/* use.c: an executable using the shared library vec.c. */
#include <stdio.h>
void vec_fill(int *x, int n, int v);
int main(void) {
  static int x[500];
  vec_fill(x, 500, 7);
  printf("x[499]=%d\n", x[499]);
  return 0;
}
