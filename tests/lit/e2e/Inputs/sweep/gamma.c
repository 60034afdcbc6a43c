/* gamma.c: a sweep test benchmark with two checksum lines: the sweep keeps
 * the last one, which names the number of arguments. It also says whether
 * it sees an mpirun's rank variable (a sweep must not pass it on). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  (void)argv;
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  printf("checksum: early\n");
  printf("gamma ran, launcher rank: %s\n", rank ? rank : "none");
  printf("checksum: late-%d\n", argc - 1);
  return 0;
}
