/* fill.c: an instrumented program that fills 100 ints once, prints
 * "filled 100" and writes its pid to pid.txt (for the disk-full test). */
#include <stdio.h>
#include <unistd.h>

static int data[100];

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = i;
}

int main(void) {
  fill(data);
  FILE *f = fopen("pid.txt", "w");
  if (f) {
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
  }
  printf("filled %d\n", data[99] + 1);
  return 0;
}
