/* main.c: half of a two-file program (with scale.c). */
#include <stdio.h>
void scale(double *x, int n, double f);
double total(const double *x, int n);
static double data[256];
int main(void) {
  for (int i = 0; i < 256; i++)
    data[i] = i;
  scale(data, 256, 2.0);
  printf("total=%.0f\n", total(data, 256));
  return 0;
}
