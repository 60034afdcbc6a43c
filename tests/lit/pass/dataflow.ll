; Dataflow tables for small loops: a counted loop, a pointer-chasing while
; loop, a nested loop and a reduction. Index updates (flag 2) are the header
; phis that ScalarEvolution sees as add-recurrences of their loop and the
; increments fed back from the latch; the while loop's pointer and the
; reduction's sum are not. A call lists its arguments in order (constants
; as 0) and then the callee; a ret lists the returned value.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

; Every counted instruction's opcode and flags, in order.
; CHECK: @__pisa_instrs = private constant [35 x
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 34, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 33, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 2, 
; CHECK-SAME: { i8 53, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 1, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 34, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 32, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 53, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 1, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 34, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 33, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 2, 
; CHECK-SAME: { i8 53, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 2, 
; CHECK-SAME: { i8 53, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 1, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 34, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 32, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 13, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 2, 
; CHECK-SAME: { i8 53, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 2, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 1, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 56, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; CHECK-SAME: { i8 1, i8 {{[0-9]+}}, i8 {{[0-9]+}}, i8 0, 
; The call passes %a (argument 0: 3 << 30) and a constant; its callee is
; direct; the ret returns the call's value (instruction 33: 1 << 30 | 33).
; CHECK: @__pisa_operands = {{.*}}, i32 -1073741824, i32 0, i32 0, i32 1073741857]
; Phis: block, first incoming pair, pairs, flags. Blocks are numbered in
; module order (counted 0-2, walk 3-5, nested 6-10, reduce 11-13).
; CHECK: @__pisa_phis = private constant [6 x { i32, i32, i32, i32 }]
; CHECK-SAME: { i32 1, i32 0, i32 2, i32 2 }
; CHECK-SAME: { i32 4, i32 2, i32 2, i32 0 }
; CHECK-SAME: { i32 7, i32 4, i32 2, i32 2 }
; CHECK-SAME: { i32 8, i32 6, i32 2, i32 2 }
; CHECK-SAME: { i32 12, i32 8, i32 2, i32 2 }
; CHECK-SAME: { i32 12, i32 10, i32 2, i32 0 }

define void @counted(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr i64, ptr %a, i64 %i
  store i64 0, ptr %p
  %i.next = add i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define i64 @walk(ptr %p0) {
entry:
  br label %loop
loop:
  %p = phi ptr [ %p0, %entry ], [ %next, %loop ]
  %nf = getelementptr { ptr, i64 }, ptr %p, i32 0, i32 0
  %next = load ptr, ptr %nf
  %done = icmp eq ptr %next, null
  br i1 %done, label %exit, label %loop
exit:
  ret i64 0
}

define void @nested(ptr %a, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %ij = add i64 %i, %j
  %p = getelementptr i64, ptr %a, i64 %ij
  store i64 1, ptr %p
  %j.next = add i64 %j, 1
  %cj = icmp slt i64 %j.next, %n
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}

define i64 @reduce(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %s.next
}

define i64 @caller(ptr %a) {
  %r = call i64 @reduce(ptr %a, i64 8)
  ret i64 %r
}
