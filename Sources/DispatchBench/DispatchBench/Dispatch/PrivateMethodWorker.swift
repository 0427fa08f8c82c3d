// `fileprivate` needs its caller in the same file, so the receiver and its kernel live here.

class PrivateMethodWorker {
    let salt: Int
    init(salt: Int) { self.salt = salt }
    /// Not `final`, but nothing outside this file can override it, so the compiler may infer `final`.
    fileprivate func work(_ x: Int) -> Int { (x ^ salt) &* 3 &+ 1 }
}

@inline(never)
func dispatchKernelPrivateMethod(_ receivers: [PrivateMethodWorker], _ iterations: Int) -> Int {
    var accumulator = 0
    let mask = receivers.count - 1
    for i in 0..<iterations { accumulator = receivers[i & mask].work(accumulator) }
    return accumulator
}
