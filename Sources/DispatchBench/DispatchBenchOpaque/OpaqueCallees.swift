/// Callees that DispatchBench reaches across a module boundary. Nothing here is `@inlinable`, so
/// the caller can neither inline nor specialise them, unless cross-module optimisation decides
/// otherwise, which the compiled-form check would report.

/// A protocol whose requirement the unspecialised generic below calls through the witness table.
public protocol OpaqueWorker {
    func work(_ x: Int) -> Int
}

/// The same loop as DispatchBench's kernels, but generic and compiled once for every `W`: `work`
/// is called through the witness table the caller passes in.
@inline(never)
public func opaqueGenericSum<W: OpaqueWorker>(_ workers: [W], count: Int) -> Int {
    var accumulator = 0
    let mask = workers.count - 1
    for i in 0..<count {
        accumulator = workers[i & mask].work(accumulator)
    }
    return accumulator
}

/// The work of `StructWorker.work` as a plain public function, whose body other modules cannot see.
public func opaqueStep(_ x: Int, salt: Int) -> Int {
    (x ^ salt) &* 3 &+ 1
}
