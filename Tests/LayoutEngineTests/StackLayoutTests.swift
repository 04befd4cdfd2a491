import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

/// Stack views compiled to constraints (docs/document.md, "Stack views"). The conformance cases
/// 24 to 31 hold the hand-computed frames of every distribution and alignment, hidden views and
/// nesting (ConformanceTests solves them); these are the rest: their oracles, ids, right to left,
/// baseline-relative spacing, and PATCHes that hide and show arranged views.
@Suite("Stack views through the engine")
struct StackLayoutTests {
    static func close(_ a: [(id: String, frame: Frame)], _ b: [(id: String, frame: Frame)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.id == y.id && abs(x.frame.x - y.frame.x) < 1e-6 && abs(x.frame.y - y.frame.y) < 1e-6
                && abs(x.frame.width - y.frame.width) < 1e-6 && abs(x.frame.height - y.frame.height) < 1e-6
        }
    }

    static func stackCases() -> [String] {
        EngineFixtures.conformanceCases().filter { $0.contains("-stack-") }
    }

    @Test("each stack case's oracle (the same layout in ordinary constraints) solves to the same frames",
          arguments: stackCases())
    func oracle(_ name: String) throws {
        let file = try EngineFixtures.conformance(name)
        guard let oracle = file["oracleDocument"] else { return }
        let stack = LayoutSystem(document: try EngineFixtures.document(file["document"]!))
        let plain = LayoutSystem(document: try EngineFixtures.document(oracle))
        let byID = Dictionary(uniqueKeysWithValues: plain.frames().map { ($0.id, $0.frame) })
        for (id, frame) in stack.frames() {
            let want = try #require(byID[id], "\(name): the oracle has no view \(id)")
            #expect(Self.close([(id, frame)], [(id, want)]), "\(name): \(id) is \(frame), the oracle says \(want)")
        }
        #expect(plain.diagnostics.ambiguous.isEmpty, "\(name): the oracle is not determined")
    }

    @Test("a stack constraint that breaks is named stack/rule, and names the constraints it conflicts with")
    func readableIDs() throws {
        // a and b come before the stack: their widths are processed first, so fill-equally breaks.
        let doc = try EngineFixtures.document("""
        {"views": {"root": {"frame": {"width": 300, "height": 100}},
                   "a": {"frame": {"width": 10}}, "b": {"frame": {"width": 20}},
                   "toolbar": {"parent": "root", "stack": {"arranged": ["a", "b"], "distribution": "fillEqually"}}},
         "constraints": {"pin": "toolbar.cornerTL == root.cornerTL", "wide": "toolbar.width == 500"}}
        """)
        let system = LayoutSystem(document: doc)
        let broken = system.diagnostics.broken
        #expect(broken.map(\.id) == ["toolbar/fill-equally-1", "wide"])
        #expect(Set(broken[0].conflictsWith) == ["a.frame.width", "b.frame.width"])
        #expect(broken[1].conflictsWith.contains("toolbar/canvas-end"))
        #expect(broken[1].conflictsWith.contains("toolbar/spacing-1"))
    }

    @Test("right to left: the first arranged view is at the trailing (left) end")
    func rightToLeft() throws {
        let doc = try EngineFixtures.document("""
        {"direction": "rtl", "views": {"root": {"frame": {"width": 120, "height": 40}},
          "s": {"parent": "root", "stack": {"arranged": ["a", "b"], "spacing": 20}},
          "a": {"intrinsicSize": {"width": 30, "height": 10}}, "b": {"intrinsicSize": {"width": 70, "height": 10}}},
         "constraints": {"pin": "s.edges == root.edges"}}
        """)
        let system = LayoutSystem(document: doc)
        // 30 + 20 + 70 = 120: a's leading edge is the root's right edge.
        #expect(EngineFixtures.frame(system, "a") == Frame(x: 90, y: 0, width: 30, height: 40))
        #expect(EngineFixtures.frame(system, "b") == Frame(x: 0, y: 0, width: 70, height: 40))
    }

    @Test("baseline-relative spacing runs from a view's last baseline to the next one's first baseline")
    func baselineRelative() throws {
        let doc = try EngineFixtures.document("""
        {"views": {"root": {"frame": {"width": 100, "height": 100}},
          "s": {"parent": "root", "stack": {"axis": "vertical", "arranged": ["u", "v"], "spacing": 30, "baselineRelative": true}},
          "u": {"intrinsicSize": {"width": 50, "height": 20}, "baseline": {"first": 15, "last": 5}},
          "v": {"intrinsicSize": {"width": 50, "height": 20}, "baseline": {"first": 15, "last": 5}}},
         "constraints": {"pin": "s.cornerTL == root.cornerTL"}}
        """)
        let system = LayoutSystem(document: doc)
        // u's last baseline at 20 - 5 = 15; v's first baseline 30 below: 45, so v.y = 45 - 15 = 30.
        #expect(EngineFixtures.frame(system, "v") == Frame(x: 0, y: 30, width: 50, height: 20))
        #expect(EngineFixtures.frame(system, "s") == Frame(x: 0, y: 0, width: 50, height: 50))
    }

    static let toolbar = """
    {"views": {"root": {"frame": {"width": 300, "height": 100}},
      "toolbar": {"parent": "root", "stack": {"arranged": ["a", "b", "c"], "spacing": 8, "distribution": "DIST"}},
      "a": {"intrinsicSize": {"width": 50, "height": 20}, "hugging": {"horizontal": 200}},
      "b": {"intrinsicSize": {"width": 60, "height": 30}},
      "c": {"intrinsicSize": {"width": 40, "height": 20}}, "d": {"parent": "root"}},
     "constraints": {"pin": {"first": "toolbar.edges", "second": "root.edges", "constant": 10},
                     "d-pos": "d.cornerTL == root.cornerTL",
                     "d-size": {"expr": "d.size == (5, 5)", "activation": "bothVisible"},
                     "d-b": {"expr": "d.width == b.width ~ 100", "activation": "bothVisible"}}}
    """

    /// The system after hiding (or showing) `id` by a PATCH of its `hidden`, and the stats.
    static func patchHidden(_ system: inout LayoutSystem, _ id: String, _ hidden: Bool) -> EditStats {
        var view = system.document.views.first { $0.id == id }!
        view.hidden = hidden
        return system.apply(.members(views: [view], entries: []))
    }

    @Test("hiding an arranged view in a PATCH equals a fresh solve, and touches only the constraints that change",
          arguments: ["fill", "fillEqually", "fillProportionally", "equalSpacing", "equalCentering"])
    func hidingIsDifferential(_ distribution: String) throws {
        let text = Self.toolbar.replacingOccurrences(of: "DIST", with: distribution)
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        let installed = system.solverIDs.compactMap { $0 }.count
        let stats = Self.patchHidden(&system, "b", true)
        let hidden = try EngineFixtures.document(text.replacingOccurrences(
            of: #""b": {"intrinsicSize""#, with: #""b": {"hidden": true, "intrinsicSize""#))
        let fresh = LayoutSystem(document: hidden)
        #expect(Self.close(system.frames(), fresh.frames()), "\(distribution): \(system.frames()) vs \(fresh.frames())")
        #expect(system.diagnostics == fresh.diagnostics)
        #expect(!stats.rebuilt)
        // Only the stack's slots and the entries that read b's visibility: far fewer than all.
        #expect(stats.added + stats.removed + stats.constantsChanged <= 12, "\(distribution): \(stats)")
        #expect(stats.added + stats.removed + stats.constantsChanged < installed / 2, "\(distribution): \(stats)")
        let shown = Self.patchHidden(&system, "b", false)
        #expect(!shown.rebuilt)
        #expect(Self.close(system.frames(), LayoutSystem(document: try EngineFixtures.document(text)).frames()))
    }

    @Test("hiding the middle view of a fill stack switches its hiding slot on and halves its two spacings in place")
    func hidingFillExactDelta() throws {
        var system = LayoutSystem(document: try EngineFixtures.document(
            Self.toolbar.replacingOccurrences(of: "DIST", with: "fill")))
        let stats = Self.patchHidden(&system, "b", true)
        // toolbar/hiding-1 added; toolbar/spacing-1 and spacing-2 from 8 to 4; the bothVisible entry
        // naming b (d-b) removed; d-size names only d.
        #expect(stats.added == 1 && stats.constantsChanged == 2 && stats.removed == 1, "\(stats)")
        #expect(EngineFixtures.frame(system, "b")?.width == 0)
        #expect(abs((EngineFixtures.frame(system, "c")?.x ?? 0) - (280 - 40)) < 1e-9)
    }

    @Test("a member PATCH of an arranged view whose parent is implied keeps the view in its stack")
    func impliedParentSurvivesMemberEdit() throws {
        let text = Self.toolbar.replacingOccurrences(of: "DIST", with: "fill")
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        var c = system.document.views.first { $0.id == "c" }!
        c.intrinsicWidth = 70
        system.apply(.members(views: [c], entries: []))
        let fresh = LayoutSystem(document: try EngineFixtures.document(
            text.replacingOccurrences(of: #""width": 40"#, with: #""width": 70"#)))
        #expect(Self.close(system.frames(), fresh.frames()))
        #expect(abs((EngineFixtures.frame(system, "c")?.x ?? 0) - (280 - 70)) < 1e-9)
    }
}
