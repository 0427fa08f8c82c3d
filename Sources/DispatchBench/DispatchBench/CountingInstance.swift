import Harness

/// A benchmark instance over a subject (usually a class that counts what happened to it), whose
/// counters are read from the subject after the last sample.
final class CountingInstance<Subject>: BenchmarkInstance {
    let subject: Subject
    private let body: (Subject, Int) -> Void
    private let count: (Subject) -> [String: Double]
    private let teardown: (Subject) -> Void

    init(
        _ subject: Subject, body: @escaping (Subject, Int) -> Void, counters: @escaping (Subject) -> [String: Double],
        teardown: @escaping (Subject) -> Void = { _ in }
    ) {
        self.subject = subject
        self.body = body
        self.count = counters
        self.teardown = teardown
    }

    func run(iterations: Int) { body(subject, iterations) }
    var counters: [String: Double] { count(subject) }
    func tearDown() { teardown(subject) }
}
