// C++ allocations as data objects (--objects): operator new[] and new, and
// a std::vector's storage, whose operator new call is inlined from the
// library headers into main.  By hand:
//   array (line 45): new double[1000], 8000 bytes; fill() stores 1000
//     doubles, main loads array[999]; delete[] ends it.
//   point (line 47): new Point, 16 bytes; two stores in main (the
//     initialiser), two loads in use(); delete ends it.
//   vec (line 48): 500 doubles, 4000 bytes, value-initialised (one memset)
//     then 500 stores by fill() and the load of vec[499]: 502 accesses.
//     With the default depth (2) its site is two frames of the library's
//     headers; with --object-depth 8 the frames reach the vector's line.
// RUN: %pisa-cxx -O2 -g -fno-vectorize -fno-slp-vectorize -o %t %s
// RUN: %pisa-char -q --force --objects -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "obj(45)['name'] == '_Znam' and obj(45)['bytes_allocated'] == 8000" \
// RUN:   "obj(45)['stores'] == 1000 and obj(45)['loads'] == 1 and obj(45)['frees'] == 1" \
// RUN:   "obj(47)['name'] == '_Znwm' and obj(47)['bytes_allocated'] == 16" \
// RUN:   "obj(47)['stores'] == 2 and obj(47)['loads'] == 2 and obj(47)['frees'] == 1" \
// RUN:   "sorted(f['name'] for f in obj(47)['functions']) == ['main', 'use(Point const*)']" \
// RUN:   "[o['accesses'] for o in kind('heap') if o['bytes_allocated'] == 4000] == [502]" \
// RUN:   "[len(o['site']) for o in kind('heap') if o['bytes_allocated'] == 4000] == [2]" \
// RUN:   "len(kind('heap')) == 3"
// RUN: %pisa-char -q --force --object-depth 8 -o %t.8.json %t | FileCheck %s
// RUN: %jcheck %t.8.json \
// RUN:   "[o['site'][-1]['line'] for o in kind('heap') if o['bytes_allocated'] == 4000] == [48]" \
// RUN:   "[o['site'][-1]['file'].endswith('objects-cxx.cpp') for o in kind('heap') if o['bytes_allocated'] == 4000] == [True]" \
// RUN:   "[o['stores'] for o in kind('heap') if o['bytes_allocated'] == 4000] == [501]"
// CHECK: 1501
#include <cstdio>
#include <vector>

struct Point {
  double x, y;
};

__attribute__((noinline)) void fill(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) double use(const Point *p) { return p->x + p->y; }

int main() {
  double *array = new double[1000];
  fill(array, 1000);
  Point *point = new Point{1, 2};
  std::vector<double> vec(500);
  fill(vec.data(), 500);
  std::printf("%.0f\n", array[999] + use(point) + vec[499]);
  delete point;
  delete[] array;
  return 0;
}
