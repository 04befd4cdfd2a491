import Testing
import JSON
import LayoutEngine
import LayoutModel
@testable import LayoutAPI

/// Which engine path a patch takes (the API tests prove the results; these prove the fast paths
/// are the ones taken).
@Suite("Patch shapes and engine fast paths")
struct PatchPlanTests {
    static func plan(_ patch: String, on document: String = Docs.stack) throws -> PatchPlan {
        let canonical = DocumentParser.canonicalize(try JSONParser.parse(document))
        let current = try DocumentParser.parse(canonical).get()
        let p = try JSONParser.parse(patch)
        let next = try DocumentParser.parse(canonical.applyingMergePatch(p)).get()
        return PatchPlan.classify(p, canonical: canonical, current: current, next: next)
    }

    static func kind(_ plan: PatchPlan) -> String {
        switch plan {
        case .resizeRoot(let id, let w, let h): return "resize \(id) \(w.map { "\($0)" } ?? "-") \(h.map { "\($0)" } ?? "-")"
        case .replaceEntries(let e): return "entries " + e.map(\.id).joined(separator: ",")
        case .general: return "general"
        }
    }

    @Test("a root width/height change is an edit suggestion", arguments: [
        (#"{"views": {"root": {"frame": {"width": 320}}}}"#, "resize root 320.0 -"),
        (#"{"views": {"root": {"frame": {"height": 10, "width": 5}}}}"#, "resize root 5.0 10.0"),
    ])
    func resize(_ patch: String, _ want: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == want)
    }

    @Test("changes inside existing entries replace only those entries", arguments: [
        (#"{"constraints": {"h-height": {"constant": 50}}}"#, "entries h-height"),
        (#"{"constraints": {"a-top": {"constant": 1}, "h-sides": "header.horizontal == root.horizontal"}}"#, "entries a-top,h-sides"),
        (#"{"constraints": {"b-wide": {"active": false}}}"#, "entries b-wide"),
    ])
    func entries(_ patch: String, _ want: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == want)
    }

    @Test("everything else goes through apply", arguments: [
        #"{"views": {"header": {"frame": {"width": 320}}}}"#,              // not a root
        #"{"views": {"root": {"frame": {"x": 3}}}}"#,                       // not a size
        #"{"views": {"root": {"frame": {"width": 320}}, "a": {"hidden": true}}}"#,
        #"{"views": {"root": {"hidden": true}}}"#,
        #"{"constraints": {"new": "a.width == 3"}}"#,                      // a new entry
        #"{"constraints": {"h-top": null, "h-top2": "header.top == root.top"}}"#,
        #"{"constraints": {"h-height": {"activation": {"when": "flag(x)"}}}}"#,  // a when rule
        #"{"constraints": {"h-height": {"constant": 50}}, "flags": {"x": true}}"#,
        #"{"delegate": {"b-wide": true}}"#,
        "{}",
    ])
    func general(_ patch: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == "general")
    }

    @Test("a size patch on a root whose size is solved falls back to apply and still lands on the patched document")
    func fittingRoot() throws {
        let doc = #"{"views": {"root": {"frame": {"height": 10}}, "a": {"parent": "root", "intrinsicSize": {"width": 5}}}}"#
        let plan = try Self.plan(#"{"views": {"root": {"frame": {"width": 30}}}}"#, on: doc)
        // Classified as a resize; the engine declines (no width constraint to edit) and apply runs.
        var system = LayoutSystem(document: try DocumentParser.parse(try JSONParser.parse(doc)).get())
        let next = try DocumentParser.parse(try JSONParser.parse(
            #"{"views": {"root": {"frame": {"height": 10, "width": 30}}, "a": {"parent": "root", "intrinsicSize": {"width": 5}}}}"#)).get()
        let stats = system.edit(to: next, plan: plan)
        #expect(system.document == next)
        #expect(stats.added >= 1)
        #expect(system.frames().first { $0.id == "root" }?.frame.width == 30)
    }
}
