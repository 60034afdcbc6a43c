/* main.c: the executable of cc-shared.test; calls into libgreet.so. */
#include "greet.h"

#include <stdio.h>

int main(int argc, char **argv) {
  int total = 0;
  for (int i = 1; i < argc; i++)
    total += greet(argv[i]);
  printf("letters: %d\n", total);
  return 0;
}
