; The static tables: per function its name, demangled name, file and line
; from debug info; per block function, first instruction, counted
; instructions, first site, sites, phis, static bytes loaded and stored; per
; counted instruction its LLVM opcode (phi and no-code intrinsics are not
; counted); the module descriptor in section pisa_modules, registered by a
; priority-1 constructor.
; RUN: %opt -passes=pisa-deep -S %s | FileCheck %s

declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.assume(i1)

; Before registration the base is an id no registered block has: bit 63 | (2^39 - 1).
; CHECK: @__pisa_block_base = internal global i64 -9223371487098961921
; CHECK-DAG: c"loop\00"
; CHECK-DAG: c"k.c\00"
; CHECK-DAG: c"_Z3sumPii\00"
; CHECK-DAG: c"sum(int*, int)\00"
; CHECK: @__pisa_functions = private constant [2 x { ptr, ptr, ptr, i32, i32, i32, i32 }]
; CHECK-SAME: { ptr @.pisa.str{{[.0-9]*}}, ptr @.pisa.str{{[.0-9]*}}, ptr @.pisa.str{{[.0-9]*}}, i32 7, i32 0, i32 3, i32 0 }
; _Z3sumPii has 1 block starting at block 3, no debug info: file null.
; CHECK-SAME: { ptr @.pisa.str{{[.0-9]*}}, ptr @.pisa.str{{[.0-9]*}}, ptr null, i32 0, i32 3, i32 1, i32 0 }
; Blocks: entry of @loop: 1 counted instr (br); body: 5 instrs (add, gep,
; load, icmp, br) and 1 phi, 1 site (the 4-byte load), and a conditional
; branch with successors 0..1 of the table; exit: 1 (ret); sum: 2 instrs
; (store, ret), 1 site, 8 bytes stored.
; The last two fields: the block's first phi (body's phi is phi 0) and its
; source function (ABI 3): its own, there are no debug locations here.
; CHECK: @__pisa_blocks = private constant [4 x { i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32 }]
; CHECK-SAME: { i32 0, i32 0, i32 1, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0 }
; CHECK-SAME: { i32 0, i32 1, i32 5, i32 0, i32 1, i32 1, i32 4, i32 0, i32 0, i32 2, i32 0, i32 0 }
; CHECK-SAME: { i32 0, i32 6, i32 1, i32 1, i32 0, i32 0, i32 0, i32 0, i32 2, i32 0, i32 1, i32 0 }
; CHECK-SAME: { i32 1, i32 7, i32 2, i32 1, i32 1, i32 0, i32 0, i32 8, i32 2, i32 0, i32 1, i32 1 }
; Instructions: opcode (LLVM 19: br 2, add 13, getelementptr 34, load 32,
; icmp 53, ret 1, store 33), category (memory 0, int 1, address 5, control
; 6), value kind (void 0, int 1, ptr 3), flags (1 vector, 2 index update:
; the add feeding the induction phi back), lanes, bits, first operand and
; operand count. The store of a <2 x i32> is a vector of 2 lanes, 64 bits.
; CHECK: @__pisa_instrs = private constant [9 x { i8, i8, i8, i8, i16, i16, i32, i32 }]
; CHECK-SAME: { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 2, i8 6, i8 0, i8 0, i16 0, i16 0, i32 0, i32 0 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 13, i8 1, i8 1, i8 2, i16 0, i16 64, i32 0, i32 1 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 34, i8 5, i8 3, i8 0, i16 0, i16 64, i32 1, i32 2 },
; CHECK-SAME: { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 32, i8 0, i8 1, i8 0, i16 0, i16 32, i32 3, i32 1 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 53, i8 1, i8 1, i8 0, i16 0, i16 1, i32 4, i32 1 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 2, i8 6, i8 0, i8 0, i16 0, i16 0, i32 5, i32 1 },
; CHECK-SAME: { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 1, i8 6, i8 0, i8 0, i16 0, i16 0, i32 6, i32 0 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 33, i8 0, i8 1, i8 1, i16 2, i16 64, i32 6, i32 1 }, { i8, i8, i8, i8, i16, i16, i32, i32 } { i8 1, i8 6, i8 0, i8 0, i16 0, i16 0, i32 7, i32 0 }]
; Sites: the loop load of p[i] (load, strided, 4 bytes, instr 3) and the
; store through the argument (store, irregular, 8 bytes, instr 7).
; CHECK: @__pisa_sites = private constant [2 x { i8, i8, i16, i32, i32, i32, ptr }]
; CHECK-SAME: { i8 1, i8 1, i16 1, i32 4, i32 3, i32 0, ptr null }
; CHECK-SAME: { i8 2, i8 0, i16 1, i32 8, i32 7, i32 0, ptr null }
; The branch of body goes to body (block 1) or exit (block 2).
; CHECK: @__pisa_successors = private constant [2 x i32] [i32 1, i32 2]
; Operand sources: kind << 30 | index, kinds instruction 1, phi 2, argument
; 3: add <- phi 0; gep <- arg 0, phi 0; load <- instr 2; icmp <- instr 1;
; br <- instr 4; store <- arg 0 (constants carry no dependency).
; CHECK: @__pisa_operands = private constant [7 x i32] [i32 -2147483648, i32 -1073741824, i32 -2147483648, i32 1073741826, i32 1073741825, i32 1073741828, i32 -1073741824]
; The phi: incoming 0 from entry (a constant: 0) and %n (instr 1) from body.
; CHECK: @__pisa_incoming = private constant [4 x i32] [i32 0, i32 0, i32 1, i32 1073741825]
; Phi 0 in block 1, incoming pairs 0..1, an index update (flag 2).
; CHECK: @__pisa_phis = private constant [1 x { i32, i32, i32, i32 }] [{ i32, i32, i32, i32 } { i32 1, i32 0, i32 2, i32 2 }]
; The descriptor: ABI version 4, the counts, the module name, then the
; compilation directory: the compile unit's (!1's "/src"); at the end the
; data objects' tables (no allocation call, no global variable: empty, and
; no heap base).
; CHECK: [[DIR:@.pisa.str.[0-9]+]] = private unnamed_addr constant [5 x i8] c"/src\00"
; CHECK: @__pisa_module = internal global {{.*}} { i32 4, i32 2, i32 4, i32 9, i32 2, i32 2, i32 7, i32 1, i32 2, i32 0, ptr @.pisa.str{{[.0-9]*}}, ptr [[DIR]], ptr @__pisa_functions, {{.*}} ptr @__pisa_successors, ptr @__pisa_operands, ptr @__pisa_phis, ptr @__pisa_incoming, ptr @__pisa_block_base, i32 0, i32 0, i32 0, i32 0, ptr @__pisa_heap_sites, ptr @__pisa_frames, ptr @__pisa_globals, ptr null }, section "pisa_modules"
; CHECK: @llvm.used = appending global {{.*}} [ptr @__pisa_module]
; CHECK: @llvm.global_ctors = appending global {{.*}} [{ i32, ptr, ptr } { i32 1, ptr @__pisa_module_ctor, ptr null }]
; CHECK: define internal void @__pisa_module_ctor()
; CHECK-NEXT: call void @__pisa_register_module(ptr @__pisa_module)

define void @loop(ptr %p) !dbg !5 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %n, %body ]
  call void @llvm.lifetime.start.p0(i64 4, ptr %p)
  %n = add i64 %i, 1
  %q = getelementptr i32, ptr %p, i64 %i
  %v = load i32, ptr %q
  call void @llvm.assume(i1 true)
  %c = icmp ult i64 %n, 10
  br i1 %c, label %body, label %exit
exit:
  ret void
}

define void @_Z3sumPii(ptr %p, i32 %x) {
  store <2 x i32> zeroinitializer, ptr %p
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "k.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "loop", scope: !1, file: !1, line: 7, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
