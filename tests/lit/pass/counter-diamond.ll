; An if-then-else diamond: three sets (entry with join, then, else).  With
; flow conservation two counters suffice (entry = then + else); without it,
; one counter per set, three.  No counter sits on the join's phi.
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s --check-prefixes=CHECK,FLOW
; RUN: %opt -passes=pisa-counter -pisa-counter-flow=false -S %s | FileCheck %s --check-prefixes=CHECK,SETS

; FLOW: @__pisa_counters = internal thread_local global [2 x i64]
; SETS: @__pisa_counters = internal thread_local global [3 x i64]
; Three sets of function 0: 2 blocks, then 1 and 1.
; CHECK: @__pisa_counter_sets = private constant [3 x
; CHECK-SAME: { i32 0, i32 2,
; CHECK-SAME: { i32 0, i32 1,
; CHECK-SAME: { i32 0, i32 1,

define i32 @diamond(i1 %c, i32 %x) {
; CHECK-LABEL: define i32 @diamond(
; CHECK: call void @__pisa_counter_thread()
; SETS: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: then:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: else:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: join:
; CHECK-NOT: pisa.ctr
; CHECK: ret i32
entry:
  br i1 %c, label %then, label %else
then:
  %a = add i32 %x, 1
  br label %join
else:
  %b = mul i32 %x, 3
  br label %join
join:
  %r = phi i32 [ %a, %then ], [ %b, %else ]
  ret i32 %r
}
