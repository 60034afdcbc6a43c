/* sleeper.c: a sweep test benchmark that sleeps SWEEP_SLEEP seconds
 * (default 30), for timeouts and interruptions; checksum 1. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  const char *env = getenv("SWEEP_SLEEP");
  unsigned seconds = env ? (unsigned)atoi(env) : 30;
  for (unsigned i = 0; i < 10 * seconds; i++)
    usleep(100000);
  printf("checksum: 1\n");
  return 0;
}
