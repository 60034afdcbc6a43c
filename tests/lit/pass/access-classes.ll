; Access-pattern classes (METRICS.md, MemGaze) in the second field of each
; site: 2 constant (stack or global slot at a constant offset), 1 strided
; (affine add-recurrence with a constant step, from ScalarEvolution), 0
; irregular (an index loaded from memory, a pointer argument).
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

@g = global i32 0
@arr = global [16 x i64] zeroinitializer

; Sites in order: store %x (alloca, 2), load @g (2), load @arr[3] (2),
; load %p (argument, 0); loop: load a[i] (1), load idx[i] (1),
; load a[idx[i]] (0), store @arr[i] (1, a recurrence on a global).
; CHECK: @__pisa_sites = private constant [8 x
; CHECK-SAME: { i8 2, i8 2, i16 1, i32 4,
; CHECK-SAME: { i8 1, i8 2, i16 1, i32 4,
; CHECK-SAME: { i8 1, i8 2, i16 1, i32 8,
; CHECK-SAME: { i8 1, i8 0, i16 1, i32 4,
; CHECK-SAME: { i8 1, i8 1, i16 1, i32 8,
; CHECK-SAME: { i8 1, i8 1, i16 1, i32 8,
; CHECK-SAME: { i8 1, i8 0, i16 1, i32 8,
; CHECK-SAME: { i8 2, i8 1, i16 1, i32 8,

define i64 @classes(ptr %p, ptr %a, ptr %idx, i64 %n) {
entry:
  %x = alloca i32
  store i32 1, ptr %x
  %v1 = load i32, ptr @g
  %e3 = getelementptr [16 x i64], ptr @arr, i64 0, i64 3
  %v2 = load i64, ptr %e3
  %v3 = load i32, ptr %p
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %ai = getelementptr i64, ptr %a, i64 %i
  %va = load i64, ptr %ai
  %ii = getelementptr i64, ptr %idx, i64 %i
  %k = load i64, ptr %ii
  %ak = getelementptr i64, ptr %a, i64 %k
  %vk = load i64, ptr %ak
  %gi = getelementptr [16 x i64], ptr @arr, i64 0, i64 %i
  store i64 %va, ptr %gi
  %t = add i64 %va, %vk
  %s.next = add i64 %s, %t
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %s.next
}
