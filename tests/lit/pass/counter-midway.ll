; A block is counted by its entries, as deep mode counts it, also when a
; call in it throws or does not return. With flow conservation the way out
; through such a call is an edge to the exit that stays in the spanning
; tree, so the entry block gets a counter of its own; without it, a block
; after such a call does not share the counter of the block before it.
; A call that returns and cannot throw changes nothing.
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s --check-prefixes=CHECK,FLOW
; RUN: %opt -passes=pisa-counter -pisa-counter-flow=false -S %s | FileCheck %s --check-prefixes=CHECK,SETS

declare i32 @may_throw(i32)
declare i32 @pure(i32) nounwind willreturn memory(none)

; Counters of @throwing and @returning, by hand: flow 3 + 2, sets 4 + 3.
; FLOW: @__pisa_counters = internal thread_local global [5 x i64]
; SETS: @__pisa_counters = internal thread_local global [7 x i64]

; CHECK-LABEL: define i32 @throwing(
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: call i32 @may_throw(
; CHECK: then:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: else:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: join:
; FLOW-NOT: pisa.ctr
; SETS: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: ret i32
define i32 @throwing(i32 %v) {
entry:
  %r = call i32 @may_throw(i32 %v)
  %big = icmp sgt i32 %r, 10
  br i1 %big, label %then, label %else
then:
  %t = mul i32 %r, 3
  br label %join
else:
  %e = sub i32 %r, 1
  br label %join
join:
  %x = phi i32 [ %t, %then ], [ %e, %else ]
  ret i32 %x
}

; CHECK-LABEL: define i32 @returning(
; FLOW-NOT: pisa.ctr
; SETS: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: call i32 @pure(
; CHECK: then:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: else:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: join:
; CHECK-NOT: pisa.ctr
; CHECK: ret i32
define i32 @returning(i32 %v) {
entry:
  %r = call i32 @pure(i32 %v)
  %big = icmp sgt i32 %r, 10
  br i1 %big, label %then, label %else
then:
  %t = mul i32 %r, 3
  br label %join
else:
  %e = sub i32 %r, 1
  br label %join
join:
  %x = phi i32 [ %t, %then ], [ %e, %else ]
  ret i32 %x
}
