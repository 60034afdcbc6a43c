// Footprint builds, two edges the review of the first version found:
// (1) misaligned accesses through aligned types (undefined in C, common
// in hashes and packed formats): clang declares the IR access aligned, and
// the marks must follow the address, not the declared alignment: a
// uint64_t read at offset 3 touches bytes 3..10 (blocks 0 and 1 of 8
// bytes), an int at offset 69 bytes 69..72 (blocks 8 and 9);
// (2) a pthread key made by the program, whose destructor runs
// instrumented code on an exiting thread after the runtime's own
// destructor would have run: the thread stays one thread (not two) and
// its bytes are not "shared" with itself.  Each of 3 workers touches 100
// bytes of its own slice of `slices`, and its key's destructor 28 more of
// that slice; the bytes shared are `key`'s 4, which every worker reads,
// and the last byte of each slice, which main reads.
// RUN: %pisa-cc --mode=footprint -O2 -o %t %s -lpthread
// RUN: %pisa-char -q --force --mode counter -o %t.json %t | FileCheck %s
// CHECK: sum 3
// RUN: %jcheck %t.json "d['complete'] is True" \
// RUN:   "fn('rd8')['footprint'] == {'bytes': 8, 'blocks': {'8': 2, '16': 1, '32': 1, '64': 1, '128': 1, '256': 1, '512': 1}}" \
// RUN:   "fn('rd4')['footprint'] == {'bytes': 4, 'blocks': {'8': 2, '16': 1, '32': 1, '64': 1, '128': 1, '256': 1, '512': 1}}" \
// RUN:   "len(d['threads']) == 4" \
// RUN:   "sorted(t['footprint']['bytes'] for t in d['threads'])[1:] == [132, 132, 132]" \
// RUN:   "fn('touch')['footprint']['bytes'] == 3 * 128" \
// RUN:   "d['totals']['footprint']['shared_bytes'] == 4 + 3"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

static pthread_key_t key;
static _Alignas(4096) unsigned char slices[3][4096];

__attribute__((noinline)) uint64_t rd8(const unsigned char *b) {
  return *(const uint64_t *)(b + 3);
}

__attribute__((noinline)) int rd4(const unsigned char *b) {
  return *(const int *)(b + 69);
}

__attribute__((noinline)) void touch(unsigned char *p, long from, long n) {
  for (long i = from; i < from + n; i++)
    p[i] = 1;
}

static void at_exit_of_thread(void *arg) {
  touch(arg, 100, 28); /* after the runtime's destructor's first round */
}

static void *worker(void *arg) {
  pthread_setspecific(key, arg);
  touch(arg, 0, 100);
  return NULL;
}

int main(void) {
  unsigned char *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED)
    return 3;
  b[3] = 1;
  pthread_key_create(&key, at_exit_of_thread);
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, worker, slices[i]);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  printf("sum %d\n", (int)(rd8(b) + (uint64_t)rd4(b) + slices[0][127] +
                           slices[1][127] + slices[2][127] - 1));
  return 0;
}
