import Testing
@testable import DispatchBench
@testable import PerfMachineCode

// Real `swiftc -O` output (Swift 6.3, x86-64, llvm-objdump 21), with pushes, pops and padding removed.

/// `rs[i & m].work(a)` on `[Base]` where `Base` is open and a subclass overrides `work`.
let cannedVtable = #"""
    0000000000001120 <$s1m7kVtableySiSayAA4BaseCG_SitF>:
        112b:      	testq	%rsi, %rsi
        112e:      	js	0x119c <$s1m7kVtableySiSayAA4BaseCG_SitF+0x7c>
        1130:      	je	0x1187 <$s1m7kVtableySiSayAA4BaseCG_SitF+0x67>
        1132:      	movq	%rdi, %rbx
        1135:      	movq	0x10(%rdi), %rax
        1139:      	movq	%rax, (%rsp)
        113d:      	testq	%rax, %rax
        1140:      	je	0x119e <$s1m7kVtableySiSayAA4BaseCG_SitF+0x7e>
        1142:      	movq	%rsi, %r12
        1145:      	decq	(%rsp)
        1149:      	xorl	%r15d, %r15d
        114c:      	xorl	%ebp, %ebp
        1150:      	movq	%rbp, %rax
        1153:      	andq	(%rsp), %rax
        1157:      	incq	%rbp
        115a:      	movq	0x20(%rbx,%rax,8), %r13
        115f:      	movq	(%r13), %rax
        1163:      	movq	0x38(%rax), %r14
        1167:      	movq	%r13, %rdi
        116a:      	callq	0xd00 <swift_retain@plt>
        116f:      	movq	%r15, %rdi
        1172:      	callq	*%r14
        1175:      	movq	%rax, %r15
        1178:      	movq	%r13, %rdi
        117b:      	callq	0xd10 <swift_release@plt>
        1180:      	cmpq	%rbp, %r12
        1183:      	jne	0x1150 <$s1m7kVtableySiSayAA4BaseCG_SitF+0x30>
        1185:      	jmp	0x118a <$s1m7kVtableySiSayAA4BaseCG_SitF+0x6a>
        1187:      	xorl	%r15d, %r15d
        118a:      	movq	%r15, %rax
        118d:      	addq	$0x8, %rsp
    """#

/// The same loop over `[any P]`.
let cannedExistential = #"""
    00000000000011b0 <$s1m6kExistySiSayAA1P_pG_SitF>:
        11ba:      	subq	$0x18, %rsp
        11be:      	testq	%rsi, %rsi
        11c1:      	js	0x1248 <$s1m6kExistySiSayAA1P_pG_SitF+0x98>
        11c7:      	je	0x1233 <$s1m6kExistySiSayAA1P_pG_SitF+0x83>
        11c9:      	movq	%rdi, %r14
        11cc:      	movq	0x10(%rdi), %rax
        11d0:      	movq	%rax, 0x8(%rsp)
        11d5:      	testq	%rax, %rax
        11d8:      	je	0x124a <$s1m6kExistySiSayAA1P_pG_SitF+0x9a>
        11da:      	decq	0x8(%rsp)
        11df:      	addq	$0x20, %r14
        11e3:      	xorl	%r15d, %r15d
        11e6:      	xorl	%ebx, %ebx
        11e8:      	movq	%rsi, 0x10(%rsp)
        11f0:      	movq	%rbx, %rax
        11f3:      	andq	0x8(%rsp), %rax
        11f8:      	incq	%rbx
        11fb:      	leaq	(%rax,%rax,4), %rax
        11ff:      	leaq	(%r14,%rax,8), %rdi
        1203:      	movq	0x18(%r14,%rax,8), %r12
        1208:      	movq	0x20(%r14,%rax,8), %rbp
        120d:      	movq	%r12, %rsi
        1210:      	callq	0x1610 <__swift_project_boxed_opaque_existential_1>
        1215:      	movq	%r15, %rdi
        1218:      	movq	%rax, %r13
        121b:      	movq	%r12, %rsi
        121e:      	movq	%rbp, %rdx
        1221:      	callq	*0x8(%rbp)
        1224:      	movq	0x10(%rsp), %rsi
        1229:      	movq	%rax, %r15
        122c:      	cmpq	%rbx, %rsi
        122f:      	jne	0x11f0 <$s1m6kExistySiSayAA1P_pG_SitF+0x40>
        1231:      	jmp	0x1236 <$s1m6kExistySiSayAA1P_pG_SitF+0x86>
        1233:      	xorl	%r15d, %r15d
        1236:      	movq	%r15, %rax
        1239:      	addq	$0x18, %rsp
    """#

/// The same loop in an unspecialised generic `<T: P>`: the witness-table call is through a stack
/// spill, and a value-witness call (destroy) follows it.
let cannedUnspecialisedGeneric = #"""
    00000000000012e0 <$s1m4kGenySiSayxG_SitAA1PRzlF>:
        12e1:      	movq	%rsp, %rbp
        12ed:      	subq	$0x28, %rsp
        12f1:      	movq	%rcx, %rbx
        12f4:      	movq	%rdx, %r14
        12f7:      	movq	%rsi, %r15
        12fa:      	movq	%rdi, %r12
        12fd:      	movq	-0x8(%rdx), %rax
        1301:      	movq	%rax, -0x50(%rbp)
        1305:      	movq	0x40(%rax), %rax
        1309:      	movq	%rsp, %r13
        130c:      	addq	$0xf, %rax
        1310:      	andq	$-0x10, %rax
        1314:      	subq	%rax, %r13
        1317:      	movq	%r13, %rsp
        131a:      	movq	%rdx, %rsi
        131d:      	callq	0xd20 <$sSa5countSivg@plt>
        1322:      	decq	%rax
        1325:      	jo	0x13a9 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xc9>
        132b:      	testq	%r15, %r15
        132e:      	js	0x13ab <$s1m4kGenySiSayxG_SitAA1PRzlF+0xcb>
        1330:      	je	0x1394 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xb4>
        1332:      	movq	0x8(%rbx), %rcx
        1336:      	movq	%rcx, -0x48(%rbp)
        133a:      	movq	%r15, -0x40(%rbp)
        133e:      	xorl	%r15d, %r15d
        1341:      	xorl	%edi, %edi
        1343:      	movq	%r12, -0x38(%rbp)
        1347:      	movq	%rbx, -0x30(%rbp)
        1350:      	leaq	0x1(%rdi), %rbx
        1354:      	andq	%rax, %rdi
        1357:      	movq	%rax, %r12
        135a:      	movq	%r13, %rax
        135d:      	movq	-0x38(%rbp), %rsi
        1361:      	movq	%r14, %rdx
        1364:      	callq	0xd30 <$sSayxSicig@plt>
        1369:      	movq	%r15, %rdi
        136c:      	movq	%r14, %rsi
        136f:      	movq	-0x30(%rbp), %rdx
        1373:      	callq	*-0x48(%rbp)
        1376:      	movq	%rax, %r15
        1379:      	movq	%r13, %rdi
        137c:      	movq	%r14, %rsi
        137f:      	movq	-0x50(%rbp), %rax
        1383:      	callq	*0x8(%rax)
        1386:      	movq	%r12, %rax
        1389:      	movq	%rbx, %rdi
        138c:      	cmpq	%rbx, -0x40(%rbp)
        1390:      	jne	0x1350 <$s1m4kGenySiSayxG_SitAA1PRzlF+0x70>
        1392:      	jmp	0x1397 <$s1m4kGenySiSayxG_SitAA1PRzlF+0xb7>
        1394:      	xorl	%r15d, %r15d
        1397:      	movq	%r15, %rax
        139a:      	leaq	-0x28(%rbp), %rsp
    """#

/// `a = f(a)` with a non-escaping closure parameter.
let cannedClosure = #"""
    00000000000013b0 <$s1m8kClosureyS3iXE_SitF>:
        13b0:      	testq	%rdx, %rdx
        13b3:      	js	0x13e4 <$s1m8kClosureyS3iXE_SitF+0x34>
        13b5:      	je	0x13e1 <$s1m8kClosureyS3iXE_SitF+0x31>
        13bc:      	movq	%rdx, %rbx
        13bf:      	movq	%rsi, %r13
        13c2:      	movq	%rdi, %r14
        13c5:      	xorl	%eax, %eax
        13d0:      	movq	%rax, %rdi
        13d3:      	callq	*%r14
        13d6:      	decq	%rbx
        13d9:      	jne	0x13d0 <$s1m8kClosureyS3iXE_SitF+0x20>
        13e1:      	xorl	%eax, %eax
    """#

/// The generic specialised for a struct: `work` is inlined (and unrolled).
let cannedInlined = #"""
    0000000000001250 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5>:
        1250:      	testq	%rsi, %rsi
        1253:      	js	0x12ad <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x5d>
        1255:      	je	0x126d <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x1d>
        1257:      	cmpq	$0x0, 0x10(%rdi)
        125c:      	je	0x12af <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x5f>
        125e:      	movl	%esi, %ecx
        1260:      	andl	$0x7, %ecx
        1263:      	cmpq	$0x8, %rsi
        1267:      	jae	0x1270 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x20>
        1269:      	xorl	%eax, %eax
        126b:      	jmp	0x1293 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x43>
        126d:      	xorl	%eax, %eax
        1270:      	movabsq	$0x7ffffffffffffff8, %rax # imm = 0x7FFFFFFFFFFFFFF8
        127a:      	andq	%rax, %rsi
        127d:      	xorl	%eax, %eax
        1280:      	imulq	$0x19a1, %rax, %rax     # imm = 0x19A1
        1287:      	addq	$0xcd0, %rax            # imm = 0xCD0
        128d:      	addq	$-0x8, %rsi
        1291:      	jne	0x1280 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x30>
        1293:      	testq	%rcx, %rcx
        1296:      	je	0x12ac <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x5c>
        12a0:      	leaq	(%rax,%rax,2), %rax
        12a4:      	incq	%rax
        12a7:      	decq	%rcx
        12aa:      	jne	0x12a0 <$s1m4kGenySiSayxG_SitAA1PRzlFAA1SV_Tg5+0x50>
    """#
