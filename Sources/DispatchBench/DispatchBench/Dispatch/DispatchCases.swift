import Harness
import PerfMachineCode
import PerfReport

/// Number of receivers each kernel cycles through (a power of two: the kernels index with a mask).
let dispatchReceiverCount = 256

/// `count` values made from random salts, passed through `identity` so the optimizer knows nothing
/// about them (not even their dynamic types).
func runtimeReceivers<T>(_ make: (Int) -> T) -> [T] {
    identity((0..<dispatchReceiverCount).map { _ in make(Int.random(in: 0..<(1 << 20))) })
}

typealias StepClosure = @Sendable (Int) -> Int

private let module = "DispatchBench"
/// `work(_:)` of any receiver; a `fileprivate` method's name carries a discriminator (`4work33_…`).
private let work = CallTarget(calleeFragments: ["4workyS2iF", "4work33_"])

private func kernel(_ name: String) -> String { mangledPrefix(module: module, function: name) }

private func dispatchCase<State>(
    _ name: String, _ statement: String, forms: Set<CompiledForm.Kind>, kernel kernelName: String,
    target: CallTarget = work, timing: DispatchCase.Timing?, setup: @escaping @Sendable () -> State,
    body: @escaping @Sendable (State, Int) -> Int
) -> DispatchCase {
    DispatchCase(
        group: "dispatch", name: name, statement: statement, expectedForms: forms, kernel: kernel(kernelName),
        target: target, timing: timing,
        benchmark: Benchmark(
            "DispatchBench/dispatch/\(name)", throughput: { _ in .items(1) }, setup: { _ in setup() },
            body: { state, n in blackHole(body(state, n)) }))
}

let dispatchCases: [DispatchCase] =
    [
        dispatchCase(
            "struct-method", "A struct method is dispatched statically, so it is cheaper than a vtable call.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelStructMethod",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(StructWorker.init(salt:)) }, body: dispatchKernelStructMethod),
        dispatchCase(
            "final-method", "`final` on a method makes calls to it static, so cheaper than a vtable call.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelFinalMethod",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(FinalMethodWorker.init(salt:)) }, body: dispatchKernelFinalMethod),
        dispatchCase(
            "final-class", "`final` on the class makes calls to its methods static, so cheaper than a vtable call.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelFinalClass",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(FinalClassWorker.init(salt:)) }, body: dispatchKernelFinalClass),
        dispatchCase(
            "private-method",
            "A `fileprivate` method is inferred `final`, so calls to it are static and cheaper than a vtable call.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelPrivateMethod",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(PrivateMethodWorker.init(salt:)) }, body: dispatchKernelPrivateMethod),
        dispatchCase(
            "internal-no-override",
            "Whole-module optimisation infers `final` for an internal method that nothing overrides: the call is static.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelInternalNoOverride",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(InternalWorker.init(salt:)) }, body: dispatchKernelInternalNoOverride),
        dispatchCase(
            "public-no-override",
            "Whole-module optimisation infers `final` for a public (not open) method that nothing overrides: the call is static.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelPublicNoOverride",
            timing: .fasterThan("open-no-override"),
            setup: { runtimeReceivers(PublicWorker.init(salt:)) }, body: dispatchKernelPublicNoOverride),
        dispatchCase(
            "open-no-override",
            "A non-final (open) method is called through the vtable even though nothing overrides it, and costs more than a final one.",
            forms: [.vtable], kernel: "dispatchKernelOpenNoOverride", timing: .slowerThan("final-class"),
            setup: { runtimeReceivers(OpenWorker.init(salt:)) }, body: dispatchKernelOpenNoOverride),
        dispatchCase(
            "overridden-monomorphic",
            "An overridden method called through a base-class reference goes through the vtable even when every receiver has the same type, and costs more than a final call (it blocks inlining).",
            forms: [.vtable], kernel: "dispatchKernelOverridden", timing: .slowerThan("final-class"),
            setup: { runtimeReceivers(Circle.init(salt:)) as [Shape] }, body: dispatchKernelOverridden),
        dispatchCase(
            "overridden-megamorphic",
            "A vtable call site that sees several receiver types (mixed at random) costs more than one that always sees the same type.",
            forms: [.vtable], kernel: "dispatchKernelOverridden", timing: .slowerThan("overridden-monomorphic"),
            setup: {
                let types: [Shape.Type] = [Circle.self, Square.self, Triangle.self, Hexagon.self]
                return runtimeReceivers { salt in types[salt % types.count].init(salt: salt) }
            }, body: dispatchKernelOverridden),
        dispatchCase(
            "existential",
            "Calling a protocol requirement on `any P` goes through the witness table and costs more than the struct method itself.",
            forms: [.witnessTable], kernel: "dispatchKernelExistential", timing: .slowerThan("struct-method"),
            setup: {
                runtimeReceivers { salt -> any Worker in
                    salt & 1 == 0 ? StructWorker(salt: salt) : StructWorker.Shifted(salt: salt)
                }
            }, body: dispatchKernelExistential),
        dispatchCase(
            "generic-specialised",
            "A generic function called with a concrete type in the same module is specialised: the protocol call is static and cheaper than the unspecialised generic's.",
            forms: DispatchCase.staticForms, kernel: "dispatchKernelGenericSpecialised",
            target: CallTarget(
                calleeFragments: ["4workyS2iF"], follow: [mangledPrefix(module: module, function: "dispatchGenericSum")]
            ),
            timing: .fasterThan("generic-cross-module"),
            setup: { runtimeReceivers(StructWorker.init(salt:)) }, body: dispatchKernelGenericSpecialised),
        dispatchCase(
            "generic-cross-module",
            "A generic function from another module (not @inlinable) is not specialised: the protocol call goes through the witness table and costs more than the struct method.",
            forms: [.witnessTable], kernel: "dispatchKernelGenericCrossModule",
            target: CallTarget(
                calleeFragments: ["4workyS2iF"],
                follow: [mangledPrefix(module: "DispatchBenchOpaque", function: "opaqueGenericSum")]),
            timing: .slowerThan("struct-method"),
            setup: { runtimeReceivers(StructWorker.init(salt:)) }, body: dispatchKernelGenericCrossModule),
        dispatchCase(
            "closure",
            "Calling an opaque closure is an indirect call that cannot be inlined, so it costs more than the inlined struct method.",
            forms: [.indirect], kernel: "dispatchKernelClosure", target: CallTarget(calleeFragments: []),
            timing: .slowerThan("struct-method"),
            setup: { () -> StepClosure in
                // One closure body, opaque through identity and a runtime salt: choosing between two
                // bodies at random made the median depend on which body (and its code alignment)
                // each instance drew.
                let salt = Int.random(in: 0..<(1 << 20))
                let step: StepClosure = { ($0 ^ salt) &* 3 &+ 1 }
                return identity(step)
            }, body: { (body: StepClosure, n: Int) in dispatchKernelClosure(body, n) }),
        dispatchCase(
            "cross-module-call",
            "A plain public function from another module is called, not inlined (no @inlinable), and costs more than the same work inlined.",
            forms: [.direct], kernel: "dispatchKernelCrossModuleCall",
            target: CallTarget(calleeFragments: [mangledPrefix(module: "DispatchBenchOpaque", function: "opaqueStep")]),
            timing: .slowerThan("struct-method"),
            setup: { runtimeReceivers(StructWorker.init(salt:)) }, body: dispatchKernelCrossModuleCall),
    ] + particleCases

private let particleCalls = ["6update4newP", "11updatePoint", "5pointSd", "8velocitySd"]

private func particleCase<Model: AnyObject>(
    _ name: String, type: String, _ statement: String, forms: Set<CompiledForm.Kind>, kernel kernelName: String,
    timing: DispatchCase.Timing?, innerDecides: Bool = false, make: @escaping @Sendable () -> Model,
    body: @escaping @Sendable ([Model], Int) -> Void
) -> DispatchCase {
    var result = DispatchCase(
        group: "dispatch", name: "particle-\(name)", statement: statement, expectedForms: forms,
        kernel: kernel(kernelName),
        target: CallTarget(calleeFragments: particleCalls), timing: timing,
        benchmark: Benchmark(
            "DispatchBench/dispatch/particle-\(name)", throughput: { _ in .items(1) },
            setup: { _ in runtimeReceivers { _ in make() } },
            body: { models, n in
                body(models, n)
                blackHole(models)
            }))
    result.inner = (
        "$s\(module.count)\(module)\(type.count)\(type)C6update4newP",
        CallTarget(calleeFragments: Array(particleCalls.dropFirst()))
    )
    result.innerDecides = innerDecides
    return result
}

let particleCases: [DispatchCase] = [
    particleCase(
        "plain", type: "ParticleModel",
        "Without `final`, ParticleModel's update, updatePoint and property setters are called through the vtable, so it is slower than the final class.",
        forms: [.vtable], kernel: "particleKernelPlain", timing: .slowerThan("particle-final-class"),
        make: { ParticleModel() }, body: particleKernelPlain),
    particleCase(
        "final-members", type: "ParticleModelFinalMembers",
        "`final` members make updatePoint and the property setters static calls, so it is faster than the plain form.",
        forms: DispatchCase.staticForms, kernel: "particleKernelFinalMembers", timing: .fasterThan("particle-plain"),
        innerDecides: true,
        make: { ParticleModelFinalMembers() }, body: particleKernelFinalMembers),
    particleCase(
        "final-class", type: "ParticleModelFinalClass",
        "A `final class` ParticleModel has only static calls, so it is faster than the plain form.",
        forms: DispatchCase.staticForms, kernel: "particleKernelFinalClass", timing: .fasterThan("particle-plain"),
        make: { ParticleModelFinalClass() }, body: particleKernelFinalClass),
    particleCase(
        "private", type: "ParticleModelPrivate",
        "`private` members of ParticleModel are inferred final: updatePoint and the property setters are static, so it is faster than the plain form.",
        forms: DispatchCase.staticForms, kernel: "particleKernelPrivate", timing: .fasterThan("particle-plain"),
        innerDecides: true,
        make: { ParticleModelPrivate() }, body: particleKernelPrivate),
    particleCase(
        "open", type: "ParticleModelOpen",
        "An `open` ParticleModel (subclassable by other modules) keeps its vtable calls and is slower than the final class.",
        forms: [.vtable], kernel: "particleKernelOpen", timing: .slowerThan("particle-final-class"),
        make: { ParticleModelOpen() }, body: particleKernelOpen),
]
