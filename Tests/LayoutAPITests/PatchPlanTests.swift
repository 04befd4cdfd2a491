import Testing
import JSON
import LayoutEngine
import LayoutModel
@testable import LayoutAPI

/// Which path a patch takes, and that the member-by-member path lands exactly where validating and
/// applying the whole patched document lands (same canonical JSON, document, frames, diagnostics;
/// for invalid patches the same problems, in the same order).
@Suite("Patch shapes and the member-by-member path")
struct PatchPlanTests {
    static func setup(_ document: String) throws -> (canonical: JSONValue, system: LayoutSystem) {
        let canonical = DocumentParser.canonicalize(try JSONParser.parse(document))
        return (canonical, LayoutSystem(document: try DocumentParser.parse(canonical).get()))
    }

    static func plan(_ patch: String, on document: String = Docs.stack) throws -> PatchPlan {
        let (canonical, system) = try setup(document)
        var context: MemberContext?
        return PatchPlan.classify(try JSONParser.parse(patch), canonical: CanonicalDocument(canonical), system: system,
                                  context: &context, limits: .default)
    }

    static func kind(_ plan: PatchPlan) -> String {
        switch plan {
        case .members(let e):
            return "members " + (e.views.map(\.value.id) + e.entries.map(\.value.id)).joined(separator: ",")
        case .invalid(let problems): return "invalid " + problems.map(\.pointer).joined(separator: ",")
        case .general: return "general"
        }
    }

    @Test("changes inside existing views and entries are validated member by member", arguments: [
        (#"{"views": {"root": {"frame": {"width": 320}}}}"#, "members root"),
        (#"{"views": {"root": {"frame": {"height": 10, "width": 5}}, "a": {"hidden": true}}}"#, "members root,a"),
        (#"{"constraints": {"h-height": {"constant": 50}}}"#, "members h-height"),
        (#"{"constraints": {"a-top": {"constant": 1}, "h-sides": "header.horizontal == root.horizontal"}}"#,
         "members a-top,h-sides"),
        (#"{"constraints": {"b-wide": {"active": false}}}"#, "members b-wide"),
        (#"{"constraints": {"h-height": {"activation": {"when": "flag(x)"}}}}"#, "members h-height"),
        (#"{"constraints": {"h-top": {"id": "h-top"}}}"#, "members "),   // merges to what it was
        ("{}", "members "),
    ])
    func members(_ patch: String, _ want: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == want)
    }

    @Test("invalid members point into the patched canonical document, in document order", arguments: [
        (#"{"constraints": {"h-height": {"constant": "tall"}}}"#, "invalid /constraints/h-height/constant"),
        (#"{"constraints": {"b-top": {"second": "bleu.bottom"}, "h-top": {"priority": 0}}}"#,
         "invalid /constraints/h-top/priority,/constraints/b-top/second"),
        (#"{"views": {"a": {"hidden": false}}, "constraints": {"h-top": {"id": "other"}}}"#,
         "invalid /constraints/h-top/id"),
    ])
    func invalid(_ patch: String, _ want: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == want)
    }

    @Test("adding, removing, re-parenting and top-level fields go through the whole document", arguments: [
        #"{"views": {"root": {"frame": {"width": 320}}, "new": {"parent": "root"}}}"#,
        #"{"views": {"badge": {"parent": "root"}}}"#,
        #"{"views": {"badge": {"kind": "guide"}}}"#,
        #"{"views": {"badge": null}}"#,
        #"{"views": {"root": {"frame": {"width": null}}}}"#,                // a given size becomes solved
        #"{"views": {"a": {"alpha": 2}}}"#,                                 // an invalid view
        #"{"constraints": {"new": "a.width == 3"}}"#,
        #"{"constraints": {"h-top": null}}"#,
        #"{"constraints": {"h-height": {"constant": 50}}, "flags": {"x": true}}"#,
        #"{"delegate": {"b-wide": true}}"#,
        #"{"constraints": []}"#,
        "[1]",
    ])
    func general(_ patch: String) throws {
        #expect(Self.kind(try Self.plan(patch)) == "general")
    }

    /// Patches of every member shape, valid and not, applied both ways.
    static let differential: [String] = [
        #"{"views": {"root": {"frame": {"width": 320}}}}"#,
        #"{"views": {"root": {"frame": {"width": 320, "height": 120}}}}"#,
        #"{"views": {"root": {"frame": {"x": 3}}}}"#,
        #"{"views": {"root": {"frame": {"height": null}}}}"#,
        #"{"views": {"root": {"frame": {"width": null}}}}"#,
        #"{"views": {"root": {"frame": {"width": 600}}}}"#,
        #"{"views": {"a": {"hidden": true}}}"#,
        #"{"views": {"a": {"hidden": true}, "b": {"intrinsicSize": {"width": 90}}}}"#,
        #"{"views": {"badge": {"frame": {"width": 40}}, "root": {"frame": {"width": 200}}}}"#,
        #"{"views": {"a": {"margins": {"top": 3}, "hugging": {"horizontal": 999}}}}"#,
        #"{"views": {"a": {"alpha": 0}}}"#,
        #"{"views": {"a": {"alpha": 0.5}, "header": {"hidden": true}}}"#,
        #"{"views": {"header": {"hidden": true}, "root": {"frame": {"width": 300}}}}"#,
        #"{"views": {"a": {"hidden": true}}, "constraints": {"a-collapse": {"constant": 2}}}"#,
        #"{"views": {"a": {"alpha": -1, "hidden": 3}}}"#,
        #"{"views": {"root": {"frame": {"width": -5}}}}"#,
        #"{"constraints": {"h-height": {"constant": 50}}}"#,
        #"{"constraints": {"h-height": {"constant": 50, "priority": 250}}}"#,
        #"{"constraints": {"h-top": {"constant": 12}, "b-top": {"constant": 0}, "a-left": {"constant": -4}}}"#,
        #"{"constraints": {"b-wide": {"active": false}}}"#,
        #"{"constraints": {"b-wide": {"activation": "always"}}}"#,
        #"{"constraints": {"a-collapse": {"activation": {"when": "hidden(a)"}}}}"#,
        #"{"constraints": {"h-sides": "header.horizontal == root.horizontal + 40"}}"#,
        #"{"constraints": {"h-height": "header.size == (300, 44)"}}"#,             // 1 item → 2
        #"{"constraints": {"h-sides": "header.leading == root.leading + 3", "a-top": {"constant": 2}}}"#,  // 2 items → 1
        #"{"constraints": {"badge-lead": {"expr": "badge.leading == header.leading + 2"}}}"#,
        #"{"constraints": {"h-height": {"first": "header.height", "constant": 44, "relation": ">="}}}"#,
        #"{"constraints": {"a-left": {"second": "root.top"}}}"#,
        #"{"constraints": {"h-height": {"constant": 1e9}}}"#,
        #"{"constraints": {"h-height": {"constant": null}}}"#,
        #"{"constraints": {"h-top": {"id": "h-top", "constant": 11}}}"#,
        #"{"constraints": {"h-top": {"id": "zzz"}, "b-top": {"unknown": 1}}}"#,
        #"{"constraints": {"h-top": "header.top == root.top + 2 ~ 2000"}}"#,
        #"{"views": {"a": {"hidden": true}}, "constraints": {"a-top": {"constant": 30}}}"#,
        #"{"constraints": {"conflict": "a.width == 10"}, "views": {"a": {"hidden": false}}}"#,
    ]

    /// A `when` rule that compares a root's given width: valid only while the width is given.
    static let whenRoot = """
    {"views": {"root": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "root", "intrinsicSize": {"width": 50, "height": 30}}},
     "constraints": {"h-top": "a.top == root.top + 10", "a-left": {"first": "a.leading", "second": "root.leading", "constant": 16},
                     "wide": {"expr": "a.width == 200", "activation": {"when": "root.width > 500"}}}}
    """

    @Test("the member path and the whole-document path agree", arguments: differential)
    func agree(_ patch: String) throws {
        for document in [Docs.stack, Docs.conflicting, Self.whenRoot] {
            let client = Client()
            #expect(client.put("fast", document).status == 201)
            let fast = client.patch("/v1/sessions/fast", patch)
            // The reference: the whole patched document, validated and solved from scratch.
            let (canonical, _) = try Self.setup(document)
            let patched = canonical.applyingMergePatch(try JSONParser.parse(patch))
            let reference = client.put("ref", T.text(patched))
            if reference.status >= 400 {
                #expect(fast.status == reference.status, "\(patch)")
                #expect(T.json(fast)["errors"] == T.json(reference)["errors"], "\(patch)")
                continue
            }
            #expect(fast.status == 200, "\(patch)")
            let a = T.json(client.send("GET", "/v1/sessions/fast"))
            let b = T.json(client.send("GET", "/v1/sessions/ref"))
            #expect(a["document"] == b["document"], "\(patch)")
            #expect(a["frames"] == b["frames"], "\(patch)")
            #expect(a["diagnostics"] == b["diagnostics"], "\(patch)")
        }
    }
}
