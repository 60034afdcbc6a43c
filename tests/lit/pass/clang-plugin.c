// clang -fpass-plugin runs the pass at the end of the optimisation pipeline,
// at -O0 too (optnone functions are instrumented: the pass is required), and
// after vectorisation at -O2 (the loop's loads and stores are vector ones).
// RUN: %clang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O2
// O0: define {{.*}}void @scale({{.*}} #[[ATTR:[0-9]+]]
// O0: call ptr @__pisa_buffer_refill
// O0: attributes #[[ATTR]] = {{.*}}optnone
// O2: @llvm.global_ctors = {{.*}}@__pisa_module_ctor
// O2: define {{.*}}void @scale(
// O2: call ptr @__pisa_buffer_refill
// O2: load <{{[0-9]+}} x float>
void scale(float *restrict x, const float *restrict y, int n) {
  for (int i = 0; i < n; i++)
    x[i] = 2.0f * y[i];
}
