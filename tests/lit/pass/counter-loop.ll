; Counted loops get no counter inside: the back edge is counted at the
; preheader by ScalarEvolution's trip count (a constant, or a value
; computed at loop entry), nested counted loops multiply their counts out
; to the outermost preheader, and a loop with an unknown trip count keeps
; a counter inside.
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s
; RUN: %opt -passes=pisa-counter -pisa-counter-hoist=false -S %s | FileCheck %s --check-prefix=NOHOIST

; CHECK-LABEL: define void @constant(
; CHECK: entry:
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 99
; CHECK: loop:
; CHECK-NOT: pisa.ctr
; CHECK: exit:
; NOHOIST-LABEL: define void @constant(
; NOHOIST: loop:
; NOHOIST: pisa.ctr
define void @constant(ptr %a) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  store double 1.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 100
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @runtime(
; CHECK: ph:
; CHECK: %[[TRIPS:.*]] = add i64 %n, -1
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, %[[TRIPS]]
; CHECK: loop:
; CHECK-NOT: pisa.ctr
; CHECK: ret void
define void @runtime(ptr %a, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %ph
ph:
  br label %loop
loop:
  %i = phi i64 [ 0, %ph ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  store double 1.0, ptr %p
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; The inner back edge runs 15 times per inner entry, 8 entries: 120.
; CHECK-LABEL: define void @nested(
; CHECK: entry:
; CHECK-DAG: add i64 %pisa.ctr{{[0-9]*}}, 120
; CHECK-DAG: add i64 %pisa.ctr{{[0-9]*}}, 7
; CHECK: outer:
; CHECK-NOT: pisa.ctr
; CHECK: exit:
define void @nested(ptr %a) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %k = add i64 %i, %j
  %p = getelementptr inbounds double, ptr %a, i64 %k
  store double 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %jdone = icmp eq i64 %j.next, 16
  br i1 %jdone, label %latch, label %inner
latch:
  %i.next = add nuw nsw i64 %i, 1
  %idone = icmp eq i64 %i.next, 8
  br i1 %idone, label %exit, label %outer
exit:
  ret void
}

; No trip count: one counter stays in the loop, in the loop block itself
; (the self loop's count is the block's minus its entries), not on a split
; back edge.
; CHECK-LABEL: define i32 @unknown(
; CHECK: loop:
; CHECK: pisa.ctr
; CHECK: br i1 %end, label %exit, label %loop
; CHECK-NOT: crit_edge
define i32 @unknown(ptr %list) {
entry:
  br label %loop
loop:
  %n = phi i32 [ 0, %entry ], [ %n.next, %loop ]
  %node = phi ptr [ %list, %entry ], [ %next, %loop ]
  %next = load ptr, ptr %node
  %n.next = add i32 %n, 1
  %end = icmp eq ptr %next, null
  br i1 %end, label %exit, label %loop
exit:
  ret i32 %n.next
}
