// Lifetimes of heap objects (--objects): realloc ends the object it grows
// and starts one at its own site, free and munmap end what they release, a
// failed allocation is none.  By hand from the program:
//   grown, malloc (line 58): 1 allocation of 100 bytes, ended by the
//     realloc (1 free), 100 stores (touch, every byte).
//   grown, realloc (line 60): 1 allocation of 1000 bytes, 1 free, 1000
//     stores.
//   one (line 64): 10 allocations of 64 bytes, each freed before the next:
//     10 frees, 640 bytes in all, at most 64 live; 1 store each.
//   kept (line 70): 10 allocations of 32 bytes all live at once: 320 bytes
//     at the peak, 10 frees, 1 store each.
//   pages (line 75): mmap of 4 pages, 1 store per page, one munmap.
//   zeroed (line 79): calloc(10, 8): 80 bytes, 10 stores and the load of
//     zeroed[8]; freed at the end, after every other object's last free.
//   aligned (line 82): posix_memalign of 256 bytes, 4 stores (one per line).
//   never (line 84): malloc of 2^62 bytes fails: no object.
// (touch writes its bytes through a volatile pointer, so that no store or
// allocation is optimised away.)
// RUN: %pisa-cc -O2 -g -o %t %s
// RUN: %pisa-char -q --force --objects -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "obj(58)['allocations'] == 1 and obj(58)['bytes_allocated'] == 100" \
// RUN:   "obj(58)['frees'] == 1 and obj(58)['stores'] == 100 and obj(58)['name'] == 'malloc'" \
// RUN:   "obj(60)['name'] == 'realloc' and obj(60)['allocations'] == 1" \
// RUN:   "obj(60)['bytes_allocated'] == 1000 and obj(60)['frees'] == 1" \
// RUN:   "obj(60)['stores'] == 1000" \
// RUN:   "obj(58)['last_free'] <= obj(60)['first_allocation'] < obj(60)['last_free']" \
// RUN:   "obj(64)['allocations'] == 10 and obj(64)['frees'] == 10" \
// RUN:   "obj(64)['bytes_allocated'] == 640 and obj(64)['peak_live_bytes'] == 64" \
// RUN:   "obj(64)['stores'] == 10" \
// RUN:   "obj(70)['allocations'] == 10 and obj(70)['frees'] == 10" \
// RUN:   "obj(70)['peak_live_bytes'] == 320 and obj(70)['stores'] == 10" \
// RUN:   "obj(75)['name'] == 'mmap' and obj(75)['bytes_allocated'] == 16384" \
// RUN:   "obj(75)['frees'] == 1 and obj(75)['stores'] == 4 and obj(75)['footprint_bytes'] == 256" \
// RUN:   "obj(79)['name'] == 'calloc' and obj(79)['bytes_allocated'] == 80" \
// RUN:   "obj(79)['stores'] == 10 and obj(79)['loads'] == 1 and obj(79)['frees'] == 1" \
// RUN:   "all(o['last_free'] <= obj(79)['last_free'] for o in kind('heap'))" \
// RUN:   "obj(82)['name'] == 'posix_memalign' and obj(82)['bytes_allocated'] == 256" \
// RUN:   "obj(82)['stores'] == 4 and obj(82)['frees'] == 1" \
// RUN:   "not [o for o in d['objects'] if o.get('site') and o['site'][0]['line'] == 84]" \
// RUN:   "len(kind('heap')) == 7"
// CHECK: 1 (nil)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGES 4
#define KEEP 10

__attribute__((noinline)) void touch(volatile char *p, long n, long step) {
  for (long i = 0; i < n; i += step)
    p[i] = 1;
}

int main(void) {
  char *grown = malloc(100);
  touch(grown, 100, 1);
  grown = realloc(grown, 1000);
  touch(grown, 1000, 1);
  free(grown);
  for (int i = 0; i < KEEP; i++) {
    char *one = malloc(64);
    touch(one, 64, 64);
    free(one);
  }
  char *kept[KEEP];
  for (int i = 0; i < KEEP; i++) {
    kept[i] = malloc(32);
    touch(kept[i], 32, 32);
  }
  for (int i = 0; i < KEEP; i++)
    free(kept[i]);
  char *pages = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  touch(pages, PAGES * 4096, 4096);
  munmap(pages, PAGES * 4096);
  char *zeroed = calloc(10, 8);
  touch(zeroed, 80, 8);
  void *aligned = NULL;
  if (posix_memalign(&aligned, 64, 256) == 0)
    touch(aligned, 256, 64);
  char *never = malloc((size_t)1 << 62);
  printf("%d %p\n", zeroed[8], (void *)never);
  free(zeroed);
  free(aligned);
  return 0;
}
