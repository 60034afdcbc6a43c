; Footprint builds (-pisa-mode=footprint, opt pipeline pisa-footprint):
; each function takes its bitmap's top on entry; a loop's access that runs
; in every iteration at an address ScalarEvolution knows before the loop is
; marked once, in the preheader, for all iterations (@fill, @odd's load);
; one that runs in some iterations only is marked inline (@odd's store); an
; access dominated by one to the same address, no smaller, is not marked
; again (@dup); inline marks or the access's bits, shifted by its address
; modulo 8 (whatever the IR's alignment says: misaligned C accesses are
; common), into the narrowest integer of shadow that holds them (@sizes),
; and larger accesses and memcpy call the runtime with their range.  Without the loops' marks
; (-pisa-footprint-hoist=false) every access is marked inline.
; RUN: %opt -passes=pisa-footprint -S %s | FileCheck %s
; RUN: %opt -passes=pisa-footprint -pisa-footprint-hoist=false -S %s | FileCheck %s --check-prefix=EACH

; CHECK-DAG: @__pisa_fp_tops = internal thread_local global [5 x ptr] zeroinitializer
; CHECK-DAG: @__pisa_counter_module = internal global {{.*}} { i32 {{[0-9]+}}, i32 2,

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @fill(ptr %a, i64 %n) {
; CHECK-LABEL: define void @fill(
; CHECK: %pisa.fp.top = load ptr
; CHECK: call ptr @__pisa_fp_top(ptr %{{[0-9]+}}, ptr @__pisa_counter_module, i32 0)
; CHECK: ph:
; CHECK: call void @__pisa_fp_stride(ptr %pisa.fp.top{{[0-9]*}}, i64 %{{[0-9]+}}, i64 %n, i64 8, i64 8)
; CHECK: loop:
; CHECK-NOT: pisa.fp.chunk
; CHECK: exit:
; EACH-LABEL: define void @fill(
; EACH-NOT: __pisa_fp_stride
; EACH: loop:
; EACH: %pisa.fp.chunk = load ptr
; EACH: shl i16 255,
; EACH: store double
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %ph, label %exit
ph:
  br label %loop
loop:
  %i = phi i64 [0, %ph], [%i.next, %loop]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  store double 1.0, ptr %p, align 8
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define void @odd(ptr %a, ptr %f, i64 %n) {
; CHECK-LABEL: define void @odd(
; CHECK: ph:
; CHECK: call void @__pisa_fp_stride(ptr %pisa.fp.top{{[0-9]*}}, i64 %{{[0-9]+}}, i64 %n, i64 8, i64 8)
; CHECK: loop:
; CHECK-NOT: pisa.fp.chunk
; CHECK: then:
; CHECK: %pisa.fp.chunk = load ptr
; CHECK: shl i8 1,
; CHECK: store i8 1, ptr %q
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %ph, label %exit
ph:
  br label %loop
loop:
  %i = phi i64 [0, %ph], [%i.next, %latch]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p, align 8
  %bit = and i64 %v, 1
  %isodd = icmp ne i64 %bit, 0
  br i1 %isodd, label %then, label %latch
then:
  %q = getelementptr inbounds i8, ptr %f, i64 %i
  store i8 1, ptr %q, align 1
  br label %latch
latch:
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define i64 @dup(ptr %p) {
; CHECK-LABEL: define i64 @dup(
; CHECK: shl i16 255,
; CHECK-NOT: pisa.fp.chunk
; CHECK: ret i64
  %v = load i64, ptr %p, align 8
  %w = add i64 %v, 1
  store i64 %w, ptr %p, align 8
  ret i64 %v
}

define void @sizes(ptr %p, ptr %q, ptr %r, ptr %s, ptr %t) {
; CHECK-LABEL: define void @sizes(
; CHECK: shl i16 15,
; CHECK: store i32 1, ptr %p
; CHECK: shl i16 15,
; CHECK: store i32 1, ptr %q
; CHECK: shl i32 65535,
; CHECK: store <4 x float> zeroinitializer, ptr %r
; CHECK: call void @__pisa_fp_mark(ptr %pisa.fp.top{{[0-9]*}}, i64 %{{[0-9]+}}, i64 256)
; CHECK: store <32 x double>
; CHECK: shl i32 65535,
; CHECK: store <2 x double>
  store i32 1, ptr %p, align 4
  store i32 1, ptr %q, align 1
  store <4 x float> zeroinitializer, ptr %r, align 4
  store <32 x double> zeroinitializer, ptr %s, align 8
  store <2 x double> zeroinitializer, ptr %t, align 16
  ret void
}

define void @copy(ptr %d, ptr %s, i64 %n) {
; CHECK-LABEL: define void @copy(
; CHECK: call void @__pisa_fp_mark(ptr %pisa.fp.top{{[0-9]*}}, i64 %{{[0-9]+}}, i64 %n)
; CHECK: call void @__pisa_fp_mark(ptr %pisa.fp.top{{[0-9]*}}, i64 %{{[0-9]+}}, i64 %n)
; CHECK: call void @llvm.memcpy
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
