// C++: functions are reported by their demangled names, and exceptions that
// unwind through instrumented frames do not disturb the attribution of the
// accesses that follow (the landing pad's block record resynchronises).
// RUN: %pisa-cxx -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "fn('geo::Grid::fill(int)')['memory_accesses']['stores'] == 10 * 64" \
// RUN:   "fn('geo::Grid::fill(int)')['linkage_name'] == '_ZN3geo4Grid4fillEi'" \
// RUN:   "fn('geo::Grid::fill(int)')['footprint']['bytes'] == 256"
// CHECK: caught 5 sum 576
#include <cstdio>
#include <stdexcept>

namespace geo {
struct Grid {
  int cells[64];
  __attribute__((noinline)) void fill(int v) {
    for (int i = 0; i < 64; i++)
      cells[i] = v;
    if (v % 2)
      throw std::runtime_error("odd");
  }
};
} // namespace geo

int main() {
  static geo::Grid g;
  int caught = 0;
  for (int v = 0; v < 10; v++) {
    try {
      g.fill(v);
    } catch (const std::exception &) {
      caught++;
    }
  }
  int sum = 0;
  for (int i = 0; i < 64; i++)
    sum += g.cells[i];
  std::printf("caught %d sum %d\n", caught, sum);
  return 0;
}
