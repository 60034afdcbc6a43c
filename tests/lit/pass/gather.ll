; A masked gather records one word per lane: the lane's address when the
; lane is active, 0 when it is masked off.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

declare <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr>, i32, <2 x i1>, <2 x double>)

define <2 x double> @g(<2 x ptr> %ps, <2 x i1> %m) {
; CHECK-LABEL: define <2 x double> @g(
; CHECK:      call ptr @__pisa_buffer_refill(i64 3)
; CHECK:      %[[P0:.*]] = extractelement <2 x ptr> %ps, i64 0
; CHECK-NEXT: %[[A0:.*]] = ptrtoint ptr %[[P0]] to i64
; CHECK-NEXT: %[[M0:.*]] = extractelement <2 x i1> %m, i64 0
; CHECK-NEXT: %[[S0:.*]] = select i1 %[[M0]], i64 %[[A0]], i64 0
; CHECK-NEXT: getelementptr inbounds i64, ptr %pisa.seg, i64 1
; CHECK-NEXT: store i64 %[[S0]]
; CHECK:      extractelement <2 x ptr> %ps, i64 1
; CHECK:      getelementptr inbounds i64, ptr %pisa.seg, i64 2
; CHECK:      call <2 x double> @llvm.masked.gather
  %v = call <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr> %ps, i32 8, <2 x i1> %m, <2 x double> zeroinitializer)
  ret <2 x double> %v
}
