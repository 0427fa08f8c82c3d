// Real `swiftc -O` output for aarch64 (Swift 6.2.3 in the Debian sid arm64 root of
// scripts/arm64-check.sh, under qemu), linked as the suite's own binary is, disassembled by the
// host toolchain's llvm-objdump 21 (the arm64 toolchain's llvm-objdump 17 prints the same listing),
// with the callee-saved registers' saves and restores removed; the frame record stays. From this
// file, `swiftc -O -parse-as-library -module-name m m.swift` (an object file with `-emit-object`):
//
//     public protocol P { func work(_ x: Int) -> Int }
//     struct S: P { let s: Int; func work(_ x: Int) -> Int { (x ^ s) &* 3 &+ 1 } }
//     open class Base { public init() {}; open func work(_ x: Int) -> Int { x &+ 1 } }
//     final class Sub: Base { override func work(_ x: Int) -> Int { x &+ 2 } }
//     final class F {
//         let f: Int; init(f: Int) { self.f = f }
//         @inline(never) func work(_ x: Int) -> Int { (x ^ f) &* 3 }
//     }
//     @inline(never) func kVtable(_ rs: [Base], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) func kVtableCopy(_ rs: [Base], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) func kExist(_ rs: [any P], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) public func kGen<T: P>(_ rs: [T], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) func kStruct(_ rs: [S], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) func kFinal(_ rs: [F], _ n: Int) -> Int {
//         var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
//     @inline(never) func kClosure(_ f: (Int) -> Int, _ n: Int) -> Int {
//         var a = 0; for _ in 0..<n { a = f(a) }; return a }
//     @inline(never) func tVtable(_ b: Base, _ x: Int) -> Int { b.work(x) }
//     @inline(never) func tExist(_ p: any P, _ x: Int) -> Int { p.work(x) }
//     @inline(never) func tClosure(_ f: (Int) -> Int, _ x: Int) -> Int { f(x) }
//     @inline(never) func tFinal(_ r: F, _ x: Int) -> Int { r.work(x) }
//     @inline(never) func tC(_ f: @convention(c) (Int) -> Int, _ x: Int) -> Int { f(x) }
//     @inline(never) @_optimize(none) func id<T>(_ x: T) -> T { x }
//     @main struct Main {
//         static func main() {
//             let n = CommandLine.arguments.count * 100
//             print(kVtable(id([Base(), Sub()]), n), kVtableCopy(id([Sub(), Base()]), n))
//             print(kExist(id([S(s: n) as any P]), n), kGen(id([S(s: n)]), n), kStruct(id([S(s: n)]), n))
//             print(kFinal(id([F(f: n)]), n), kClosure(id({ $0 &+ n }), n), tVtable(id(Sub()), n))
//             print(tExist(id(S(s: n)), n), tClosure(id({ $0 &* n }), n), tFinal(id(F(f: n)), n))
//             print(tC(id({ $0 &+ 1 }), n))
//         }
//     }

/// `rs[i & m].work(a)` on `[Base]`, `Base` open and overridden: isa at [x21], slot at #0x40, `blr`.
/// `kVtable` and `kVtableCopy` are identical, so the optimizer kept one body (`…Tm`) and made both
/// a `b` to it: two tail jumps before the loop.
let cannedAArch64Vtable = #"""
    0000000000001f20 <$s1m7kVtableySiSayAA4BaseCG_SitF>:
        1f20:      	b	0x1284 <$s1m11kVtableCopyySiSayAA4BaseCG_SitF>

    0000000000001284 <$s1m11kVtableCopyySiSayAA4BaseCG_SitF>:
        1284:      	b	0x1288 <$s1m7kVtableySiSayAA4BaseCG_SitFTm>

    0000000000001288 <$s1m7kVtableySiSayAA4BaseCG_SitFTm>:
        1288:      	stp	x29, x30, [sp, #-0x50]!
        129c:      	mov	x29, sp
        12a0:      	tbnz	x1, #0x3f, 0x1324 <$s1m7kVtableySiSayAA4BaseCG_SitFTm+0x9c>
        12a4:      	mov	x19, x1
        12a8:      	cbz	x1, 0x1304 <$s1m7kVtableySiSayAA4BaseCG_SitFTm+0x7c>
        12ac:      	ldr	x8, [x0, #0x10]
        12b0:      	cbz	x8, 0x1328 <$s1m7kVtableySiSayAA4BaseCG_SitFTm+0xa0>
        12b4:      	mov	x20, xzr
        12b8:      	mov	x22, xzr
        12bc:      	sub	x23, x8, #0x1
        12c0:      	add	x24, x0, #0x20
        12c4:      	and	x8, x22, x23
        12c8:      	add	x22, x22, #0x1
        12cc:      	ldr	x21, [x24, x8, lsl #3]
        12d0:      	ldr	x8, [x21]
        12d4:      	mov	x0, x21
        12d8:      	ldr	x25, [x8, #0x40]
        12dc:      	bl	0xe40 <swift_retain@plt>
        12e0:      	mov	x0, x20
        12e4:      	mov	x20, x21
        12e8:      	blr	x25
        12ec:      	mov	x20, x0
        12f0:      	mov	x0, x21
        12f4:      	bl	0xea0 <swift_release@plt>
        12f8:      	cmp	x19, x22
        12fc:      	b.ne	0x12c4 <$s1m7kVtableySiSayAA4BaseCG_SitFTm+0x3c>
        1300:      	b	0x1308 <$s1m7kVtableySiSayAA4BaseCG_SitFTm+0x80>
        1304:      	mov	x20, xzr
        1308:      	mov	x0, x20
        131c:      	ldp	x29, x30, [sp], #0x50
        1320:      	ret
        1324:      	brk	#0x1
        1328:      	brk	#0x1
    """#

/// The same loop over `[any P]`: `ldp` loads the metadata and the witness table out of the
/// existential container; the call goes through the table's slot at #0x8, with the table in x2.
let cannedAArch64Existential = #"""
    000000000000132c <$s1m6kExistySiSayAA1P_pG_SitF>:
        132c:      	stp	x29, x30, [sp, #-0x50]!
        1340:      	mov	x29, sp
        1344:      	tbnz	x1, #0x3f, 0x13d0 <$s1m6kExistySiSayAA1P_pG_SitF+0xa4>
        1348:      	mov	x19, x1
        134c:      	cbz	x1, 0x13b0 <$s1m6kExistySiSayAA1P_pG_SitF+0x84>
        1350:      	ldr	x8, [x0, #0x10]
        1354:      	cbz	x8, 0x13d4 <$s1m6kExistySiSayAA1P_pG_SitF+0xa8>
        1358:      	mov	x20, xzr
        135c:      	mov	x23, xzr
        1360:      	sub	x24, x8, #0x1
        1364:      	add	x25, x0, #0x20
        1368:      	mov	w26, #0x28              // =40
        136c:      	and	x8, x23, x24
        1370:      	add	x23, x23, #0x1
        1374:      	madd	x0, x8, x26, x25
        1378:      	ldp	x21, x22, [x0, #0x18]
        137c:      	mov	x1, x21
        1380:      	bl	0x13d8 <__swift_project_boxed_opaque_existential_1>
        1384:      	ldr	x8, [x22, #0x8]
        1388:      	mov	x1, x0
        138c:      	mov	x0, x20
        1390:      	mov	x20, x1
        1394:      	mov	x1, x21
        1398:      	mov	x2, x22
        139c:      	blr	x8
        13a0:      	cmp	x19, x23
        13a4:      	mov	x20, x0
        13a8:      	b.ne	0x136c <$s1m6kExistySiSayAA1P_pG_SitF+0x40>
        13ac:      	b	0x13b4 <$s1m6kExistySiSayAA1P_pG_SitF+0x88>
        13b0:      	mov	x20, xzr
        13b4:      	mov	x0, x20
        13c8:      	ldp	x29, x30, [sp], #0x50
        13cc:      	ret
        13d0:      	brk	#0x1
        13d4:      	brk	#0x1
    """#

/// The unspecialised generic `<T: P>`: the witness table arrives in x3 and goes to each call in x2;
/// the metadata's word at -8 (value witnesses: size, destroy) feeds another `blr`.
let cannedAArch64UnspecialisedGeneric = #"""
    0000000000001f3c <$s1m4kGenySiSayxG_SitAA1PRzlF>:
        1f3c:      	stp	x29, x30, [sp, #-0x60]!
        1f54:      	mov	x29, sp
        1f58:      	ldur	x25, [x2, #-0x8]
        1f5c:      	mov	x9, sp
        1f60:      	mov	x19, x3
        1f64:      	mov	x21, x2
        1f68:      	mov	x22, x1
        1f6c:      	mov	x23, x0
        1f70:      	ldr	x8, [x25, #0x40]
        1f74:      	add	x8, x8, #0xf
        1f78:      	and	x8, x8, #0xfffffffffffffff0
        1f7c:      	sub	x20, x9, x8
        1f80:      	mov	sp, x20
        1f84:      	mov	x1, x2
        1f88:      	bl	0xe50 <$sSa5countSivg@plt>
        1f8c:      	subs	x26, x0, #0x1
        1f90:      	b.vs	0x2014 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xd8>
        1f94:      	tbnz	x22, #0x3f, 0x2018 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xdc>
        1f98:      	mov	x24, xzr
        1f9c:      	cbz	x22, 0x1ff0 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xb4>
        1fa0:      	ldr	x27, [x19, #0x8]
        1fa4:      	mov	x8, xzr
        1fa8:      	add	x28, x8, #0x1
        1fac:      	and	x0, x8, x26
        1fb0:      	mov	x8, x20
        1fb4:      	mov	x1, x23
        1fb8:      	mov	x2, x21
        1fbc:      	bl	0xdf0 <$sSayxSicig@plt>
        1fc0:      	mov	x0, x24
        1fc4:      	mov	x1, x21
        1fc8:      	mov	x2, x19
        1fcc:      	blr	x27
        1fd0:      	ldr	x8, [x25, #0x8]
        1fd4:      	mov	x24, x0
        1fd8:      	mov	x0, x20
        1fdc:      	mov	x1, x21
        1fe0:      	blr	x8
        1fe4:      	cmp	x22, x28
        1fe8:      	mov	x8, x28
        1fec:      	b.ne	0x1fa8 <$s1m4kGenySiSayxG_SitAA1PRzlF+0x6c>
        1ff0:      	mov	x0, x24
        1ff4:      	mov	sp, x29
        200c:      	ldp	x29, x30, [sp], #0x60
        2010:      	ret
        2014:      	brk	#0x1
        2018:      	brk	#0x1
    """#

/// `a = f(a)` with a non-escaping closure: `blr` through the function pointer passed in x0.
let cannedAArch64Closure = #"""
    0000000000001524 <$s1m8kClosureyS3iXE_SitF>:
        1524:      	tbnz	x2, #0x3f, 0x1570 <$s1m8kClosureyS3iXE_SitF+0x4c>
        1528:      	stp	x29, x30, [sp, #-0x30]!
        1534:      	mov	x29, sp
        1538:      	mov	x19, x2
        153c:      	cbz	x2, 0x155c <$s1m8kClosureyS3iXE_SitF+0x38>
        1540:      	mov	x20, x1
        1544:      	mov	x21, x0
        1548:      	mov	x0, xzr
        154c:      	blr	x21
        1550:      	subs	x19, x19, #0x1
        1554:      	b.ne	0x154c <$s1m8kClosureyS3iXE_SitF+0x28>
        1558:      	b	0x1560 <$s1m8kClosureyS3iXE_SitF+0x3c>
        155c:      	mov	x0, xzr
        1568:      	ldp	x29, x30, [sp], #0x30
        156c:      	ret
        1570:      	brk	#0x1
    """#

/// The generic specialised for a struct: `work` inlined into the loop.
let cannedAArch64Inlined = #"""
    00000000000013fc <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5>:
        13fc:      	tbnz	x1, #0x3f, 0x144c <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x50>
        1400:      	cbz	x1, 0x1444 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x48>
        1404:      	ldr	x10, [x0, #0x10]
        1408:      	mov	x8, x0
        140c:      	cbz	x10, 0x1450 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x54>
        1410:      	mov	x0, xzr
        1414:      	mov	x9, xzr
        1418:      	sub	x10, x10, #0x1
        141c:      	add	x8, x8, #0x20
        1420:      	and	x11, x9, x10
        1424:      	add	x9, x9, #0x1
        1428:      	ldr	x11, [x8, x11, lsl #3]
        142c:      	cmp	x1, x9
        1430:      	eor	x11, x11, x0
        1434:      	add	x11, x11, x11, lsl #1
        1438:      	add	x0, x11, #0x1
        143c:      	b.ne	0x1420 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x24>
        1440:      	ret
        1444:      	mov	x0, xzr
        1448:      	ret
        144c:      	brk	#0x1
        1450:      	brk	#0x1
    """#

/// A final class whose `work` is `@inline(never)`: a direct `bl`.
let cannedAArch64Direct = #"""
    00000000000014ac <$s1m6kFinalySiSayAA1FCG_SitF>:
        14ac:      	stp	x29, x30, [sp, #-0x40]!
        14bc:      	mov	x29, sp
        14c0:      	tbnz	x1, #0x3f, 0x151c <$s1m6kFinalySiSayAA1FCG_SitF+0x70>
        14c4:      	mov	x19, x1
        14c8:      	cbz	x1, 0x1504 <$s1m6kFinalySiSayAA1FCG_SitF+0x58>
        14cc:      	ldr	x9, [x0, #0x10]
        14d0:      	mov	x8, x0
        14d4:      	cbz	x9, 0x1520 <$s1m6kFinalySiSayAA1FCG_SitF+0x74>
        14d8:      	mov	x0, xzr
        14dc:      	mov	x21, xzr
        14e0:      	sub	x22, x9, #0x1
        14e4:      	add	x23, x8, #0x20
        14e8:      	and	x8, x21, x22
        14ec:      	add	x21, x21, #0x1
        14f0:      	ldr	x20, [x23, x8, lsl #3]
        14f4:      	bl	0x125c <$s1m1FC4workyS2iF>
        14f8:      	cmp	x19, x21
        14fc:      	b.ne	0x14e8 <$s1m6kFinalySiSayAA1FCG_SitF+0x3c>
        1500:      	b	0x1508 <$s1m6kFinalySiSayAA1FCG_SitF+0x5c>
        1504:      	mov	x0, xzr
        1514:      	ldp	x29, x30, [sp], #0x40
        1518:      	ret
        151c:      	brk	#0x1
        1520:      	brk	#0x1
    """#

/// `p.work(x)` on one `any P`: a tail jump (`b`) to a specialised copy that makes the witness-table
/// call (and value-witness calls).
let cannedAArch64ExistentialTailJump = #"""
    00000000000015a0 <$s1m6tExistySiAA1P_p_SitF>:
        15a0:      	stp	x29, x30, [sp, #-0x30]!
        15ac:      	mov	x29, sp
        15b0:      	ldp	x19, x20, [x0, #0x18]
        15b4:      	mov	x21, x1
        15b8:      	mov	x1, x19
        15bc:      	bl	0x13d8 <__swift_project_boxed_opaque_existential_1>
        15c0:      	mov	x2, x19
        15c4:      	mov	x3, x20
        15c8:      	mov	x1, x21
        15d4:      	ldp	x29, x30, [sp], #0x30
        15d8:      	b	0x1658 <$s1m6tExistySiAA1P_p_SitFTf4en_n>

    0000000000001658 <$s1m6tExistySiAA1P_p_SitFTf4en_n>:
        1658:      	stp	x29, x30, [sp, #-0x40]!
        1668:      	mov	x29, sp
        166c:      	ldur	x23, [x2, #-0x8]
        1670:      	mov	x9, sp
        1674:      	mov	x19, x3
        1678:      	mov	x21, x2
        167c:      	mov	x20, x1
        1680:      	mov	x1, x0
        1684:      	ldr	x8, [x23, #0x40]
        1688:      	add	x8, x8, #0xf
        168c:      	and	x8, x8, #0xfffffffffffffff0
        1690:      	sub	x22, x9, x8
        1694:      	mov	sp, x22
        1698:      	ldr	x8, [x23, #0x10]
        169c:      	mov	x0, x22
        16a0:      	blr	x8
        16a4:      	ldr	x8, [x19, #0x8]
        16a8:      	mov	x0, x20
        16ac:      	mov	x20, x22
        16b0:      	mov	x1, x21
        16b4:      	mov	x2, x19
        16b8:      	blr	x8
        16bc:      	ldr	x8, [x23, #0x8]
        16c0:      	mov	x19, x0
        16c4:      	mov	x0, x22
        16c8:      	mov	x1, x21
        16cc:      	blr	x8
        16d0:      	mov	x0, x19
        16d4:      	mov	sp, x29
        16e4:      	ldp	x29, x30, [sp], #0x40
        16e8:      	ret
    """#

/// `f(x)` through a `@convention(c)` pointer: an indirect tail call, `br` through the argument.
let cannedAArch64IndirectTailCall = #"""
    0000000000001628 <$s1m2tCyS3iXC_SitF>:
        1628:      	mov	x2, x0
        162c:      	mov	x0, x1
        1630:      	br	x2
    """#

/// `b.work(x)` on one `Base`: a vtable call, not a tail call (`self` goes in x20, which the caller
/// must get back).
let cannedAArch64VtableSingle = #"""
    0000000000001574 <$s1m7tVtableySiAA4BaseC_SitF>:
        1574:      	stp	x29, x30, [sp, #-0x20]!
        157c:      	mov	x29, sp
        1580:      	ldr	x8, [x0]
        1584:      	mov	x20, x0
        1588:      	mov	x0, x1
        158c:      	ldr	x8, [x8, #0x40]
        1590:      	blr	x8
        1598:      	ldp	x29, x30, [sp], #0x20
        159c:      	ret
    """#

/// `kFinal` from the object file, `llvm-objdump -d -r`: the `bl` still targets itself, and the
/// relocation line under it names the callee.
let cannedAArch64ObjectWithRelocations = #"""
    00000000000002fc <$s1m6kFinalySiSayAA1FCG_SitF>:
         2fc:      	stp	x29, x30, [sp, #-0x40]!
         30c:      	mov	x29, sp
         310:      	tbnz	x1, #0x3f, 0x36c <$s1m6kFinalySiSayAA1FCG_SitF+0x70>
         314:      	mov	x19, x1
         318:      	cbz	x1, 0x354 <$s1m6kFinalySiSayAA1FCG_SitF+0x58>
         31c:      	ldr	x9, [x0, #0x10]
         320:      	mov	x8, x0
         324:      	cbz	x9, 0x370 <$s1m6kFinalySiSayAA1FCG_SitF+0x74>
         328:      	mov	x0, xzr
         32c:      	mov	x21, xzr
         330:      	sub	x22, x9, #0x1
         334:      	add	x23, x8, #0x20
         338:      	and	x8, x21, x22
         33c:      	add	x21, x21, #0x1
         340:      	ldr	x20, [x23, x8, lsl #3]
         344:      	bl	0x344 <$s1m6kFinalySiSayAA1FCG_SitF+0x48>
    		0000000000000344:  R_AARCH64_CALL26	$s1m1FC4workyS2iF
         348:      	cmp	x19, x21
         34c:      	b.ne	0x338 <$s1m6kFinalySiSayAA1FCG_SitF+0x3c>
         350:      	b	0x358 <$s1m6kFinalySiSayAA1FCG_SitF+0x5c>
         354:      	mov	x0, xzr
         364:      	ldp	x29, x30, [sp], #0x40
         368:      	ret
         36c:      	brk	#0x1
         370:      	brk	#0x1
    """#
