import DispatchBenchOpaque

// The receivers of the dispatch benchmarks. Every `work` does the same arithmetic; what differs is
// how the call to it can be dispatched. The salt varies per receiver so the optimizer cannot fold
// a chain of calls into one expression.

protocol Worker {
    func work(_ x: Int) -> Int
}

struct StructWorker: Worker, OpaqueWorker {
    let salt: Int
    func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

class FinalMethodWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    final func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

final class FinalClassWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

/// Internal, not final, and nothing overrides it: whole-module optimisation may infer `final`.
class InternalWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

/// Public but not open: no other module can subclass it, so WMO may infer `final` here too.
public class PublicWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    public func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

/// Open: another module could override `work`, so nothing overriding it here proves nothing.
open class OpenWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    open func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

/// A base class whose method the subclasses override; receivers are mixed at run time.
class Shape {
    let salt: Int
    required init(salt: Int) { self.salt = salt }
    func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

final class Circle: Shape {
    override func work(_ x: Int) -> Int { (x ^ salt) &* 5 &+ 1 }
}

final class Square: Shape {
    override func work(_ x: Int) -> Int { (x ^ salt) &* 7 &+ 3 }
}

final class Triangle: Shape {
    override func work(_ x: Int) -> Int { (x &+ salt) &* 3 &+ 5 }
}

final class Hexagon: Shape {
    override func work(_ x: Int) -> Int { (x &- salt) &* 9 &+ 1 }
}

extension StructWorker {
    /// A second conforming type, so existential receivers can be mixed.
    struct Shifted: Worker {
        let salt: Int
        func work(_ x: Int) -> Int { (x &+ salt) &* 3 &+ 1 }
    }
}
