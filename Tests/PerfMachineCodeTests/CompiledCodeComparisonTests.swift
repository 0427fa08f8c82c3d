import Foundation
import Testing

@testable import PerfMachineCode

/// Real machine code: each pair of `CompiledVariants` differs by one regression, and the
/// comparison's lines must name it.
@Suite(.enabled(if: CompiledVariants.missingTool == nil, "needs llvm-objdump and swiftc (not found)"))
struct CompiledCodeComparisonTests {
    private func compare(
        _ base: String, _ new: String, _ symbol: String, newSymbol: String? = nil
    ) throws -> CompiledCodeComparison {
        var comparer = try CompiledCodeComparer(
            basePath: try CompiledVariants.path(base), newPath: try CompiledVariants.path(new))
        return comparer.compare(symbol, newSymbol: newSymbol)
    }

    @Test func summarizesASpecializedFunction() throws {
        let binary = try ExecutableDisassembler(executablePath: try CompiledVariants.path("generic"))
        let code = try binary.functionCode(CompiledVariants.totalSpecialized).get()
        #expect(code.size > 0 && code.instructionCount > 0)
        // Specialized for Square: `area()` is inlined, nothing is called through a witness table.
        #expect(code.witnessTableCalls == 0)
        let generic = try ExecutableDisassembler(executablePath: try CompiledVariants.path("unspecialized"))
        let unspecialized = try generic.functionCode(CompiledVariants.total).get()
        #expect(unspecialized.witnessTableCalls > 0)
        var names = SwiftSymbolNames()
        let caller = try generic.functionCode(CompiledVariants.run).get()
        #expect(caller.unspecializedGenericCalls(names: &names)[CompiledVariants.total] == 1)
        let specializedCaller = try binary.functionCode(CompiledVariants.run).get()
        #expect(specializedCaller.unspecializedGenericCalls(names: &names).isEmpty)
    }

    @Test func existentialParameterIsAWitnessTableCall() throws {
        let comparison = try compare("generic", "existential", CompiledVariants.totalSpecialized)
        #expect(
            comparison.changes.first
                == .replaced(by: .init(symbol: CompiledVariants.totalExistential, name: "total(_:)")))
        #expect(comparison.changes.contains { if case .witnessTableCalls(0, let new) = $0 { new > 0 } else { false } })
        #expect(comparison.lines.contains { $0.contains("now calls through a witness table") })
        #expect(comparison.summary.hasPrefix("specialized total<A>(_:): "))
    }

    @Test func aFunctionNewInTheNewBuildIsComparedWithTheOneItReplaced() throws {
        // A profile of the new build names the existential `total`; the base has the specialization.
        var comparer = try CompiledCodeComparer(
            basePath: try CompiledVariants.path("generic"), newPath: try CompiledVariants.path("existential"))
        let comparison = comparer.compare(newFunction: CompiledVariants.totalExistential)
        #expect(comparison.function.symbol == CompiledVariants.totalExistential)
        #expect(
            comparison.changes.first
                == .replacedInBase(.init(symbol: CompiledVariants.totalSpecialized, name: "specialized total<A>(_:)")))
        #expect(comparison.changes.contains { if case .witnessTableCalls(0, let new) = $0 { new > 0 } else { false } })
        #expect(comparison.lines.first?.contains("new in this build, in place of specialized total<A>(_:)") == true)
        // A symbol the base has is compared as it is.
        #expect(comparer.compare(newFunction: CompiledVariants.run).changes.first != nil)
    }

    @Test func lostSpecializationIsNamed() throws {
        // The caller now calls the generic entry point instead of the specialization.
        let caller = try compare("generic", "unspecialized", CompiledVariants.run)
        #expect(
            caller.changes.contains(
                .callsUnspecializedGeneric(.init(symbol: CompiledVariants.total, name: "total<A>(_:)"))))
        #expect(
            caller.lines.contains {
                $0.contains("now calls the unspecialized generic total<A>(_:) (specialization lost)")
            })
        // The specialization itself is gone: compared with the generic it was made from.
        let callee = try compare("generic", "unspecialized", CompiledVariants.totalSpecialized)
        #expect(
            callee.changes.first
                == .specializationReplacedByGeneric(.init(symbol: CompiledVariants.total, name: "total<A>(_:)")))
        #expect(callee.lines.contains { $0.contains("now calls through a witness table") })
    }

    @Test func newReferenceCountingInALoop() throws {
        let comparison = try compare("loop", "loopWithReference", CompiledVariants.sum)
        #expect(comparison.changes.contains(.runtimeCalls(.retain, base: 0, new: 1, newInLoops: 1)))
        #expect(comparison.changes.contains(.runtimeCalls(.release, base: 0, new: 1, newInLoops: 1)))
        #expect(
            comparison.lines.contains {
                $0.hasSuffix("now calls swift_retain 1× (was 0: reference counting, in a loop)")
            })
        #expect(comparison.changes.contains { if case .size(let base, let new) = $0 { new > base } else { false } })
    }

    @Test func newExclusivityCheck() throws {
        // The optimizer hoists the global's access out of the loop: one check before it.
        let global = try compare("local", "globalInout", CompiledVariants.bump)
        #expect(global.changes.contains(.runtimeCalls(.beginAccess, base: 0, new: 1, newInLoops: 0)))
        #expect(global.lines.contains { $0.hasSuffix("now calls swift_beginAccess 1× (was 0: exclusivity check)") })
        // A class's stored property read inside the loop (across an opaque call) is checked there.
        let property = try compare("loop", "loopWithReference", CompiledVariants.sum)
        #expect(
            property.changes.contains {
                if case .runtimeCalls(.beginAccess, 0, _, let inLoops) = $0 { inLoops > 0 } else { false }
            })
        #expect(property.lines.contains { $0.contains("exclusivity check, 1 in a loop)") })
    }

    @Test func aCallTheBaseNeverMadeIsNotALostInlining() throws {
        // Both binaries have reportProgress; only the new drain calls it (#50's wrong line).
        let progress = CompiledCodeComparison.Function(
            symbol: CompiledVariants.reportProgress, name: "reportProgress(_:)")
        let added = try compare("progressUnused", "progressCalled", CompiledVariants.drain)
        #expect(added.changes.contains(.newCall(progress, count: 1)))
        #expect(added.lines.contains("drain(_:): now calls reportProgress(_:) 1× (was 0)"))
        #expect(!added.changes.contains(.noLongerInlined(progress)))
        // The base that inlined it (and its print) is larger: that one is a lost inlining.
        let lost = try compare("progressInlined", "progressCalled", CompiledVariants.drain)
        #expect(lost.changes.contains(.noLongerInlined(progress)))
        #expect(lost.lines.contains("drain(_:): no longer inlines reportProgress(_:): calls it now"))
    }

    @Test func identicalCodeSaysNoCodeChange() throws {
        let comparison = try compare("loop", "loop", CompiledVariants.sum)
        #expect(comparison.changes == [.noCodeChange])
        #expect(comparison.summary == "sum(_:_:): no code change found: layout, data or the machine")
    }

    @Test func missingSymbolsAreSaid() throws {
        let noReplacement = try compare("generic", "loop", CompiledVariants.totalSpecialized)
        #expect(noReplacement.changes == [.missing(symbol: CompiledVariants.totalSpecialized, side: .new)])
        #expect(
            noReplacement.lines == [
                "specialized total<A>(_:): the new binary lacks \(CompiledVariants.totalSpecialized)"
            ])
        let notInBase = try compare("loop", "generic", CompiledVariants.run)
        #expect(notInBase.changes == [.missing(symbol: CompiledVariants.run, side: .base)])
    }

    @Test func unreadableBinaryIsAFailureNamingIt() throws {
        let error = #expect(throws: CompiledCodeComparer.Failure.self) {
            try CompiledCodeComparer(basePath: "/nonexistent/base", newPath: "/nonexistent/new")
        }
        #expect(error?.kind == .unreadableBinary)
        #expect(error?.message == "/nonexistent/base: no such file")
    }
}

@Suite struct SymbolNameTests {
    @Test func runtimeCallsByName() {
        #expect(RuntimeCall(callee: "swift_retain") == .retain)
        #expect(RuntimeCall(callee: "swift_retain_n") == .retain)
        #expect(RuntimeCall(callee: "swift_unknownObjectRelease") == .release)
        #expect(RuntimeCall(callee: "swift_bridgeObjectRetain") == .retain)
        #expect(RuntimeCall(callee: "swift_beginAccess") == .beginAccess)
        #expect(RuntimeCall(callee: "swift_retainCount") == nil)
        #expect(RuntimeCall(callee: "malloc") == nil)
        #expect(FunctionCode.plainName("swift_retain@plt") == "swift_retain")
    }

    @Test func nameStems() {
        #expect(CompiledCodeComparer.nameStem("$s1m5totalySdSayxGAA5ShapeRzlF") == "$s1m5total")
        #expect(CompiledCodeComparer.nameStem("$s1m6SquareV4areaSdyF") == "$s1m6SquareV4area")
        #expect(CompiledCodeComparer.nameStem("$s1mX") == nil)
        #expect(CompiledCodeComparer.nameStem("main") == nil)
    }

    /// One ranking finds a replacement on either side: the longest shared mangled prefix, then a
    /// specialization (what ran), then the shorter name.
    @Test func closestFunctionOfTheSameName() {
        let existential = "$s1m5totalySdSayAA5Shape_pGF"
        let generic = "$s1m5totalySdSayxGAA5ShapeRzlF"
        let specialized = generic + "AA6SquareV_Tg5"
        let isSpecialization = { (symbol: String) in symbol.hasSuffix("Tg5") }
        func closest(_ symbol: String, _ candidates: [String]) -> String? {
            CompiledCodeComparer.closest(to: symbol, among: candidates, isSpecialization: isSpecialization)
        }
        #expect(closest(existential, [generic, specialized]) == specialized)
        #expect(closest(existential, [specialized, generic]) == specialized)
        #expect(closest(specialized, [existential, "$s1m5totalySiSayAA5Shape_pGF"]) == existential)
        #expect(closest(generic, [generic + "Tf4n_n", generic + "x"]) == generic + "x")
        #expect(closest(generic, ["$s1m5totalyS2bF", "$s1m5totalySdSbF"]) == "$s1m5totalySdSbF")
        #expect(closest(generic, []) == nil)
    }

    /// Without swift-demangle, the mangling's suffixes decide.
    @Test func fallbackTraits() {
        var names = SwiftSymbolNames(demanglePath: nil)
        #expect(names.traits(of: "$s1m5totalySdSayxGAA5ShapeRzlFAA6SquareV_Tg5").isSpecialization)
        #expect(names.traits(of: "$s1m5totalySdSayxGAA5ShapeRzlF").isUnspecializedGeneric)
        #expect(!names.traits(of: "$s1m3runySdSiF").isUnspecializedGeneric)
        #expect(!names.traits(of: "swift_retain").isUnspecializedGeneric)
    }
}
