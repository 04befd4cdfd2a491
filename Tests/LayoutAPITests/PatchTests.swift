import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI

@Suite("PATCH: merge patches, incremental solving, atomicity")
struct PatchTests {
    /// A session on `Docs.stack`.
    func stackSession() -> Client {
        let c = Client()
        let r = c.put("s", Docs.stack)
        #expect(r.status == 201, "\(r.text)")
        return c
    }

    static let sequence: [(String, String)] = [
        ("constant edit", #"{"constraints": {"h-height": {"constant": 50}}}"#),
        ("root resize", #"{"views": {"root": {"frame": {"width": 320}}}}"#),
        ("root resize, both sides", #"{"views": {"root": {"frame": {"width": 360, "height": 500}}}}"#),
        ("two constant edits", #"{"constraints": {"a-top": {"constant": 12}, "b-left": {"constant": 30}}}"#),
        ("expression rewritten", #"{"constraints": {"h-sides": "header.horizontal == root.horizontal + 24"}}"#),
        ("priority change", #"{"constraints": {"badge-lead": {"priority": 1000}}}"#),
        ("hide a view", #"{"views": {"a": {"hidden": true}}}"#),
        ("show it again", #"{"views": {"a": {"hidden": null}}}"#),
        ("alpha zero", #"{"views": {"a": {"alpha": 0}}}"#),
        ("manual switch off", #"{"constraints": {"b-left": {"active": false}, "b-center": "b.centerX == root.centerX"}}"#),
        ("delegate flip on", #"{"delegate": {"b-wide": true}}"#),
        ("delegate flip off", #"{"delegate": {"b-wide": false}}"#),
        ("add a flag rule", #"{"constraints": {"badge-edit": {"expr": "badge.trailing == header.trailing - 8", "activation": {"when": "flag(editing)"}}, "badge-lead": {"priority": 500}}}"#),
        ("set the flag", #"{"flags": {"editing": true}}"#),
        ("root resize with a when rule", #"{"views": {"root": {"frame": {"width": 414}}}}"#),
        ("constant edit with a when rule", #"{"constraints": {"h-top": {"constant": 30}}}"#),
        ("clear the flag", #"{"flags": {"editing": false}}"#),
        ("add a view", #"{"views": {"c": {"parent": "root", "frame": {"x": 10, "y": 200, "width": 30, "height": 30}}}}"#),
        ("constrain the new view", #"{"views": {"c": {"frame": {"x": null}}}, "constraints": {"c-left": "c.leading == b.trailing + 4"}}"#),
        ("remove constraints", #"{"constraints": {"badge-edit": null, "b-center": null, "b-left": {"active": null}}}"#),
        ("remove a view and its constraints", #"{"views": {"a": null}, "constraints": {"a-top": null, "a-left": null, "a-collapse": null, "b-top": {"second": "header.bottom"}}}"#),
        ("remove the other new view", #"{"views": {"c": null}, "constraints": {"c-left": null}}"#),
        ("right to left", #"{"direction": "rtl"}"#),
        ("new constraint conflicting", #"{"constraints": {"h-height-2": "header.height == 60"}}"#),
        ("constant edit while broken", #"{"constraints": {"h-height": {"constant": 55}}}"#),
        ("conflict resolved", #"{"constraints": {"h-height-2": null}}"#),
        ("replace the whole constraints object by an array", #"{"constraints": ["header.top == root.top", "header.horizontal == root.horizontal", "header.height == 10", "badge.center == header.center", "b.top == header.bottom", "b.leading == root.leading", {"id": "b-wide", "first": "b.width", "constant": 200, "activation": "delegate"}]}"#),
    ]

    @Test("a sequence of patches gives, after every step, what a fresh solve of the patched document gives")
    func sequence() {
        let c = stackSession()
        var revision = 1
        var previous = T.frames(T.json(c.send("GET", "/v1/sessions/s/frames"))["frames"])
        for (step, patch) in Self.sequence {
            let r = c.patch("/v1/sessions/s", patch)
            #expect(r.status == 200, "\(step): \(r.text.prefix(400))")
            revision += 1
            let body = T.json(r)
            #expect(body["revision"]?.numberValue == Double(revision), "\(step)")
            #expect(r.header("ETag").etagRevision == revision, "\(step)")
            #expect(body.objectValue?.keys == ["revision", "frames", "diagnostics", "stats"], "\(step)")
            T.expectSameAsFresh(c, "s", step)
            // `frames` holds exactly the views whose frame changed.
            let now = T.frames(T.json(c.send("GET", "/v1/sessions/s/frames"))["frames"])
            let changed = Set(now.filter { previous[$0.key] != $0.value }.map(\.key))
            #expect(Set(T.frames(body["frames"]).keys) == changed, "\(step): changed frames")
            previous = now
        }
        // The session answers the last step's diagnostics: the array form has no conflicts.
        #expect(ConformanceJudge.brokenIDs(T.json(c.send("GET", "/v1/sessions/s"))["diagnostics"]).isEmpty)
    }

    @Test("stats: a constant edit changes one constant and adds and removes nothing")
    func constantEditStats() {
        let c = stackSession()
        let body = T.json(c.patch("/v1/sessions/s", #"{"constraints": {"h-height": {"constant": 50}}}"#))
        let stats = body["stats"]
        #expect(stats?["constantsChanged"]?.numberValue == 1)
        #expect(stats?["added"]?.numberValue == 0)
        #expect(stats?["removed"]?.numberValue == 0)
        #expect(stats?["editsSuggested"]?.numberValue == 0)
        #expect(stats?["pivots"]?.numberValue != nil)
        #expect(T.frames(body["frames"])["header"] == [16, 10, 368, 50])
        // The root and the badge (pinned to the header's leading edge) did not move.
        #expect(T.frames(body["frames"])["root"] == nil)
    }

    @Test("stats: a root resize is an edit suggestion")
    func rootResizeStats() {
        let c = stackSession()
        let body = T.json(c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 320}}}}"#))
        let stats = body["stats"]
        #expect(stats?["editsSuggested"]?.numberValue == 1)
        #expect(stats?["added"]?.numberValue == 0)
        #expect(stats?["removed"]?.numberValue == 0)
        #expect(stats?["constantsChanged"]?.numberValue == 0)
        #expect(T.frames(body["frames"])["root"] == [0, 0, 320, 300])
        #expect(T.frames(body["frames"])["header"] == [16, 10, 288, 44])
    }

    @Test("stats: hiding a view adds only the constraints whose activation flips")
    func visibilityStats() {
        let c = stackSession()
        let stats = T.json(c.patch("/v1/sessions/s", #"{"views": {"a": {"hidden": true}}}"#))["stats"]
        #expect(stats?["added"]?.numberValue == 1)  // a-collapse (firstInvisible)
        #expect(stats?["removed"]?.numberValue == 0)
    }

    @Test("frames=all answers every frame; the default answers only the changed ones")
    func framesAll() {
        let c = stackSession()
        let some = T.json(c.patch("/v1/sessions/s", #"{"constraints": {"b-left": {"constant": 20}}}"#))
        #expect(T.frames(some["frames"]).keys.sorted() == ["b"])
        let all = T.json(c.patch("/v1/sessions/s", #"{"constraints": {"b-left": {"constant": 24}}}"#, query: "frames=all"))
        #expect(T.frames(all["frames"]).keys.sorted() == ["a", "b", "badge", "header", "root"])
    }

    @Test("a patch that changes nothing keeps the revision and answers no frames")
    func noOp() {
        let c = stackSession()
        let before = c.send("GET", "/v1/sessions/s")
        for patch in ["{}", #"{"constraints": {"h-height": {"constant": 44}}}"#, #"{"flags": null}"#] {
            let r = c.patch("/v1/sessions/s", patch)
            #expect(r.status == 200)
            #expect(r.header("ETag").etagRevision == 1)
            let body = T.json(r)
            #expect(body["revision"]?.numberValue == 1)
            #expect(T.frames(body["frames"]).isEmpty)
            #expect(body["stats"]?["added"]?.numberValue == 0)
        }
        #expect(c.send("GET", "/v1/sessions/s").body == before.body)
        let all = T.json(c.patch("/v1/sessions/s", "{}", query: "frames=all"))
        #expect(T.frames(all["frames"]).count == 5)
    }

    @Test("PATCH accepts merge-patch+json and json (any case, with parameters); anything else is a 415")
    func mediaTypes() {
        let c = stackSession()
        for type in ["application/merge-patch+json", "application/json", "Application/JSON; charset=utf-8",
                     "application/merge-patch+json;charset=UTF-8"] {
            #expect(c.send("PATCH", "/v1/sessions/s", headers: [("content-type", type)], body: "{}").status == 200)
        }
        for type in ["text/plain", "application/json-patch+json", "application/x-www-form-urlencoded", ""] {
            let r = c.send("PATCH", "/v1/sessions/s", headers: [("Content-Type", type)], body: "{}")
            T.expectProblem(r, 415, type: "unsupported-media-type")
            #expect(r.header("Accept-Patch") == "application/merge-patch+json, application/json")
        }
        T.expectProblem(c.send("PATCH", "/v1/sessions/s", body: "{}"), 415)
    }

    @Test("a patch that makes the document invalid is a 422 pointing into the patched document, and changes nothing")
    func invalidPatch() {
        let c = stackSession()
        c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 380}}}}"#)
        let before = c.send("GET", "/v1/sessions/s")
        let beforeFrames = c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute")
        let r = c.patch("/v1/sessions/s", #"{"views": {"a": {"alpha": 3}}, "constraints": {"x": {"first": "a.width", "second": "bleu.width"}, "h-height": {"constant": 70}}}"#)
        T.expectProblem(r, 422, type: "invalid-document")
        let pointers = (T.json(r)["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue }
        #expect(pointers == ["/views/a/alpha", "/constraints/x/second"])
        for bad in [#"null"#, #"[]"#, #"{"views": null}"#, #"{"views": {"a": {"parent": "b"}, "b": {"parent": "a"}}}"#,
                    #"{"constraints": {"h-top": {"constant": 1e400}}}"#, #"{"unknown": 1}"#] {
            T.expectProblem(c.patch("/v1/sessions/s", bad), 422)
        }
        T.expectProblem(c.patch("/v1/sessions/s", #"{"views": "#), 400)
        let after = c.send("GET", "/v1/sessions/s")
        #expect(after.body == before.body)
        #expect(after.header("ETag") == before.header("ETag"))
        #expect(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute").body == beforeFrames.body)
        // The solver state is intact: the next edit still equals a fresh solve.
        #expect(c.patch("/v1/sessions/s", #"{"constraints": {"h-height": {"constant": 70}}}"#).status == 200)
        T.expectSameAsFresh(c, "s", "after a failed patch")
    }

    @Test("strict=true: a patch that breaks a required constraint is a 409 and leaves the session byte for byte")
    func strictPatch() {
        let c = stackSession()
        #expect(c.patch("/v1/sessions/s", #"{"constraints": {"h-min": {"first": "header.width", "relation": ">=", "constant": 200}}}"#).status == 200)
        let before = c.send("GET", "/v1/sessions/s")
        let beforeFrames = c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute")
        let conflicting = [
            #"{"constraints": {"h-fixed": "header.height == 60"}}"#,                        // a new entry
            #"{"views": {"root": {"frame": {"width": 200}}}}"#,                              // a root resize
            #"{"constraints": {"h-min": {"constant": 400}}}"#,                               // a constant edit
            #"{"constraints": {"h-height": {"first": "header.width", "constant": 100}}}"#,   // an entry rewritten
            #"{"views": {"header": {"frame": {"width": 10}}}, "flags": {"x": true}}"#,         // a view field
        ]
        for patch in conflicting {
            let r = c.patch("/v1/sessions/s", patch, query: "strict=true")
            T.expectProblem(r, 409, type: "required-conflict")
            #expect(T.json(r)["broken"]?.arrayValue?.isEmpty == false, "\(patch)")
            let after = c.send("GET", "/v1/sessions/s")
            #expect(after.body == before.body, "\(patch)")
            #expect(after.header("ETag") == before.header("ETag"))
            #expect(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute").body == beforeFrames.body)
        }
        // Rolled back for real: later edits equal a fresh solve of the old document plus the edit.
        #expect(c.patch("/v1/sessions/s", #"{"constraints": {"h-height": {"constant": 46}}}"#, query: "strict=true").status == 200)
        T.expectSameAsFresh(c, "s", "after strict rollbacks")
        #expect(c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 300}}}}"#).status == 200)
        T.expectSameAsFresh(c, "s", "resize after strict rollbacks")
        // Without strict the same conflict is applied and reported.
        let lenient = c.patch("/v1/sessions/s", #"{"constraints": {"h-fixed": "header.height == 60"}}"#)
        #expect(lenient.status == 200)
        #expect(ConformanceJudge.brokenIDs(T.json(lenient)["diagnostics"]) == ["h-fixed"])
        T.expectSameAsFresh(c, "s", "lenient conflict")
        // While something is broken, even a harmless strict patch is refused (the result has broken constraints).
        T.expectProblem(c.patch("/v1/sessions/s", #"{"constraints": {"h-top": {"constant": 11}}}"#, query: "strict"), 409)
        T.expectProblem(c.patch("/v1/sessions/s", "{}", query: "strict"), 409)
    }

    @Test("PATCH answers Server-Timing with parse and solve durations in milliseconds")
    func serverTiming() {
        let c = stackSession()
        let r = c.patch("/v1/sessions/s", #"{"constraints": {"h-height": {"constant": 50}}}"#)
        let timing = r.header("Server-Timing") ?? ""
        let parts = timing.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(parts.count == 2)
        #expect(parts.first?.hasPrefix("parse;dur=") == true)
        #expect(parts.last?.hasPrefix("solve;dur=") == true)
        for p in parts { #expect(Double(p.split(separator: "=").last ?? "") != nil, "\(p)") }
    }
}
