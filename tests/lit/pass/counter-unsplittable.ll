; A loop entered from an indirectbr has no preheader, and the edge into it
; cannot be split (the program jumps to the loop's address): its trip count
; is not hoisted onto that edge, the loop's block counts its own entries,
; and the indirectbr keeps its targets.
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s

; CHECK: @__pisa_counters = internal thread_local global [2 x i64]
; CHECK-LABEL: define void @interpreter(
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK-NEXT: store
; CHECK-NEXT: indirectbr ptr %target, [label %loop, label %exit]
; CHECK-NOT: _crit_edge
; CHECK: loop:
; CHECK-NEXT: phi
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK: exit:
; CHECK-NOT: pisa.ctr
; CHECK: ret void
define void @interpreter(ptr %a, i64 %n, ptr %target) {
entry:
  indirectbr ptr %target, [label %loop, label %exit]

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  store i64 %i, ptr %p
  %i.next = add nuw i64 %i, 1
  %done = icmp uge i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}
