import DispatchBenchOpaque

// The measured loops. Each is `@inline(never)` with a stable name, so its compiled form can be
// found in the binary (`CompiledFormClassifier`) and the call inside it classified. Receivers come
// from runtime data (arrays built from random salts and passed through `identity`), and each call's
// result feeds the next, so the optimizer can neither pick the receiver's type at compile time nor
// drop or reorder the calls.

@inline(never)
func dispatchKernelStructMethod(_ receivers: [StructWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelFinalMethod(_ receivers: [FinalMethodWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelFinalClass(_ receivers: [FinalClassWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelInternalNoOverride(_ receivers: [InternalWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelPublicNoOverride(_ receivers: [PublicWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelOpenNoOverride(_ receivers: [OpenWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

/// Used by both the monomorphic and the megamorphic case: only the receivers differ.
@inline(never)
func dispatchKernelOverridden(_ receivers: [Shape], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelExistential(_ receivers: [any Worker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

/// Generic in the same module: the optimizer can specialise it for the caller's concrete type.
@inline(never)
func dispatchGenericSum<W: Worker>(_ receivers: [W], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelGenericSpecialised(_ receivers: [StructWorker], _ iterations: Int) -> Int {
    dispatchGenericSum(receivers, iterations)
}

@inline(never)
func dispatchKernelGenericCrossModule(_ receivers: [StructWorker], _ iterations: Int) -> Int {
    opaqueGenericSum(receivers, count: iterations)
}

@inline(never)
func dispatchKernelClosure(_ body: (Int) -> Int, _ iterations: Int) -> Int {
    var accumulator = 0
    for _ in 0..<iterations { accumulator = body(accumulator) }
    return accumulator
}

@inline(never)
func dispatchKernelCrossModuleCall(_ receivers: [StructWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = opaqueStep(accumulator, salt: receivers[i & mask].salt) }
    return accumulator
}
