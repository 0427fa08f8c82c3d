import Testing

@testable import PerfMachineCode

/// A callee both binaries have that only the new function calls is a lost inlining only when the
/// base function shows its code; otherwise it is a new call (issue #50's `reportProgress`).
@Suite struct InliningEvidenceTests {
    typealias Change = CompiledCodeComparison.Change
    static let caller = "$s1m5drainyS2iF"
    static let progress = "$s1m14reportProgressyySiF"
    static let log = "$s1m3logyySSF"

    private func code(_ symbol: String, size: Int, calls: [String: Int] = [:]) -> FunctionCode {
        var code = FunctionCode(symbol: symbol, size: size, instructions: [])
        code.directCallees = calls
        return code
    }

    /// The changes from `base` to `new`, both binaries having every function; `callee` is the new
    /// binary's code of the callee.
    private func changes(_ base: FunctionCode, _ new: FunctionCode, callee: FunctionCode) -> [Change] {
        var names = SwiftSymbolNames(demanglePath: nil)
        return CompiledCodeComparison.changes(
            from: base, to: new, names: &names, baseHas: { _ in true }, newHas: { _ in true },
            newCode: { $0 == callee.symbol ? callee : nil })
    }

    @Test func aCallTheBaseNeverMadeIsANewCall() {
        // The base never called reportProgress and is smaller: nothing of it was inlined there.
        let progress = code(Self.progress, size: 60, calls: [Self.log: 1])
        let added = changes(
            code(Self.caller, size: 120), code(Self.caller, size: 140, calls: [Self.progress: 1]), callee: progress)
        #expect(
            added.contains { if case .newCall(let f, count: 1) = $0 { f.symbol == Self.progress } else { false } })
        #expect(!added.contains { if case .noLongerInlined = $0 { true } else { false } })
        let comparison = CompiledCodeComparison(
            function: .init(symbol: Self.caller, name: "drain(_:)"), changes: added)
        #expect(comparison.lines.contains("drain(_:): now calls \(Self.progress) 1× (was 0)"))
        #expect(!comparison.summary.contains("no longer inlines"))
    }

    @Test func aLargerBaseThatMadeTheCalleesOwnCallsInlinedIt() {
        // The base is larger and called log, which the callee calls: the callee's body was there.
        let progress = code(Self.progress, size: 130, calls: [Self.log: 1])
        let base = code(Self.caller, size: 300, calls: [Self.log: 1])
        let lost = changes(base, code(Self.caller, size: 180, calls: [Self.progress: 1]), callee: progress)
        #expect(lost.contains(.noLongerInlined(.init(symbol: Self.progress, name: Self.progress))))
        #expect(
            CompiledCodeComparison.wording(of: .noLongerInlined(.init(symbol: Self.progress, name: "p")))
                == "no longer inlines p: calls it now")
        // Larger, but without the callee's own call: no evidence.
        let other = changes(
            code(Self.caller, size: 300), code(Self.caller, size: 180, calls: [Self.progress: 1]), callee: progress)
        #expect(!other.contains { if case .noLongerInlined = $0 { true } else { false } })
    }

    @Test func aLeafCalleeIsJudgedByHowMuchTheFunctionShrank() {
        let leaf = code(Self.progress, size: 100)
        let new = code(Self.caller, size: 120, calls: [Self.progress: 2])
        #expect(
            changes(code(Self.caller, size: 200), new, callee: leaf)
                .contains(.noLongerInlined(.init(symbol: Self.progress, name: Self.progress))))
        // 10 bytes smaller is not the callee's 100 bytes: two new calls, nothing lost.
        #expect(
            changes(code(Self.caller, size: 130), new, callee: leaf)
                .contains(.newCall(.init(symbol: Self.progress, name: Self.progress), count: 2)))
        // Unreadable callee code: no evidence either.
        var names = SwiftSymbolNames(demanglePath: nil)
        let unread = CompiledCodeComparison.changes(
            from: code(Self.caller, size: 200), to: new, names: &names, baseHas: { _ in true },
            newHas: { _ in true }, newCode: { _ in nil })
        #expect(unread.contains(.newCall(.init(symbol: Self.progress, name: Self.progress), count: 2)))
    }
}
