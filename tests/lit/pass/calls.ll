; invoke and musttail calls end their block's last segment with no RESUME
; after them (the next BLOCK word re-establishes the context); intrinsics
; and inline asm are not call sites at all.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

declare void @may_throw()
declare i32 @__gxx_personality_v0(...)
declare void @llvm.donothing()

define void @inv() personality ptr @__gxx_personality_v0 {
; CHECK-LABEL: define void @inv(
; CHECK:      store atomic ptr %{{.*}}, ptr %{{.*}} release, align 8
; CHECK-NEXT: invoke void @may_throw()
; CHECK-NOT:  4611686018427387904
; CHECK:      landingpad
; CHECK-NEXT: cleanup
; CHECK-NEXT: call ptr @llvm.threadlocal.address
entry:
  invoke void @may_throw() to label %ok unwind label %lp
ok:
  ret void
lp:
  %e = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %e
}

define i32 @tail(i32 %x) {
; CHECK-LABEL: define i32 @tail(
; CHECK:      store atomic ptr %{{.*}}, ptr %{{.*}} release, align 8
; CHECK-NEXT: %r = musttail call i32 @tail(i32 %x)
; CHECK-NEXT: ret i32 %r
  %r = musttail call i32 @tail(i32 %x)
  ret i32 %r
}

define void @nocalls() {
; One segment only: intrinsics and inline asm write nothing.
; CHECK-LABEL: define void @nocalls(
; CHECK:      call ptr @__pisa_buffer_refill(i64 1)
; CHECK-NOT:  __pisa_buffer_refill
; CHECK:      ret void
  call void @llvm.donothing()
  call void asm sideeffect "nop", ""()
  ret void
}
