; A block is one segment up to its first call: one capacity check, the BLOCK
; word at offset 0, access words at constant offsets, the cursor published
; before the call; after the call a RESUME segment (tag bit 62 | site << 40).
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

@g = global i32 0

declare void @ext()

define i32 @f(ptr %p) {
; CHECK-LABEL: define i32 @f(
; CHECK:      %[[TLS:.*]] = call ptr @llvm.threadlocal.address.p0(ptr @__pisa_buf)
; CHECK-NEXT: %pisa.cur = load ptr, ptr %[[TLS]]
; CHECK-NEXT: %[[LIMADDR:.*]] = getelementptr inbounds i8, ptr %[[TLS]], i64 8
; CHECK-NEXT: %pisa.limit = load ptr, ptr %[[LIMADDR]]
; Segment 0: BLOCK + load + store = 3 words.
; CHECK-NEXT: %[[NEED:.*]] = getelementptr i64, ptr %pisa.cur, i64 3
; CHECK-NEXT: %[[FULL:.*]] = icmp ugt ptr %[[NEED]], %pisa.limit
; CHECK-NEXT: br i1 %[[FULL]], label %[[SLOW:.*]], label %[[FAST:.*]], !prof
; CHECK:      call ptr @__pisa_buffer_refill(i64 3)
; CHECK:      %pisa.seg = phi ptr [ %pisa.cur, %{{.*}} ], [ %{{.*}}, %[[SLOW]] ]
; CHECK-NEXT: %[[BASE:.*]] = load i64, ptr @__pisa_block_base
; CHECK-NEXT: %[[WORD:.*]] = add i64 %[[BASE]], 0
; CHECK-NEXT: %[[W0:.*]] = getelementptr inbounds i64, ptr %pisa.seg, i64 0
; CHECK-NEXT: store i64 %[[WORD]], ptr %[[W0]]
; CHECK-NEXT: %[[A1:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[W1:.*]] = getelementptr inbounds i64, ptr %pisa.seg, i64 1
; CHECK-NEXT: store i64 %[[A1]], ptr %[[W1]]
; CHECK-NEXT: %v = load i32, ptr %p
; CHECK-NEXT: %[[W2:.*]] = getelementptr inbounds i64, ptr %pisa.seg, i64 2
; CHECK-NEXT: store i64 ptrtoint (ptr @g to i64), ptr %[[W2]]
; CHECK-NEXT: store i32 %v, ptr @g
; CHECK-NEXT: %[[END:.*]] = getelementptr inbounds i64, ptr %pisa.seg, i64 3
; CHECK-NEXT: store atomic ptr %[[END]], ptr %[[TLS]] release, align 8
; CHECK-NEXT: call void @ext()
; Segment 1 after the call (site 2 of the block): RESUME word, then one load.
; CHECK:      call ptr @__pisa_buffer_refill(i64 2)
; CHECK:      %[[BASE2:.*]] = load i64, ptr @__pisa_block_base
; 4611688217450643456 = 2^62 + 2 << 40
; CHECK-NEXT: add i64 %[[BASE2]], 4611688217450643456
; CHECK:      %w = load i32, ptr %p
; CHECK:      store atomic ptr %{{.*}}, ptr %{{.*}} release, align 8
; CHECK-NEXT: ret i32 %w
entry:
  %v = load i32, ptr %p
  store i32 %v, ptr @g
  call void @ext()
  %w = load i32, ptr %p
  ret i32 %w
}

; The second block of a function gets local id 1 (its BLOCK word is base+1).
define void @two(i1 %c) {
; CHECK-LABEL: define void @two(
; CHECK:       add i64 %{{.*}}, 1
; CHECK:       add i64 %{{.*}}, 2
entry:
  br i1 %c, label %next, label %next
next:
  ret void
}
