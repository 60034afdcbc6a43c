; Two increments on one edge: the outer loop has no dedicated preheader (the
; guard branches straight to its header), so its trip count is added on the
; edge from the guard, and the spanning tree leaves that same edge out, so
; it carries a counter too. The edge is split once and both increments go
; into the one new block (a second split used to look the edge up after the
; first had moved it, and crashed clang on C++ at -O2: issue 15, item 4).
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s

; Counters, by hand: 0 the outer back edges (n - 1 per entry), 1 the inner
; back edges (umax(m, 1) - 1 per outer iteration), 2 the edge into the
; nest, 3 the edge that skips it. Sets: entry and exit run c2 + c3 times,
; outer and latch c0 + c2, inner c0 + c1 + c2.
; CHECK: @__pisa_counters = internal thread_local global [4 x i64]
; CHECK: @__pisa_counter_terms = private constant [7 x { i32, i32 }]
; CHECK-SAME: { i32 2, i32 1 }, { i32, i32 } { i32 3, i32 1 },
; CHECK-SAME: { i32 0, i32 1 }, { i32, i32 } { i32 2, i32 1 },
; CHECK-SAME: { i32 0, i32 1 }, { i32, i32 } { i32 1, i32 1 }, { i32, i32 } { i32 2, i32 1 }]

; CHECK-LABEL: define void @guarded_nest(
; CHECK: %[[TRIPS:[0-9]+]] = add i64 %n, -1
; CHECK: br i1 %skip, label %entry.exit_crit_edge, label %entry.outer_crit_edge
; CHECK: entry.outer_crit_edge:
; CHECK-NEXT: getelementptr inbounds i64, ptr %{{[0-9]+}}, i64 0
; CHECK-NEXT: load
; CHECK-NEXT: add i64 %pisa.ctr{{[0-9]*}}, %[[TRIPS]]
; CHECK-NEXT: store
; CHECK-NEXT: getelementptr inbounds i64, ptr %{{[0-9]+}}, i64 2
; CHECK-NEXT: load
; CHECK-NEXT: add i64 %pisa.ctr{{[0-9]*}}, 1
; CHECK-NEXT: store
; CHECK-NEXT: br label %outer
; CHECK-NOT: _crit_edge:
; CHECK: inner:
; CHECK-NOT: pisa.ctr
; CHECK: ret void
define void @guarded_nest(ptr %a, i64 %n, i64 %m) {
entry:
  %skip = icmp eq i64 %n, 0
  br i1 %skip, label %exit, label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %p = getelementptr inbounds i64, ptr %a, i64 %j
  store i64 %i, ptr %p
  %j.next = add nuw i64 %j, 1
  %more = icmp ult i64 %j.next, %m
  br i1 %more, label %inner, label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %outer

exit:
  ret void
}
