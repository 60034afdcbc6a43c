// The loop and line tables (ABI 3): every loop LoopInfo finds after the
// optimisation pipeline, in preorder per function, as { function, source
// function, parent, header block, preheader block, depth, file, first line,
// last line }, with the blocks' innermost loops and per-block source-line runs.
// grid's outer loop (lines 39-43) holds two inner loops: the store loop
// (lines 40-41) and sum's loop inlined (lines 32-33), whose source function
// is sum (function 1: it exists only inlined, so it follows grid, function 0).
// Parents are preorder indices (-1: none); the ranges are the front end's
// llvm.loop start and end locations (a for statement to the end of its body).
// RUN: %clang -O1 -g -fno-unroll-loops -fpass-plugin=%plugin -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=STORE < %t.ll
// RUN: FileCheck %s --check-prefix=SUM < %t.ll
// CHECK: @__pisa_loops = private constant [3 x { i32, i32, i32, i32, i32, i32, i32, i32, i32 }]
// CHECK-SAME: { i32 0, i32 0, i32 -1, i32 {{[0-9]+}}, i32 {{-?[0-9]+}}, i32 1, i32 0, i32 39, i32 43 }
// CHECK-SAME: { i32 0, i32 0, i32 0, i32 {{[0-9]+}}, i32 {{-?[0-9]+}}, i32 2, i32 0, i32 40, i32 41 }
// CHECK-SAME: { i32 0, i32 1, i32 0, i32 {{[0-9]+}}, i32 {{-?[0-9]+}}, i32 2, i32 0, i32 32, i32 33 }
// grid's entry block is in no loop (-1).
// CHECK: @__pisa_block_loops = private constant [{{[0-9]+}} x i32] [i32 -1,
// The first block's runs start at run 0; among the runs, the inlined load
// and add of `s += a[i]` keep sum's line 33 and the store loop's code line
// 41 (in block order, which the optimiser chooses: one check each).
// CHECK: @__pisa_block_lines = private constant [{{[0-9]+}} x i32] [i32 0,
// STORE: @__pisa_lines = private constant {{.*}} { i32 0, i32 41, i32 {{[1-9]}} }
// SUM: @__pisa_lines = private constant {{.*}} { i32 0, i32 33, i32 {{[1-9]}} }
// CHECK: @__pisa_files = private constant [1 x ptr] [ptr @.pisa.str
// The descriptor: 3 loops, the line runs, 1 file, then the tables.
// CHECK: @__pisa_module = {{.*}} ptr @__pisa_sites, i32 3, i32 {{[1-9][0-9]*}}, i32 1, i32 0, ptr @__pisa_loops, ptr @__pisa_block_loops, ptr @__pisa_block_lines, ptr @__pisa_lines, ptr @__pisa_files, ptr @__pisa_successors

static inline int sum(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

int grid(int *m, int rows, int cols) {
  int t = 0;
  for (int r = 0; r < rows; r++) {
    for (int c = 0; c < cols; c++)
      m[r * cols + c] = r + c;
    t += sum(m + r * cols, cols);
  }
  return t;
}
