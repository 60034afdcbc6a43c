// Footprint builds (pisa-cc --mode=footprint, docs/counter-mode.md): the
// exact footprint of every function, thread and the whole run, shared bytes
// included, checked against Inputs/footprint-build.py, which computes them
// by brute force from the definition (docs/metrics.md) and the access
// pattern of each function below.  The shapes are those the pass treats
// differently: a loop marked before it runs (sum_contiguous), one whose
// accesses leave gaps (strided), unaligned accesses across two shadow bytes
// one by one (packed_indirect), a loop with two exits and a store in some
// iterations only (find, odd_flags: not marked ahead), libc's memcpy and
// memset of a run-time length (copy), accesses across the end of a 128 MiB
// shadow chunk (straddle), and threads that share a table and an atomic
// counter: eight workers in two waves of four, each wave's shadows folded
// at their exits while the others still mark theirs.  At -O1, -O2, -O3,
// without the loops' marks, with the static runtime and with no analysis
// at all (the program's output is the same), and deep mode agrees with the
// same reference.
// RUN: %clang -O2 -o %t.plain %s -lpthread
// RUN: %t.plain > %t.expected
// RUN: %pisa-cc --mode=footprint -O2 -o %t.fp2 %s -lpthread
// RUN: %t.fp2 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %pisa-char -q --force --mode counter -o %t.fp2.json %t.fp2 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %validate %t.fp2.json
// RUN: %python %inputs/footprint-build.py %t.fp2.json
// RUN: %jcheck %t.fp2.json "d['complete'] is True" "d['config']['metrics'] == ['footprint']"
// RUN: %pisa-cc --mode=footprint -O1 -o %t.fp1 %s -lpthread
// RUN: %pisa-char -q --force --mode counter -o %t.fp1.json %t.fp1 > %t.out
// RUN: %python %inputs/footprint-build.py %t.fp1.json
// RUN: %pisa-cc --mode=footprint -O3 -o %t.fp3 %s -lpthread
// RUN: %pisa-char -q --force --mode counter -o %t.fp3.json %t.fp3 > %t.out
// RUN: %python %inputs/footprint-build.py %t.fp3.json
// RUN: %pisa-cc --mode=footprint -O2 -mllvm -pisa-footprint-hoist=false -o %t.each %s -lpthread
// RUN: %pisa-char -q --force --mode counter -o %t.each.json %t.each > %t.out
// RUN: %python %inputs/footprint-build.py %t.each.json
// RUN: %pisa-cc --mode=footprint --pisa-static-runtime -O2 -o %t.static %s -lpthread
// RUN: %pisa-char -q --force --mode counter -o %t.static.json %t.static > %t.out
// RUN: %python %inputs/footprint-build.py %t.static.json
// RUN: %pisa-cc -O2 -o %t.deep %s -lpthread
// RUN: env PISA_INLINED=0 %pisa-char -q --force --metrics=footprint -o %t.deep.json %t.deep > %t.out
// RUN: %python %inputs/footprint-build.py %t.deep.json
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define N 10000         /* doubles of the contiguous sum */
#define S 3000          /* ints read every third */
#define P 2000          /* packed records */
#define M 4096          /* bytes each worker writes */
#define T 512           /* shared doubles every worker reads */
#define W 8             /* workers, in two waves of 4 */

struct __attribute__((packed)) rec {
  char c;
  short s;
};

/* Zeroed pages of their own: every object starts a page, and nothing in
 * the program touched them before. */
static void *page_aligned(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    exit(3);
  return p;
}

/* 8 * N bytes from a: a loop marked before it runs. */
__attribute__((noinline)) double sum_contiguous(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i];
  return s;
}

/* 4 bytes every 12. */
__attribute__((noinline)) long strided(const int *a, long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += a[3 * i];
  return s;
}

/* Unaligned 2-byte fields at 3i + 1, through a permutation: marked one by
 * one, some across two shadow bytes. */
__attribute__((noinline)) long packed_indirect(const struct rec *r,
                                               const int *perm, long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += r[perm[i]].s;
  return s;
}

/* A loop with two ways out: up to and including the key's slot. */
__attribute__((noinline)) long find(const long *a, long n, long key) {
  long i = 0;
  while (i < n && a[i] != key)
    i++;
  return i;
}

/* Stores only where a[i] is odd: the store is not in every iteration. */
__attribute__((noinline)) void odd_flags(const long *a, char *flag, long n) {
  for (long i = 0; i < n; i++)
    if (a[i] & 1)
      flag[i] = 1;
}

/* A run-time length: libc's memcpy and memset, marked by the runtime. */
__attribute__((noinline)) void copy(char *dst, const char *src, long n) {
  memcpy(dst, src, (size_t)n);
  memset(dst + n, 0, (size_t)n / 2);
}

/* Accesses that cross the end of one 128 MiB shadow chunk. */
__attribute__((noinline)) long straddle(char *at) {
  uint64_t v;
  memcpy(&v, at - 4, 8); /* unaligned load: 4 bytes on each side */
  ((volatile uint64_t *)at)[-2] = v; /* 8 bytes before the boundary */
  return (long)v;
}

static _Alignas(4096) double *shared_table;
static _Alignas(4096) uint64_t hits;
static _Alignas(4096) pthread_t tids[W];

__attribute__((noinline)) void *worker(void *arg) {
  long t = (long)(intptr_t)arg;
  char *own = page_aligned(M);
  double s = 0;
  for (long i = 0; i < M; i++)
    own[i] = (char)(i + t);
  for (long i = 0; i < T; i++)
    s += shared_table[i];
  __atomic_fetch_add(&hits, (uint64_t)(s > 0) + (uint64_t)own[7], __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  double *a = page_aligned(N * sizeof(double));
  int *b = page_aligned(3 * S * sizeof(int));
  struct rec *r = page_aligned(P * sizeof(struct rec));
  int *perm = page_aligned(P * sizeof(int));
  for (int i = 0; i < P; i++)
    ((volatile int *)perm)[i] = (i * 7) % P;
  long *c = page_aligned(1000 * sizeof(long));
  for (int i = 0; i < 1000; i++)
    ((volatile long *)c)[i] = i;
  char *flags = page_aligned(1000);
  char *src = page_aligned(3000), *dst = page_aligned(3000);
  shared_table = page_aligned(T * sizeof(double));
  printf("%g %ld %ld %ld\n", sum_contiguous(a, N), strided(b, S),
         packed_indirect(r, perm, P), find(c, 1000, 300));
  odd_flags(c, flags, 1000);
  copy(dst, src, 1000);
  char *region = NULL;
  for (uintptr_t hint = (uintptr_t)0x7e8000000000; !region && hint < (uintptr_t)0x7f0000000000;
       hint += (uintptr_t)1 << 32) {
    void *p = mmap((void *)(hint - 4096), 8192, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == (void *)(hint - 4096))
      region = (char *)p + 4096;
    else if (p != MAP_FAILED)
      munmap(p, 8192);
  }
  if (!region)
    return 4;
  printf("%ld\n", straddle(region));
  for (long wave = 0; wave < W; wave += W / 2) {
    for (long t = wave; t < wave + W / 2; t++)
      pthread_create(&tids[t], NULL, worker, (void *)(intptr_t)t);
    for (long t = wave; t < wave + W / 2; t++)
      pthread_join(tids[t], NULL);
  }
  printf("hits %lu\n", (unsigned long)hits);
  return 0;
}
