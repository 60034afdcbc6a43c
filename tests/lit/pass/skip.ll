; Declarations, the runtime's own __pisa_ functions, naked functions and
; functions marked "pisa-no-instrument" are not instrumented; a module with
; nothing to instrument gets no tables at all.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

declare void @decl()

; CHECK-LABEL: define void @__pisa_internal()
; CHECK-NEXT:  ret void
define void @__pisa_internal() {
  ret void
}

; CHECK-LABEL: define void @naked()
; CHECK-NEXT:  ret void
define void @naked() naked {
  ret void
}

; CHECK-LABEL: define void @opted_out()
; CHECK-NEXT:  ret void
define void @opted_out() "pisa-no-instrument" {
  ret void
}

; CHECK-NOT: __pisa_module
; CHECK-NOT: __pisa_buf
