import TestSupport
import Testing
import JSON
import LayoutModel
@testable import LayoutAPI

/// Whatever way a PATCH goes through the pipeline (the byte lane's constant or sizes, a lane body
/// the lane cannot apply, a member splice, the whole document), its answer is the one the general
/// path gives: the same patch made to take the whole-document path, on a twin session. And the
/// session afterwards is a fresh solve of the patched document.
@Suite("One PATCH pipeline: every way equals the general path")
struct PatchPipelineTests {
    /// Patches on `Docs.stack`, by the way they go.
    static let stackPatches: [String] = [
        // The byte lane applies: a constant, a root's sizes (height written first), a non-root
        // view's given width, a number already stored (unchanged).
        #"{"constraints":{"h-top":{"constant":14}}}"#,
        #"{"constraints":{"b-wide":{"constant":150}}}"#,
        #"{"views":{"root":{"frame":{"width":360}}}}"#,
        #"{"views":{"root":{"frame":{"height":280,"width":380}}}}"#,
        #"{"views":{"badge":{"frame":{"width":24}}}}"#,
        #"{"constraints":{"h-top":{"constant":10}}}"#,
        // The byte lane reads them but cannot apply them: an expression entry, an entry that does
        // not exist, a number out of range, sizes a view's frame does not give (height first: the
        // order the merge keeps), a negative size, a view that does not exist.
        #"{"constraints":{"h-sides":{"constant":3}}}"#,
        #"{"constraints":{"badge-lead":{"constant":3}}}"#,
        #"{"constraints":{"nobody":{"constant":1}}}"#,
        #"{"constraints":{"h-top":{"constant":1e400}}}"#,
        #"{"views":{"a":{"frame":{"height":5,"width":3}}}}"#,
        #"{"views":{"header":{"frame":{"width":-5}}}}"#,
        #"{"views":{"nobody":{"frame":{"width":20}}}}"#,
        #"{"views":{"root":{"frame":{"width":1e400}}}}"#,
        // Member splices, valid and not.
        #"{"views":{"a":{"hidden":true}}}"#,
        #"{"constraints":{"a-top":{"constant":2},"b-left":{"constant":30}}}"#,
        #"{"constraints":{"h-height":{"constant":50,"priority":250}}}"#,
        #"{"views":{"a":{"hidden":true}},"constraints":{"a-top":{"constant":30}}}"#,
        #"{"constraints":{"h-height":{"constant":"tall"}}}"#,
        // The whole document.
        #"{"delegate":{"b-wide":true}}"#,
        #"{"views":{"c":{"parent":"root"}},"constraints":{"c-w":"c.width == 10","c-p":"c.cornerTL == root.cornerTL"}}"#,
        #"{"constraints":{"h-top":null,"h-top2":"header.top == root.top + 4"}}"#,
        #"{"constraints":{"conflict":"header.height == 60"}}"#,
    ]

    /// Patches on `NumberPatchBodyTests.rulesDocument`: activation rules, a `when` rule, a cap that
    /// conflicts (or not).
    static let rulePatches: [String] = [
        #"{"constraints":{"vis":{"constant":5}}}"#,
        #"{"constraints":{"inv":{"constant":7}}}"#,
        #"{"constraints":{"wide":{"constant":250}}}"#,
        #"{"constraints":{"cap":{"constant":100}}}"#,
        #"{"constraints":{"cap":{"constant":400}}}"#,
        #"{"constraints":{"soft":{"constant":12}}}"#,
        #"{"views":{"root":{"frame":{"width":640}}}}"#,
        #"{"views":{"root":{"frame":{"width":420,"height":380}}}}"#,
        #"{"views":{"b":{"hidden":false}}}"#,
        #"{"views":{"c":{"frame":{"width":30}}}}"#,
    ]

    static let queries = ["", "frames=all", "coordinates=absolute", "strict=true"]

    /// `patch` with a top-level member the documents do not have, removed: the same patched
    /// document, but `PatchPlan.classify` sends it through the whole document (and the byte lane
    /// does not read it).
    static func general(_ patch: String) -> String {
        "{\"zz-general\":null," + patch.dropFirst()
    }

    /// The answer's text before its `stats` (the general path's counts are its own).
    static func withoutStats(_ text: String) -> Substring {
        text.range(of: #","stats":"#).map { text[..<$0.lowerBound] } ?? text[...]
    }

    static func expectSameAsGeneral(_ document: String, _ patch: String, _ query: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let general = Self.general(patch)
        let (canonical, system) = try PatchPlanTests.setup(document)
        var context: MemberContext?
        guard case .general = PatchPlan.classify(try JSONParser.parse(general), canonical: CanonicalDocument(canonical),
                                                 system: system, context: &context, limits: .default) else {
            Issue.record("\(general) is not classified general", sourceLocation: sourceLocation)
            return
        }
        #expect(NumberPatch.body(Array(general.utf8)) == nil, sourceLocation: sourceLocation)
        let c = Client()
        #expect(c.put("pipeline", document).status == 201, sourceLocation: sourceLocation)
        #expect(c.put("general", document).status == 201, sourceLocation: sourceLocation)
        // One request id for both: a problem body names it.
        let a = c.patch("/v1/sessions/pipeline", patch, query: query, headers: [("X-Request-Id", "same")])
        let b = c.patch("/v1/sessions/general", general, query: query, headers: [("X-Request-Id", "same")])
        let label = "\(patch) ?\(query)"
        #expect(a.status == b.status, "\(label): \(a.text.prefix(300))", sourceLocation: sourceLocation)
        // Two sessions: the same revision, each with its own generation.
        #expect(a.header("ETag").etagRevision == b.header("ETag").etagRevision, "\(label)", sourceLocation: sourceLocation)
        #expect(Self.withoutStats(a.text) == Self.withoutStats(b.text), "\(label)", sourceLocation: sourceLocation)
        let ga = c.send("GET", "/v1/sessions/pipeline"), gb = c.send("GET", "/v1/sessions/general")
        #expect(ga.text.replacingOccurrences(of: #""id":"pipeline""#, with: #""id":"general""#) == gb.text,
                "\(label): the sessions differ afterwards", sourceLocation: sourceLocation)
        guard a.status == 200 else { return }
        // Both equal a fresh solve of the patched document, whose canonical text they hold.
        T.expectSameAsFresh(c, "pipeline", label, sourceLocation: sourceLocation)
        let patched = canonical.applyingMergePatch(try JSONParser.parse(patch))
        #expect(c.put("fresh", T.text(patched)).status == 201, "\(label)", sourceLocation: sourceLocation)
        #expect(T.json(ga)["document"] == T.json(c.send("GET", "/v1/sessions/fresh"))["document"], "\(label)",
                sourceLocation: sourceLocation)
    }

    @Test("patches on a form: the pipeline answers what the general path answers", arguments: stackPatches)
    func stack(_ patch: String) throws {
        for query in Self.queries { try Self.expectSameAsGeneral(Docs.stack, patch, query) }
    }

    /// A stack view (docs/document.md 2.6) whose arranged views have implied parents, and an
    /// ordinary constraint that reads one's visibility.
    static let stackViewDocument = """
    {"views": {"root": {"frame": {"width": 300, "height": 100}},
      "toolbar": {"parent": "root", "stack": {"arranged": ["h0", "a", "b", "c"], "spacing": 8, "distribution": "equalSpacing"}},
      "h0": {"intrinsicSize": {"width": 15, "height": 20}, "hidden": true},
      "a": {"intrinsicSize": {"width": 50, "height": 20}}, "b": {"intrinsicSize": {"width": 60, "height": 30}},
      "c": {"intrinsicSize": {"width": 40, "height": 20}}, "d": {"parent": "root"}},
     "constraints": {"pin": {"first": "toolbar.edges", "second": "root.edges", "constant": 10},
                     "d-pos": "d.cornerTL == root.cornerTL", "d-h": "d.height == 4",
                     "d-b": {"expr": "d.width == b.width", "activation": "bothVisible"}}}
    """

    /// Hiding and showing arranged views (a member splice that recompiles the stack), an arranged
    /// view's other fields (its parent is implied), and edits of the stack itself (the whole document).
    static let stackViewPatches: [String] = [
        #"{"views":{"b":{"hidden":true}}}"#,
        #"{"views":{"h0":{"hidden":false}}}"#,
        #"{"views":{"a":{"hidden":true},"c":{"hidden":true}}}"#,
        #"{"views":{"c":{"intrinsicSize":{"width":70,"height":20}}}}"#,
        #"{"views":{"toolbar":{"stack":{"spacing":12,"distribution":"fillEqually"}}}}"#,
        #"{"views":{"toolbar":{"stack":{"distribution":"fillEvenly"}}}}"#,
        #"{"views":{"toolbar":{"stack":{"arranged":["a","b","zz"]}}}}"#,
    ]

    @Test("patches on a stack view: the pipeline answers what the general path answers", arguments: stackViewPatches)
    func stackView(_ patch: String) throws {
        for query in Self.queries { try Self.expectSameAsGeneral(Self.stackViewDocument, patch, query) }
    }

    @Test("patches under activation rules, with and without a conflict", arguments: rulePatches)
    func rules(_ patch: String) throws {
        for cap in [300, 150] {
            for query in Self.queries {
                try Self.expectSameAsGeneral(NumberPatchBodyTests.rulesDocument(cap: cap), patch, query)
            }
        }
    }

    @Test("a lane body the lane cannot apply is classified from the values it read, in written order")
    func laneTree() throws {
        let body = try #require(NumberPatch.body(Array(#"{"views":{"a":{"frame":{"height":5,"width":3}}}}"#.utf8)))
        #expect(T.text(body.tree) == #"{"views":{"a":{"frame":{"height":5,"width":3}}}}"#)
    }
}
