; Data objects (ABI 4): a call to an allocation or release function is a
; heap site (allocator, source frames); the segment after it starts with
; the heap event: the marker (the module's heap base + site), then base,
; size and released.  Defined global variables are listed with their
; DataLayout size; private constants (string literals) are not.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

; The tables: three heap sites without debug locations (no frames), the
; global (16 bytes, named by its symbol), the heap base (unregistered: bit
; 63, bit 38 and 2^24).
; CHECK: @__pisa_heap_base = internal global i64 -9223371761960091648
; CHECK: @__pisa_heap_sites = private constant [3 x { ptr, i32, i32 }] [{ ptr, i32, i32 } { ptr @.pisa.str{{[.0-9]*}}, i32 0, i32 0 }, { ptr, i32, i32 } { ptr @.pisa.str{{[.0-9]*}}, i32 0, i32 0 }, { ptr, i32, i32 } { ptr @.pisa.str{{[.0-9]*}}, i32 0, i32 0 }]
; CHECK: @__pisa_globals = private constant [1 x { ptr, i64, ptr, i32, i32 }] [{ ptr, i64, ptr, i32, i32 } { ptr @table, i64 16, ptr @.pisa.str{{[.0-9]*}}, i32 -1, i32 0 }]
; CHECK: @__pisa_module = {{.*}} ptr @__pisa_block_base, i32 3, i32 0, i32 1, i32 0, ptr @__pisa_heap_sites, ptr @__pisa_frames, ptr @__pisa_globals, ptr @__pisa_heap_base }

@table = global [4 x i32] zeroinitializer
@text = private unnamed_addr constant [3 x i8] c"hi\00"

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare void @free(ptr)

define void @f(i64 %n) {
; CHECK-LABEL: define void @f(
; The segment after malloc: RESUME, the 4 event words, the store: 6 words.
; CHECK:      %p = call ptr @malloc(i64 %n)
; CHECK:      getelementptr i64, ptr %pisa.cur{{[0-9]*}}, i64 6
; CHECK:      %[[BASE:.*]] = load i64, ptr @__pisa_heap_base
; CHECK-NEXT: %[[MARK:.*]] = add i64 %[[BASE]], 0
; CHECK-NEXT: %[[AT1:.*]] = getelementptr inbounds i64, ptr %[[SEG:.*]], i64 1
; CHECK-NEXT: store i64 %[[MARK]], ptr %[[AT1]]
; CHECK-NEXT: %[[PTR:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[SIZE:.*]] = and i64 %n, 9223372036854775807
; CHECK-NEXT: %[[AT2:.*]] = getelementptr inbounds i64, ptr %[[SEG]], i64 2
; CHECK-NEXT: store i64 %[[PTR]], ptr %[[AT2]]
; CHECK-NEXT: %[[AT3:.*]] = getelementptr inbounds i64, ptr %[[SEG]], i64 3
; CHECK-NEXT: store i64 %[[SIZE]], ptr %[[AT3]]
; CHECK-NEXT: %[[AT4:.*]] = getelementptr inbounds i64, ptr %[[SEG]], i64 4
; CHECK-NEXT: store i64 0, ptr %[[AT4]]
; calloc's size is the product of its arguments.
; CHECK:      %q = call ptr @calloc(i64 %n, i64 8)
; CHECK:      add i64 %{{.*}}, 1
; CHECK:      mul i64 8, %n
; free releases its argument and allocates nothing.
; CHECK:      call void @free(ptr %p)
; CHECK:      add i64 %{{.*}}, 2
; CHECK:      %[[FREED:.*]] = ptrtoint ptr %p to i64
; CHECK:      store i64 0,
; CHECK:      store i64 0,
; CHECK:      store i64 %[[FREED]],
entry:
  %p = call ptr @malloc(i64 %n)
  store i32 1, ptr %p
  %q = call ptr @calloc(i64 %n, i64 8)
  store i32 2, ptr %q
  call void @free(ptr %p)
  ret void
}
