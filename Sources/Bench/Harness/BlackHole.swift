/// Consumes a value so the optimizer cannot delete the computation that produced it.
///
/// `@inline(never)` alone is not enough: cross-module optimisation can still see the empty body
/// and drop the call (package-benchmark issue #178). `@_optimize(none)` keeps the body opaque;
/// `HarnessTests` disassembles a caller to check that the call survives.
@inline(never)
@_optimize(none)
public func blackHole<T>(_ value: T) {
    _ = value
}

/// Returns its argument unchanged, but the optimizer cannot know that, so values passed through it
/// (receivers, sizes, flags) are treated as unknown at compile time.
@inline(never)
@_optimize(none)
public func identity<T>(_ value: T) -> T {
    value
}
