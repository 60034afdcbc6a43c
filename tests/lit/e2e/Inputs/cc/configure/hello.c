/* hello.c: the program of the configure test; prints what ./configure
 * found, so the test sees the probes' results. */
#include "config.h"

#include <stdio.h>

int main(void) {
#ifdef HAVE_STDINT_H
  puts("have stdint.h");
#endif
#ifdef HAVE_PISA_H
  puts("have pisa.h");
#endif
#ifdef HAVE_AC_NONEXISTENT_H
  puts("have ac_nonexistent.h");
#endif
  puts("hello from a configured build");
  return 0;
}
