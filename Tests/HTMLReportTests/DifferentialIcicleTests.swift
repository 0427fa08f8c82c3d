import Testing

@testable import HTMLReport

@Suite struct DifferentialIcicleTests {
    static let stacks: [(frames: [String], base: Double, new: Double)] = [
        (["main", "run", "Heap._bubbleDown"], 400, 700),
        (["main", "run", "Deque.append"], 300, 300),
        (["main", "run", "sort"], 300, 200),
        (["main", "setUp"], 100, 0),
    ]

    @Test func foldedStacksBecomeOneTreeWithBothSidesInclusiveCosts() {
        let tree = DifferentialTree(root: "all", stacks: Self.stacks)
        #expect(tree.base == 1100 && tree.new == 1200)
        let main = tree.children.first
        #expect(main?.name == "main" && main?.base == 1100 && main?.new == 1200)
        let run = main?.children.first { $0.name == "run" }
        #expect(run?.children.map(\.name) == ["Deque.append", "Heap._bubbleDown", "sort"])
        #expect(run?.children.map(\.new) == [300, 700, 200])
    }

    @Test func grownFramesAreRedShrunkBlueAndGoneFramesHaveNoBox() {
        let tree = DifferentialTree(root: "all", stacks: Self.stacks)
        let svg = DifferentialIcicle(title: "heap", tree: tree, format: { String(Int($0)) }).render().text
        // Heap._bubbleDown's own cost grew by 300 of 1100 (beyond saturation): full red.
        #expect(svg.contains("<title>Heap._bubbleDown — base 400, new 700 (own: 400 → 700)</title>"))
        #expect(svg.contains("fill=\"rgb(255,80,80)\""))
        // sort shrank by 100 of 1100: full blue; Deque.append is unchanged: white.
        #expect(svg.contains("fill=\"rgb(80,80,255)\""))
        #expect(svg.contains("fill=\"rgb(255,255,255)\""))
        #expect(!svg.contains("setUp"))
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
    }

    @Test func aRegressionWithProfilesShowsWhereItGrewAndWhy() {
        let html = HTMLReportRenderer.render(SyntheticReports.current(), baseline: SyntheticReports.baseline())
        #expect(html.contains("grew most (instructions per operation, new − base):"))
        #expect(html.contains("Witness.call() +30 instr/op (exclusive, +30.0 %; inclusive +50)"))
        #expect(
            html.contains("<li>compiled code: now calls swift_retain 1× (was 0: reference counting), in a loop</li>"))
        // Witness.call() under run(): its own cost grew by 30 of 155 instructions, so full red.
        #expect(
            html.contains("<title>Witness.call() — base 100 instr, new 130 instr (own: 100 instr → 130 instr)</title>"))
        #expect(html.contains("fill=\"rgb(255,80,80)\""))
    }

    @Test func anEmptyCandidateSaysSoInsteadOfDrawing() {
        let tree = DifferentialTree(root: "all", stacks: [(["main"], 10, 0)])
        let html = DifferentialIcicle(title: "t", tree: tree, format: { "\($0)" }).render().text
        #expect(html.contains("Nothing measured in the candidate"))
    }
}
