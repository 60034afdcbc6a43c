/* greet.c: a user shared library built with pisa-cc -shared -fPIC. */
#include "greet.h"

#include <ctype.h>
#include <stdio.h>

int greet(const char *name) {
  int letters = 0;
  for (const char *c = name; *c; c++)
    letters += isalpha((unsigned char)*c) != 0;
  printf("hello, %s\n", name);
  return letters;
}
