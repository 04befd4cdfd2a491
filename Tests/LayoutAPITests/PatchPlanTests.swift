import TestSupport
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
            // The reference: the whole patched document, validated and solved from scratch, after
            // the patch's "no silent mistakes" rules (issue 30), which both paths apply first.
            let (canonical, system) = try Self.setup(document)
            let meant: JSONValue
            switch PatchPlan.guarded(try JSONParser.parse(patch), canonical: CanonicalDocument(canonical), system: system) {
            case .failure(let refusal):
                #expect(fast.status == 422, "\(patch)")
                #expect(T.json(fast)["errors"]?.arrayValue?.count == refusal.problems.count, "\(patch)")
                continue
            case .success(let value): meant = value
            }
            let patched = canonical.applyingMergePatch(meant)
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

/// Long random sequences of member patches (valid and invalid) on one session: after every step
/// the session equals a fresh session of the document as patched so far.
@Suite("Member patches in sequence")
struct MemberPatchSequenceTests {
    static let viewChanges: [(String, String)] = [
        ("root", #"{"frame": {"width": W}}"#), ("root", #"{"frame": {"height": W}}"#),
        ("a", #"{"hidden": B}"#), ("b", #"{"hidden": B}"#), ("header", #"{"hidden": B}"#),
        ("a", #"{"alpha": 0}"#), ("a", #"{"alpha": 1}"#), ("b", #"{"intrinsicSize": {"width": W}}"#),
        ("badge", #"{"frame": {"width": W}}"#), ("a", #"{"alpha": 3}"#), ("root", #"{"frame": {"width": -1}}"#),
    ]
    static let entryChanges: [(String, String)] = [
        ("h-top", #"{"constant": C}"#), ("a-top", #"{"constant": C}"#), ("b-top", #"{"constant": C}"#),
        ("a-left", #"{"constant": C}"#), ("h-height", #"{"constant": C}"#), ("h-height", #"{"priority": 250}"#),
        ("h-height", #"{"priority": 1000}"#), ("b-wide", #"{"active": B}"#), ("b-wide", #"{"activation": "always"}"#),
        ("b-wide", #"{"activation": "delegate"}"#), ("a-collapse", #"{"activation": "bothVisible"}"#),
        ("a-collapse", #"{"activation": "firstInvisible"}"#), ("h-sides", #""header.horizontal == root.horizontal + C""#),
        ("h-sides", #""header.leading == root.leading + C""#), ("a-top", #"{"second": "nowhere.bottom"}"#),
        ("a-left", #"{"constant": "x"}"#), ("h-top", #"{"first": "header.top", "second": "root.top", "constant": C, "priority": 0}"#),
        ("b-left", #"{"first": "b.width", "second": null, "constant": C}"#),
    ]

    @Test("200 random member patches: every step equals a fresh solve of the patched document")
    func sequence() throws {
        var rng = SeededGenerator(seed: 5)
        let client = Client()
        #expect(client.put("seq", Docs.stack).status == 201)
        var document = DocumentParser.canonicalize(try JSONParser.parse(Docs.stack))
        for step in 0..<200 {
            var views: [(String, String)] = [], entries: [(String, String)] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                func fill(_ s: String) -> String {
                    s.replacingOccurrences(of: "W", with: String(Int.random(in: 0...500, using: &rng)))
                        .replacingOccurrences(of: "C", with: String(Int.random(in: -40...40, using: &rng)))
                        .replacingOccurrences(of: "B", with: Bool.random(using: &rng) ? "true" : "false")
                }
                if Bool.random(using: &rng) {
                    let (id, c) = Self.viewChanges.randomElement(using: &rng)!
                    views.append((id, fill(c)))
                } else {
                    let (id, c) = Self.entryChanges.randomElement(using: &rng)!
                    entries.append((id, fill(c)))
                }
            }
            func group(_ members: [(String, String)]) -> String {
                var seen = Set<String>()
                return "{" + members.filter { seen.insert($0.0).inserted }.map { "\"\($0.0)\": \($0.1)" }
                    .joined(separator: ", ") + "}"
            }
            var parts: [String] = []
            if !views.isEmpty { parts.append("\"views\": " + group(views)) }
            if !entries.isEmpty { parts.append("\"constraints\": " + group(entries)) }
            let patch = "{" + parts.joined(separator: ", ") + "}"
            let patched = document.applyingMergePatch(try JSONParser.parse(patch))
            let reference = client.put("ref", T.text(patched))
            let answer = client.patch("/v1/sessions/seq", patch)
            if reference.status >= 400 {
                #expect(answer.status == reference.status, "step \(step): \(patch)")
                #expect(T.json(answer)["errors"] == T.json(reference)["errors"], "step \(step): \(patch)")
                continue
            }
            #expect(answer.status == 200, "step \(step): \(patch)")
            document = DocumentParser.canonicalize(patched)
            let a = T.json(client.send("GET", "/v1/sessions/seq"))
            let b = T.json(client.send("GET", "/v1/sessions/ref"))
            #expect(a["document"] == b["document"], "step \(step): \(patch)")
            #expect(a["diagnostics"] == b["diagnostics"], "step \(step): \(patch)")
            if a["diagnostics"]?["ambiguous"]?.arrayValue?.isEmpty ?? true {
                #expect(a["frames"] == b["frames"], "step \(step): \(patch)")
            }
        }
    }
}
