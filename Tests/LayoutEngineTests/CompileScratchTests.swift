import Testing
import JSON
import LayoutModel
@testable import LayoutEngine
@testable import Cassowary

/// A document's compilation reuses one `EntryScratch` from entry to entry (its term buffer and the
/// views it looked up last); an edit compiles one entry with a fresh one. Both must give the same
/// constraints: nothing an entry leaves in the scratch may change the next one.
@Suite("Compilation: entries compiled in one pass equal entries compiled alone")
struct CompileScratchTests {
    /// Recompiles every entry of `system`'s document alone and compares with the document's pass.
    static func expectEntriesAlone(_ system: LayoutSystem, _ label: String) {
        let document = system.document
        let vars = document.views.map { system.variables[$0.id] }
        for (e, entry) in document.constraints.enumerated() {
            var alone: [CompiledConstraint] = []
            LayoutSystem.compileEntry(entry, direction: document.direction, views: document.views,
                                      index: system.viewIndex, variables: vars, activation: system.activation,
                                      into: &alone)
            let inPass = Array(system.compiled[Int(system.entryStart[e]) ..< Int(system.entryStart[e + 1])])
            #expect(alone.count == inPass.count, "\(label): entry \(entry.id)")
            for (a, b) in zip(alone, inPass) {
                #expect(a.key == b.key && a.terms == b.terms && a.constant == b.constant && a.relation == b.relation
                        && a.priority == b.priority && a.active == b.active, "\(label): \(a.ownerID)")
            }
        }
    }

    @Test("every conformance document (activation rules, stacks, text, right to left among them)")
    func conformanceDocuments() throws {
        let cases = EngineFixtures.conformanceCases()
        #expect(cases.count > 10)
        for name in cases {
            let document = try EngineFixtures.document(try EngineFixtures.conformance(name)["document"]!)
            Self.expectEntriesAlone(LayoutSystem(document: document), name)
        }
    }

    @Test("entries that alternate among three views, so the views looked up last keep changing, right to left")
    func alternatingViews() throws {
        var constraints: [String] = []
        let names = ["a", "b", "c"]
        for k in 0..<12 {
            let x = names[k % 3], y = names[(k * 2 + 1) % 3], z = names[(k + 2) % 3]
            constraints.append("\"k\(k)\": \"\(x).leading == \(y).trailing + \(k) + 0 * \(z).width\"")
        }
        let text = """
        {"direction": "rtl",
         "views": {"r": {"frame": {"width": 300, "height": 100}}, "a": {"parent": "r"}, "b": {"parent": "r"},
                   "c": {"parent": "r", "margins": {"left": 3, "right": 5}}},
         "constraints": {\(constraints.joined(separator: ", ")), "m": "c.leadingMargin == a.centerX"}}
        """
        Self.expectEntriesAlone(LayoutSystem(document: try EngineFixtures.document(text)), "alternating")
    }
}
