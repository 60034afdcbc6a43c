; Atomics record their address; memcpy/memmove record dst, src and the
; run-time length; memset dst and length; a libc memcpy call is an access
; site, not a call site (no RESUME follows it).
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i32(ptr, i8, i32, i1)
declare ptr @memmove(ptr, ptr, i64)

define void @atomics(ptr %p) {
; CHECK-LABEL: define void @atomics(
; CHECK:      call ptr @__pisa_buffer_refill(i64 3)
; CHECK:      %[[A:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[W:.*]] = getelementptr inbounds i64, ptr %pisa.seg, i64 1
; CHECK-NEXT: store i64 %[[A]], ptr %[[W]]
; CHECK-NEXT: atomicrmw add ptr %p
; CHECK:      getelementptr inbounds i64, ptr %pisa.seg, i64 2
; CHECK:      cmpxchg ptr %p
  %old = atomicrmw add ptr %p, i32 1 seq_cst
  %pair = cmpxchg ptr %p, i32 0, i32 1 seq_cst seq_cst
  ret void
}

define void @copies(ptr %d, ptr %s, i64 %n, i32 %m) {
; CHECK-LABEL: define void @copies(
; BLOCK + memcpy (3) + memset (2) + memmove call (3) = 9 words, one segment.
; CHECK:      call ptr @__pisa_buffer_refill(i64 9)
; CHECK:      %[[D:.*]] = ptrtoint ptr %d to i64
; CHECK-NEXT: getelementptr inbounds i64, ptr %pisa.seg, i64 1
; CHECK-NEXT: store i64 %[[D]]
; CHECK-NEXT: %[[S:.*]] = ptrtoint ptr %s to i64
; CHECK-NEXT: getelementptr inbounds i64, ptr %pisa.seg, i64 2
; CHECK-NEXT: store i64 %[[S]]
; CHECK-NEXT: getelementptr inbounds i64, ptr %pisa.seg, i64 3
; CHECK-NEXT: store i64 %n
; CHECK-NEXT: call void @llvm.memcpy
; CHECK:      %[[M:.*]] = zext i32 %m to i64
; CHECK-NEXT: getelementptr inbounds i64, ptr %pisa.seg, i64 5
; CHECK-NEXT: store i64 %[[M]]
; CHECK-NEXT: call void @llvm.memset
; CHECK:      getelementptr inbounds i64, ptr %pisa.seg, i64 8
; CHECK-NEXT: store i64 %n
; CHECK-NEXT: call ptr @memmove
; CHECK-NOT:  __pisa_buffer_refill
; CHECK:      ret void
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @llvm.memset.p0.i32(ptr %d, i8 0, i32 %m, i1 false)
  %r = call ptr @memmove(ptr %d, ptr %s, i64 %n)
  ret void
}
