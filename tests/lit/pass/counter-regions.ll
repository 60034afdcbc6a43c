; A function with region markers: each block holding a marker call is split
; right after it, every block gets its own counter at its entry (so that a
; region sees exactly the blocks entered inside it), the joining branch is
; not in the tables, and the counted loop's body is counted at the
; preheader by its trip count.  The module table says counter mode (1).
; RUN: %opt -passes=pisa-counter -S %s | FileCheck %s

; CHECK: @__pisa_counter_module = internal global {{.*}} { i32 {{[0-9]+}}, i32 1,
; CHECK-SAME: section "pisa_modules"
; CHECK: @__pisa_counter_marker = internal global {{.*}} c"pisa-char counter-mode module\00", section "pisa_modules"

@name = private constant [4 x i8] c"roi\00"

declare void @__pisa_roi_begin(ptr)
declare void @__pisa_roi_end(ptr)

; CHECK-LABEL: define void @kernel(
; CHECK: call void @__pisa_roi_begin(ptr @name)
; CHECK-NEXT: br label %[[AFTER:.*]]
; CHECK: [[AFTER]]:
; CHECK-NEXT: getelementptr inbounds i64
; CHECK-NEXT: %pisa.ctr{{[0-9]*}} = load
; CHECK: add i64 %pisa.ctr{{[0-9]*}}, 64
; CHECK: loop:
; CHECK-NOT: pisa.ctr
; CHECK: done:
; CHECK: call void @__pisa_roi_end(ptr @name)
; CHECK-NEXT: br label %[[END:.*]]
; CHECK: [[END]]:
; CHECK-NEXT: getelementptr inbounds i64
; CHECK-NEXT: %pisa.ctr{{[0-9]*}} = load
; CHECK: ret void
define void @kernel(ptr %a) {
entry:
  call void @__pisa_roi_begin(ptr @name)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  store double 0.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i.next, 64
  br i1 %c, label %done, label %loop
done:
  call void @__pisa_roi_end(ptr @name)
  ret void
}
