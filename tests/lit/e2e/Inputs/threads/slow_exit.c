/* slow_exit.c: for threads-tsan.test, compiled without pisa-cc.  Its
 * constructor registers an exit handler before the runtime registers the
 * one that records the exit status (at the program's first instrumented
 * code), so it runs after that one: it waits 2.5 s, during which the
 * snapshot thread (PISA_SNAPSHOT_INTERVAL=1) builds documents that read
 * the recorded status while the program thread is exiting. */
#include <stdlib.h>
#include <time.h>

static void slow_exit(void) {
  struct timespec wait = {.tv_sec = 2, .tv_nsec = 500000000};
  while (nanosleep(&wait, &wait))
    ;
}

__attribute__((constructor)) static void register_slow_exit(void) {
  atexit(slow_exit);
}
