; Conditional branches and switches record their successors in order (a
; switch's default first, then its cases, duplicates kept); unconditional
; branches and returns record none.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

; Blocks: entry 0 (switch: default d=3, cases a=1, b=2, a=1), a 1 (cond br
; to b=2 and d=3), b 2 (br to d: none), d 3 (ret: none).
; CHECK: @__pisa_blocks = private constant [4 x
; CHECK-SAME: i32 0, i32 4, i32 0, i32 0 }
; CHECK-SAME: i32 4, i32 2, i32 0, i32 0 }
; CHECK-SAME: i32 6, i32 0, i32 0, i32 0 }
; CHECK-SAME: i32 6, i32 0, i32 0, i32 0 }]
; CHECK: @__pisa_successors = private constant [6 x i32] [i32 3, i32 1, i32 2, i32 1, i32 2, i32 3]

define void @f(i32 %x, i1 %c) {
entry:
  switch i32 %x, label %d [
    i32 0, label %a
    i32 1, label %b
    i32 2, label %a
  ]
a:
  br i1 %c, label %b, label %d
b:
  br label %d
d:
  ret void
}
