import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

/// Text that wraps (docs/document.md 2.7). The conformance cases 32 to 38 hold the hand-computed
/// frames at several widths (ConformanceTests solves them); these are the rest: their oracles
/// (the same layout with the settled heights as plain intrinsic sizes), the settle loop's edits
/// and bound, PATCHes that resize, and the readable form of the generated constraints.
@Suite("Text that wraps through the engine")
struct TextLayoutTests {
    static func textCases() -> [String] {
        EngineFixtures.conformanceCases().filter { $0.contains("-text-") }
    }

    @Test("each text case's oracle (the settled heights as intrinsic sizes) solves to the same frames",
          arguments: textCases())
    func oracle(_ name: String) throws {
        let file = try EngineFixtures.conformance(name)
        let oracle = try #require(file["oracleDocument"], "\(name) has no oracle")
        let text = LayoutSystem(document: try EngineFixtures.document(file["document"]!))
        let plain = LayoutSystem(document: try EngineFixtures.document(oracle))
        #expect(StackLayoutTests.close(text.frames(), plain.frames()), "\(name): \(text.frames()) vs \(plain.frames())")
        #expect(text.diagnostics.unsettled.isEmpty)
    }

    /// A page of `n` wrapped labels one below the other, pinned to both sides of a root `width` wide.
    static func page(_ n: Int, width: Double) -> String {
        var views = [#""root": {"frame": {"width": \#(width), "height": 2000}}"#]
        var constraints: [String] = []
        for i in 0..<n {
            let words = (0..<(6 + i % 5)).map { String(20 + ($0 * 7 + i * 3) % 50) }.joined(separator: ", ")
            views.append(#""l\#(i)": {"parent": "root", "text": {"wordWidths": [\#(words)], "spaceWidth": 4, "lineHeight": 18}}"#)
            constraints.append(#""s\#(i)": "l\#(i).horizontal == root.horizontal""#)
            constraints.append(i == 0 ? #""t0": "l0.top == root.top""# : #""t\#(i)": "l\#(i).top == l\#(i - 1).bottom + 6""#)
        }
        return #"{"views": {\#(views.joined(separator: ", "))}, "constraints": {\#(constraints.joined(separator: ", "))}}"#
    }

    @Test("resizing the root of a page of wrapped text in a PATCH equals a fresh solve at the new width",
          arguments: [320.0, 180, 700, 95])
    func resizeIsDifferential(_ width: Double) throws {
        var system = LayoutSystem(document: try EngineFixtures.document(Self.page(12, width: 400)))
        var root = system.document.views[0]
        root.frame.width = width
        let stats = system.apply(.members(views: [root], entries: []))
        let fresh = LayoutSystem(document: try EngineFixtures.document(Self.page(12, width: width)))
        #expect(StackLayoutTests.close(system.frames(), fresh.frames()), "\(width): \(system.frames()) vs \(fresh.frames())")
        #expect(system.diagnostics == fresh.diagnostics)
        #expect(!stats.rebuilt)
        // The same sizes through the cheapest lane (`LayoutEdit.sizes`, a PATCH of the width alone).
        var lane = LayoutSystem(document: try EngineFixtures.document(Self.page(12, width: 400)))
        lane.apply(.sizes(view: 0, width: width, height: nil))
        #expect(StackLayoutTests.close(lane.frames(), fresh.frames()))
    }

    @Test("a resize that moves no label's line breaks changes no height; one that does changes only those")
    func onlyMovedHeightsChange() throws {
        // One label: 30 + 5 + 40 + 5 + 50 = 130 on one line.
        let text = """
        {"views": {"root": {"frame": {"width": 200, "height": 100}},
          "label": {"parent": "root", "text": {"wordWidths": [30, 40, 50], "spaceWidth": 5, "lineHeight": 20}},
          "fixed": {"parent": "root", "text": {"wordWidths": [10], "spaceWidth": 5, "lineHeight": 20}}},
         "constraints": {"sides": "label.horizontal == root.horizontal", "top": "label.top == root.top",
                         "f": "fixed.cornerTL == root.cornerTL"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        #expect(EngineFixtures.frame(system, "label")?.height == 20)
        // 200 → 150: still one line: the label is measured again, nothing is set.
        let same = system.apply(.sizes(view: 0, width: 150, height: nil))
        #expect(same.constantsChanged == 0 && same.editsSuggested == 1, "\(same)")
        // 150 → 100: two lines: its two height constraints change in place, nothing else.
        let wrapped = system.apply(.sizes(view: 0, width: 100, height: nil))
        #expect(wrapped.constantsChanged == 2 && wrapped.added == 0 && wrapped.removed == 0, "\(wrapped)")
        #expect(EngineFixtures.frame(system, "label")?.height == 40)
        #expect(EngineFixtures.frame(system, "fixed")?.height == 20)
    }

    @Test("a label whose width follows its own height never settles: the loop stops after 8 re-solves and names it")
    func unsettledIsDiagnosed() throws {
        // width == 2 x height + 60, the height required to be the measured one: one line (20)
        // makes it 100 wide, too narrow for 50 + 5 + 50 = 105, so two lines (40), which make it
        // 140 wide, where one line fits: 20 again, and so on.
        let text = """
        {"views": {"root": {"frame": {"width": 300, "height": 300}},
          "label": {"parent": "root", "hugging": {"vertical": 1000}, "compressionResistance": {"vertical": 1000},
                    "text": {"wordWidths": [50, 50], "spaceWidth": 5, "lineHeight": 20}},
          "still": {"parent": "root", "text": {"wordWidths": [50], "spaceWidth": 5, "lineHeight": 20}}},
         "constraints": {"pos": "label.cornerTL == root.cornerTL", "w": "label.width == 2 * label.height + 60",
                         "s": "still.cornerTL == root.cornerTL"}}
        """
        let system = LayoutSystem(document: try EngineFixtures.document(text))
        #expect(system.diagnostics.unsettled == ["label"])
        #expect(system.diagnostics.broken.isEmpty)
        // 8 re-solves from one line, alternating 40 and 20: the last one applied one line again.
        #expect(EngineFixtures.frame(system, "label") == Frame(x: 0, y: 0, width: 100, height: 20))
    }

    @Test("a width that depends on a height settles in a few rounds, within the bound")
    func chainedSettles() throws {
        // b is as wide as a is tall x 5: a wraps at 100 (2 lines, 40: required, so b's width
        // cannot pull it), so b is 200 wide, where its 185 fit on one line. Three rounds: a's
        // height, b's at the width a's first height gave (100: two lines), b's at 200.
        let text = """
        {"views": {"root": {"frame": {"width": 300, "height": 300}},
          "a": {"parent": "root", "hugging": {"vertical": 1000}, "compressionResistance": {"vertical": 1000},
                "text": {"wordWidths": [60, 60], "spaceWidth": 5, "lineHeight": 20}},
          "b": {"parent": "root", "text": {"wordWidths": [90, 90], "spaceWidth": 5, "lineHeight": 10}}},
         "constraints": {"a1": "a.cornerTL == root.cornerTL", "a2": "a.width == 100",
                         "b1": "b.left == root.left", "b2": "b.top == a.bottom", "b3": "b.width == 5 * a.height"}}
        """
        let system = LayoutSystem(document: try EngineFixtures.document(text))
        #expect(EngineFixtures.frame(system, "a") == Frame(x: 0, y: 0, width: 100, height: 40))
        #expect(EngineFixtures.frame(system, "b") == Frame(x: 0, y: 40, width: 200, height: 10))
        #expect(system.diagnostics.unsettled.isEmpty)
    }

    @Test("generated text constraints have readable ids and a readable text for explain")
    func readable() throws {
        let file = try EngineFixtures.conformance("33-text-wrapped.json")
        let system = LayoutSystem(document: try EngineFixtures.document(file["document"]!))
        let ids = system.compiled.map(\.ownerID).filter { $0.hasPrefix("label/") }
        #expect(ids == ["label/text-width-hugging", "label/text-width-compression",
                        "label/text-height-hugging", "label/text-height-compression"])
        #expect(system.textConstraintDescription("label/text-height-hugging") == "label.height <= 40 (text, 2 lines)")
        #expect(system.textConstraintDescription("label/text-width-compression") == "label.width >= 130 (text on one line)")
        #expect(system.textConstraintDescription("below/text-height-hugging") == nil)
        #expect(system.textConstraintDescription("top") == nil)
    }

    @Test("a required text height that conflicts is broken under its readable id, as in a fresh solve after a PATCH")
    func brokenTextHeight() throws {
        let text = """
        {"views": {"root": {"frame": {"width": WIDTH, "height": 300}},
          "label": {"parent": "root", "compressionResistance": {"vertical": 1000},
                    "text": {"wordWidths": [60, 60], "spaceWidth": 5, "lineHeight": 20}}},
         "constraints": {"sides": "label.horizontal == root.horizontal", "top": "label.top == root.top",
                         "cap": "label.height <= 30"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text.replacingOccurrences(of: "WIDTH", with: "200")))
        #expect(system.diagnostics.broken.isEmpty)
        system.apply(.sizes(view: 0, width: 100, height: nil))
        let fresh = LayoutSystem(document: try EngineFixtures.document(text.replacingOccurrences(of: "WIDTH", with: "100")))
        #expect(fresh.diagnostics.broken.map(\.id) == ["cap"])
        #expect(system.diagnostics.broken.map(\.id) == fresh.diagnostics.broken.map(\.id))
        #expect(StackLayoutTests.close(system.frames(), fresh.frames()))
    }

    @Test("editing a label's words in a PATCH measures it again, as a fresh solve of the new text")
    func editedText() throws {
        let file = try EngineFixtures.conformance("33-text-wrapped.json")
        var system = LayoutSystem(document: try EngineFixtures.document(file["document"]!))
        var label = system.document.views.first { $0.id == "label" }!
        label.text = .words(WrappedText(wordWidths: [30, 30, 30, 30, 30], spaceWidth: 5, lineHeight: 20))
        system.apply(.members(views: [label], entries: []))
        // 30 + 5 + 30 + 5 + 30 = 100 on line 1; 30 + 5 + 30 on line 2: 40 high, below at 58.
        #expect(EngineFixtures.frame(system, "label")?.height == 40)
        var document = system.document
        document.views[1] = label
        #expect(StackLayoutTests.close(system.frames(), LayoutSystem(document: document).frames()))
    }
}
