import Testing
import TestSupport
import JSON
import LayoutModel
@testable import LayoutEngine
@testable import Cassowary

/// The diagnostics an edited system keeps between edits (`ambiguous`, `inactive`) and its frames
/// always equal those of a fresh solve of the same document.
@Suite("Layout system: what edits keep")
struct LayoutSystemCacheTests {
    static func entry(_ system: LayoutSystem, _ id: String) -> ConstraintEntry {
        system.document.constraints[system.entryPosition(id)!]
    }

    static func withConstant(_ entry: ConstraintEntry, _ constant: Double) -> ConstraintEntry {
        var e = entry
        e.items[0].constant = constant
        return e
    }

    @Test("a constant change without a pivot can still make a view ambiguous (a degenerate row opens)")
    func degeneracyOpens() throws {
        let text = """
        {"views": {"r": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "r", "frame": {"x": 0, "y": 0, "height": 10}}},
         "constraints": {"min": "a.width >= 100", "max": "a.width <= 100"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        #expect(system.diagnostics.ambiguous.isEmpty)
        let max = Self.entry(system, "max")
        // The constant is stored with the sign of `lhs - rhs`: move the bound from 100 to 120.
        let wider = Self.withConstant(max, max.items[0].constant - 20)
        let widened = system.replaceEntry(wider)
        #expect(widened?.pivots == 0)
        system.refreshDiagnostics()
        #expect(system.ambiguous == ["a"])
        #expect(system.diagnostics.ambiguous == ["a"])
        #expect(system.diagnostics == LayoutSystem(document: system.document).diagnostics)
        let narrowed = system.replaceEntry(max)
        #expect(narrowed != nil)
        system.refreshDiagnostics()
        #expect(system.ambiguous.isEmpty)
    }

    @Test("after random constant changes, resizes and toggles, diagnostics and frames equal a fresh solve")
    func randomEdits() throws {
        let text = """
        {"views": {"r": {"frame": {"width": 400, "height": 300}},
                   "a": {"parent": "r", "intrinsicSize": {"width": 80, "height": 20}},
                   "b": {"parent": "r", "intrinsicSize": {"width": 60, "height": 20}},
                   "c": {"parent": "r"}},
         "constraints": {"a-l": {"first": "a.leading", "second": "r.leading", "constant": 10},
                         "a-t": {"first": "a.top", "second": "r.top", "constant": 10},
                         "b-l": {"first": "b.leading", "second": "a.trailing", "constant": 8, "relation": ">="},
                         "b-t": {"first": "b.top", "second": "a.top", "constant": 0},
                         "b-r": {"first": "b.trailing", "second": "r.trailing", "constant": -10, "relation": "<="},
                         "c-w": {"first": "c.width", "constant": 50, "relation": ">="},
                         "c-w2": {"first": "c.width", "constant": 50, "relation": "<="},
                         "c-pos": "c.top == b.bottom + 4",
                         "c-l": {"expr": "c.leading == r.leading", "activation": "firstInvisible"},
                         "c-x": {"expr": "c.leading == b.leading", "activation": "bothVisible", "priority": 750}}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        var rng = SeededGenerator(seed: 7)
        let ids = ["a-l", "a-t", "b-l", "b-t", "b-r", "c-w", "c-w2"]
        for step in 0..<300 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                let id = ids.randomElement(using: &rng)!
                let e = Self.entry(system, id)
                let c = Double(Int.random(in: -60...60, using: &rng))
                system.replace(views: [], entries: [Self.withConstant(e, c)])
            case 6..<8:
                var root = system.document.views[0]
                root.frame.width = Double(Int.random(in: 100...500, using: &rng))
                system.replace(views: [root], entries: [])
            default:
                var v = system.document.views[Int.random(in: 1...3, using: &rng)]
                v.hidden.toggle()
                system.replace(views: [v], entries: [])
            }
            let fresh = LayoutSystem(document: system.document)
            system.refreshDiagnostics()
            #expect(system.ambiguityIsCurrent, "step \(step)")
            #expect(system.ambiguous == fresh.diagnostics.ambiguous, "step \(step)")
            #expect(system.diagnostics == fresh.diagnostics, "step \(step)")
            let a = system.frames().map(\.frame), b = fresh.frames().map(\.frame)
            let close = zip(a, b).allSatisfy { p, q in
                abs(p.x - q.x) < 1e-6 && abs(p.y - q.y) < 1e-6 && abs(p.width - q.width) < 1e-6 && abs(p.height - q.height) < 1e-6
            }
            // Frames of ambiguous views may legitimately differ between two optimal solutions.
            #expect(close || !system.diagnostics.ambiguous.isEmpty, "step \(step)")
        }
    }
}

@Suite("Layout system: long-lived sessions")
struct LayoutSystemFootprintTests {
    @Test("switching constraints on and off thousands of times keeps the solver bounded and equal to a fresh solve")
    func togglesStayBounded() throws {
        let text = """
        {"views": {"r": {"frame": {"width": 400, "height": 300}},
                   "a": {"parent": "r", "intrinsicSize": {"width": 80, "height": 20}},
                   "b": {"parent": "r", "intrinsicSize": {"width": 60, "height": 20}}},
         "constraints": {"a-pos": "a.cornerTL == r.cornerTL + (10, 10)",
                         "b-top": "b.top == a.bottom + 8",
                         "b-next": {"expr": "b.leading == a.trailing + 8", "activation": "bothVisible"},
                         "b-home": {"expr": "b.leading == r.leading + 10", "activation": "firstInvisible", "priority": 750},
                         "b-a": {"expr": "b.leading == r.leading + 10", "activation": {"when": "hidden(a)"}, "priority": 500}}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        let live = system.solver.liveConstraints
        var maxSlots = 0
        for step in 0..<3000 {
            var a = system.document.views[1]
            a.hidden.toggle()
            system.replace(views: [a], entries: [])
            maxSlots = max(maxSlots, system.solver.statistics.constraintSlots)
            if step % 500 == 499 {
                let fresh = LayoutSystem(document: system.document)
                #expect(system.frames().map(\.frame) == fresh.frames().map(\.frame), "step \(step)")
                #expect(system.diagnostics == fresh.diagnostics, "step \(step)")
            }
        }
        #expect(maxSlots <= 2 * live + 256 + 4)
        #expect(system.solver.liveConstraints == LayoutSystem(document: system.document).solver.liveConstraints)
    }
}
