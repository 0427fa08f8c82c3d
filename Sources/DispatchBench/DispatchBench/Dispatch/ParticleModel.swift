// The classic example from Apple's "Writing High-Performance Swift Code": a particle whose
// `update` forwards to `updatePoint`, which sets two stored properties. In the plain form every one
// of those calls and property accesses may be dynamically dispatched; `final` on the members, on
// the class, or `private` members are the advertised fixes. The open form is the control: another
// module could subclass it, so nothing can be inferred.

class ParticleModel {
    var point = (x: 0.0, y: 0.0)
    var velocity = 100.0

    func updatePoint(newPoint: (Double, Double), newVelocity: Double) {
        point = newPoint
        velocity = newVelocity
    }

    func update(newP: (Double, Double), newV: Double) {
        updatePoint(newPoint: newP, newVelocity: newV)
    }
}

class ParticleModelFinalMembers {
    final var point = (x: 0.0, y: 0.0)
    final var velocity = 100.0

    final func updatePoint(newPoint: (Double, Double), newVelocity: Double) {
        point = newPoint
        velocity = newVelocity
    }

    func update(newP: (Double, Double), newV: Double) {
        updatePoint(newPoint: newP, newVelocity: newV)
    }
}

final class ParticleModelFinalClass {
    var point = (x: 0.0, y: 0.0)
    var velocity = 100.0

    func updatePoint(newPoint: (Double, Double), newVelocity: Double) {
        point = newPoint
        velocity = newVelocity
    }

    func update(newP: (Double, Double), newV: Double) {
        updatePoint(newPoint: newP, newVelocity: newV)
    }
}

class ParticleModelPrivate {
    private var point = (x: 0.0, y: 0.0)
    private var velocity = 100.0

    private func updatePoint(newPoint: (Double, Double), newVelocity: Double) {
        point = newPoint
        velocity = newVelocity
    }

    func update(newP: (Double, Double), newV: Double) {
        updatePoint(newPoint: newP, newVelocity: newV)
    }
}

open class ParticleModelOpen {
    open var point = (x: 0.0, y: 0.0)
    open var velocity = 100.0

    public init() {}

    open func updatePoint(newPoint: (Double, Double), newVelocity: Double) {
        point = newPoint
        velocity = newVelocity
    }

    open func update(newP: (Double, Double), newV: Double) {
        updatePoint(newPoint: newP, newVelocity: newV)
    }
}

// One kernel per form (each `@inline(never)`, found by name in the binary). The receiver is picked
// from a runtime array, as in the dispatch kernels.

@inline(never)
func particleKernelPlain(_ models: [ParticleModel], _ iterations: Int) {
    let mask = models.count - 1
    for i in 0..<iterations {
        let d = Double(i)
        models[i & mask].update(newP: (d * 0.5, d), newV: d * 1000)
    }
}

@inline(never)
func particleKernelFinalMembers(_ models: [ParticleModelFinalMembers], _ iterations: Int) {
    let mask = models.count - 1
    for i in 0..<iterations {
        let d = Double(i)
        models[i & mask].update(newP: (d * 0.5, d), newV: d * 1000)
    }
}

@inline(never)
func particleKernelFinalClass(_ models: [ParticleModelFinalClass], _ iterations: Int) {
    let mask = models.count - 1
    for i in 0..<iterations {
        let d = Double(i)
        models[i & mask].update(newP: (d * 0.5, d), newV: d * 1000)
    }
}

@inline(never)
func particleKernelPrivate(_ models: [ParticleModelPrivate], _ iterations: Int) {
    let mask = models.count - 1
    for i in 0..<iterations {
        let d = Double(i)
        models[i & mask].update(newP: (d * 0.5, d), newV: d * 1000)
    }
}

@inline(never)
func particleKernelOpen(_ models: [ParticleModelOpen], _ iterations: Int) {
    let mask = models.count - 1
    for i in 0..<iterations {
        let d = Double(i)
        models[i & mask].update(newP: (d * 0.5, d), newV: d * 1000)
    }
}
