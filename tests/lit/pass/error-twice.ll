; Instrumenting a module twice would record every event twice: it is an
; error, reported as a diagnostic, not a crash.
; RUN: %opt -passes=pisa-deep %s -S -o %t.ll
; RUN: not %opt -passes=pisa-deep %t.ll -disable-output 2>&1 | FileCheck %s
; CHECK: error: pisa: module '{{.*}}' is already instrumented by pisa-char

define void @f() {
  ret void
}
