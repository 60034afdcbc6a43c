/* snapshot.c: fills 1000 ints, writes its pid to the file named by argv[1]
 * (a new name, so that a reader never sees half of it), then waits, making
 * no records, until it is killed; with a second argument `spin` it spins
 * instead, using CPU time (so the default snapshots go on). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int filled[1000]; /* external: its stores are kept */

__attribute__((noinline)) static void fill(int *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = i;
}

__attribute__((noinline)) static void spin(void) {
  for (volatile unsigned long i = 0;; i++)
    ;
}

int main(int argc, char **argv) {
  char tmp[4096];
  fill(filled, 1000);
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
  FILE *f = fopen(tmp, "w");
  if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
      rename(tmp, argv[1]) != 0)
    return 1;
  if (argc > 2 && !strcmp(argv[2], "spin"))
    spin();
  for (;;)
    pause();
}
