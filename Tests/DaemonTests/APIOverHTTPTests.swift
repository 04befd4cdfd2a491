import TestSupport
import Foundation
import JSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The layout API of docs/http.md, end to end: the built `layoutd` binary on an ephemeral port,
/// spoken to over a raw socket. LayoutAPITests cover the API's logic in-process; these check that
/// the daemon serves it unchanged over the wire (status lines, headers, bodies, keep-alive,
/// configuration flags, shutdown).
@Suite("API over HTTP")
struct APIOverHTTPTests {
    // MARK: every route and status code

    @Test("a session's life on one keep-alive connection: 200, 201, 304, 204 and 404 on every route")
    func sessionLifecycle() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()

        let health = try c.get("/healthz")
        #expect(health.status == 200)
        #expect(health.header("Content-Type") == "application/json")
        #expect(health.text == #"{"status":"ok","sessions":0}"#)

        let solved = try c.post("/v1/solve", Documents.card)
        #expect(solved.status == 200)
        #expect(solved.header("Content-Type") == "application/json")
        #expect(solved.text == """
            {"frames":{"root":{"x":0,"y":0,"width":375,"height":667},"card":{"x":16,"y":40,"width":343,"height":200},\
            "title":{"x":12,"y":12,"width":120,"height":21}},"diagnostics":{"broken":[],"ambiguous":[],"inactive":[]}}
            """)
        #expect(solved.header("Server-Timing")?.range(
            of: #"^parse;dur=\d+\.\d{3}, solve;dur=\d+\.\d{3}$"#, options: .regularExpression) != nil)

        // POST /v1/sessions: the server picks a 128-bit id.
        let created = try c.post("/v1/sessions", Documents.card)
        #expect(created.status == 201)
        #expect(created.header("ETag").etagRevision == 1)
        let id = try #require(try created.json()["id"]?.stringValue)
        #expect(id.range(of: "^[0-9a-f]{32}$", options: .regularExpression) != nil)
        #expect(created.header("Location") == "/v1/sessions/\(id)")
        #expect(try created.json()["revision"]?.numberValue == 1)
        #expect(try created.json()["frames"] == solved.json()["frames"])

        // PUT creates (201), an identical PUT changes nothing (200, same revision), another replaces.
        let put = try c.put("/v1/sessions/demo", Documents.card)
        #expect(put.status == 201)
        #expect(put.header("Location") == "/v1/sessions/demo")
        let same = try c.put("/v1/sessions/demo", Documents.card)
        #expect(same.status == 200)
        #expect(same.header("ETag").etagRevision == 1)
        let replaced = try c.put("/v1/sessions/demo", Documents.conflict)
        #expect(replaced.status == 200)
        #expect(replaced.header("ETag").etagRevision == 2)
        #expect(ConformanceJudge.brokenIDs(try replaced.json()["diagnostics"]) == ["w2"])
        #expect(try c.put("/v1/sessions/demo", Documents.card).header("ETag").etagRevision == 3)

        let got = try c.get("/v1/sessions/demo")
        #expect(got.status == 200)
        #expect(got.header("ETag").etagRevision == 3)
        let body = try got.json()
        #expect(body["id"]?.stringValue == "demo")
        #expect(body["revision"]?.numberValue == 3)
        #expect(body["document"]?["constraints"]?["card-top"]?.stringValue == "card.top == root.top + 40")
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 2)

        // Conditional GET and HEAD.
        let notModified = try c.get("/v1/sessions/demo", headers: [("If-None-Match", "\"3\"")])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.header("ETag").etagRevision == 3)
        let head = try c.request("HEAD", "/v1/sessions/demo")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == String(got.body.count))

        let frames = try c.get("/v1/sessions/demo/frames")
        #expect(frames.status == 200)
        #expect(frames.header("ETag").etagRevision == 3)
        #expect(try frames.json()["frames"] == solved.json()["frames"])
        #expect(try frames.json()["document"] == nil)
        let absolute = try c.get("/v1/sessions/demo/frames?coordinates=absolute")
        #expect(Judge.frames(try absolute.json()["frames"])["title"] == [28, 52, 120, 21])

        let patched = try c.patch("/v1/sessions/demo", #"{"views": {"root": {"frame": {"width": 414}}}}"#)
        #expect(patched.status == 200)
        #expect(patched.header("ETag").etagRevision == 4)
        #expect(patched.text == """
            {"revision":4,"frames":{"root":{"x":0,"y":0,"width":414,"height":667},"card":{"x":16,"y":40,"width":382,"height":200}},\
            "diagnostics":{"broken":[],"ambiguous":[],"inactive":[]},\
            "stats":{"added":0,"removed":0,"constantsChanged":0,"editsSuggested":1,"pivots":0,"rebuilt":false}}
            """)
        let all = try c.request("PATCH", "/v1/sessions/demo?frames=all",
                                headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(all.status == 200)
        #expect(Set(Judge.frames(try all.json()["frames"]).keys) == ["root", "card", "title"])
        #expect(all.header("ETag").etagRevision == 4)

        // DELETE: 204 without a body, then every route of the session is a 404.
        let deleted = try c.request("DELETE", "/v1/sessions/demo")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        for (method, target) in [("GET", "/v1/sessions/demo"), ("GET", "/v1/sessions/demo/frames"),
                                 ("DELETE", "/v1/sessions/demo")] {
            let gone = try c.request(method, target)
            #expect(gone.status == 404, "\(method) \(target)")
            #expect(gone.header("Content-Type") == "application/problem+json")
            #expect(gone.problemType == "/problems/session-not-found")
        }
        let goneByPatch = try c.patch("/v1/sessions/demo", "{}")
        #expect(goneByPatch.status == 404)
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 1)
        #expect(try c.request("DELETE", "/v1/sessions/\(id)").status == 204)
    }

    @Test("client errors: 400, 404, 405, 409, 413, 415 and 422 as problem+json, the connection kept open")
    func clientErrors() throws {
        let daemon = try Daemon(["--max-body-bytes", "4096"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)

        func problem(_ response: RawHTTPResponse, _ status: Int, _ type: String,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
            #expect(response.status == status, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
            #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
            #expect(response.header("Connection")?.lowercased() != "close", sourceLocation: sourceLocation)
            let body = try response.json()
            #expect(body["type"]?.stringValue == type, sourceLocation: sourceLocation)
            #expect(body["status"]?.numberValue == Double(status), sourceLocation: sourceLocation)
            #expect(body["errors"]?.arrayValue != nil, sourceLocation: sourceLocation)
            return body
        }

        // 400: not JSON (line and column), an unknown query value, an invalid session id.
        let truncated = try problem(try c.post("/v1/solve", "{\"views\": {\n  \"root\": "), 400, "/problems/invalid-json")
        #expect(truncated["line"]?.numberValue == 2)
        #expect(truncated["column"]?.numberValue != nil)
        _ = try problem(try c.post("/v1/solve?coordinates=sideways", Documents.card), 400, "/problems/invalid-query")
        _ = try problem(try c.put("/v1/sessions/has.dot", Documents.card), 400, "/problems/invalid-session-id")

        // 404: no route (trailing slash included), no session.
        let noRoute = try problem(try c.get("/v1/nowhere"), 404, "/problems/not-found")
        #expect(noRoute["detail"]?.stringValue == "no route for GET /v1/nowhere")
        _ = try problem(try c.get("/v1/sessions/s/"), 404, "/problems/not-found")
        _ = try problem(try c.get("/v1/sessions/nobody"), 404, "/problems/session-not-found")

        // 405 with Allow; OPTIONS answers 204 with the same Allow.
        let wrongMethod = try problem(try c.request("DELETE", "/v1/solve"), 405, "/problems/method-not-allowed")
        #expect(wrongMethod["detail"]?.stringValue?.contains("DELETE") == true)
        #expect(try c.request("GET", "/v1/solve").header("Allow") == "POST, OPTIONS")
        #expect(try c.request("POST", "/v1/sessions/s/frames", body: Array("{}".utf8)).header("Allow") == "GET, HEAD, OPTIONS")
        let options = try c.request("OPTIONS", "/v1/sessions/s")
        #expect(options.status == 204)
        #expect(options.header("Allow") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")

        // 409: strict and a broken required constraint (solve, create and PATCH).
        let strict = try problem(try c.post("/v1/solve?strict=true", Documents.conflict), 409, "/problems/required-conflict")
        #expect(ConformanceJudge.brokenIDs(strict) == ["w2"])
        #expect(strict["errors"]?.arrayValue?.first?["pointer"]?.stringValue == "/constraints/w2")
        _ = try problem(try c.post("/v1/sessions?strict", Documents.conflict), 409, "/problems/required-conflict")
        _ = try problem(try c.patch("/v1/sessions/s?strict=true", #"{"constraints": {"narrow": "card.width == 10"}}"#),
                        409, "/problems/required-conflict")
        // Without strict the same document is a 200 that reports the conflict.
        #expect(ConformanceJudge.brokenIDs(try c.post("/v1/solve", Documents.conflict).json()["diagnostics"]) == ["w2"])

        // 413: the API's own answer for a body over the limit (keep-alive kept).
        let tooLarge = try problem(try c.request("POST", "/v1/solve", body: [UInt8](repeating: 0x20, count: 5000)),
                                   413, "/problems/body-too-large")
        #expect(tooLarge["detail"]?.stringValue?.contains("4096") == true)

        // 415: PATCH without a JSON media type.
        let wrongType = try c.request("PATCH", "/v1/sessions/s", headers: [("Content-Type", "text/plain")],
                                      body: Array("{}".utf8))
        _ = try problem(wrongType, 415, "/problems/unsupported-media-type")
        #expect(wrongType.header("Accept-Patch") == "application/merge-patch+json, application/json")

        // 422: every problem listed with a pointer.
        let invalid = try problem(try c.post("/v1/solve", """
            {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
             "constraints": {"c1": "a.left == bleu.left", "c2": {"first": "a.width", "relation": "=~"}}}
            """), 422, "/problems/invalid-document")
        let pointers = (invalid["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue }
        #expect(pointers.count >= 2)
        #expect(pointers.contains { $0.hasPrefix("/constraints/c1") })
        #expect(pointers.contains { $0.hasPrefix("/constraints/c2") })
        let badPatch = try problem(try c.patch("/v1/sessions/s", #"{"constraints": {"x": "card.left == nobody.left"}}"#),
                                   422, "/problems/invalid-document")
        #expect(badPatch["detail"]?.stringValue?.contains("patched document") == true)

        // Nothing above changed the session.
        #expect(try c.get("/v1/sessions/s").header("ETag").etagRevision == 1)
        #expect(try c.get("/healthz").status == 200)
    }

    @Test("If-Match: a stale revision is a 412 naming the current one; a matching one goes through")
    func staleIfMatch() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 210}}}"#,
                            headers: [("If-Match", "\"1\"")]).status == 200)

        let stale = try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 220}}}"#,
                                headers: [("If-Match", "\"1\"")])
        #expect(stale.status == 412)
        #expect(stale.header("Content-Type") == "application/problem+json")
        #expect(stale.header("ETag").etagRevision == 2)
        let body = try stale.json()
        #expect(body["type"]?.stringValue == "/problems/precondition-failed")
        #expect(body["revision"]?.numberValue == 2)
        #expect(body["detail"]?.stringValue == "If-Match does not match the current revision 2")

        #expect(try c.put("/v1/sessions/s", Documents.conflict, headers: [("If-Match", "\"1\"")]).status == 412)
        #expect(try c.request("DELETE", "/v1/sessions/s", headers: [("If-Match", "\"7\"")]).status == 412)
        #expect(try c.put("/v1/sessions/s", Documents.card, headers: [("If-None-Match", "*")]).status == 412)
        #expect(try c.put("/v1/sessions/new", Documents.card, headers: [("If-Match", "*")]).status == 412)
        #expect(try c.get("/v1/sessions/s").header("ETag").etagRevision == 2)

        let fresh = try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 220}}}"#,
                                headers: [("If-Match", "\"2\"")])
        #expect(fresh.status == 200)
        #expect(fresh.header("ETag").etagRevision == 3)
        #expect(try c.request("DELETE", "/v1/sessions/s", headers: [("If-Match", "\"3\"")]).status == 204)
    }

    @Test("a failed PATCH (400, 409, 412, 415, 422) leaves the session unchanged: same GET body and ETag")
    func failedPatchChangesNothing() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 250}}}"#).status == 200)
        let before = try c.get("/v1/sessions/s")
        let framesBefore = try c.get("/v1/sessions/s/frames?coordinates=absolute")
        #expect(before.header("ETag").etagRevision == 2)

        let failures: [(String, Int, RawHTTPResponse)] = [
            ("truncated JSON", 400, try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 1"#)),
            ("duplicate keys", 400, try c.patch("/v1/sessions/s", #"{"flags": {}, "flags": {}}"#)),
            ("strict conflict", 409, try c.patch("/v1/sessions/s?strict=true",
                                                 #"{"constraints": {"card-height": {"constant": 100}, "h2": "card.height == 300"}}"#)),
            ("stale If-Match", 412, try c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 300}}}}"#,
                                                headers: [("If-Match", "\"1\"")])),
            ("media type", 415, try c.request("PATCH", "/v1/sessions/s", headers: [("Content-Type", "text/json")],
                                              body: Array(#"{"views": {"root": {"frame": {"width": 300}}}}"#.utf8))),
            ("no media type", 415, try c.request("PATCH", "/v1/sessions/s",
                                                 body: Array(#"{"views": {"root": {"frame": {"width": 300}}}}"#.utf8))),
            ("unknown view", 422, try c.patch("/v1/sessions/s",
                                              #"{"views": {"root": {"frame": {"width": 300}}}, "constraints": {"x": "bleu.top == card.top"}}"#)),
            ("parent cycle", 422, try c.patch("/v1/sessions/s", #"{"views": {"root": {"parent": "title"}}}"#)),
            ("not an object", 422, try c.patch("/v1/sessions/s", #"{"views": 3}"#)),
        ]
        for (name, status, response) in failures {
            #expect(response.status == status, "\(name): \(response.text.prefix(300))")
            let after = try c.get("/v1/sessions/s")
            #expect(after.body == before.body, "\(name) changed the session")
            #expect(after.header("ETag") == before.header("ETag"), "\(name) changed the ETag")
            #expect(try c.get("/v1/sessions/s/frames?coordinates=absolute").body == framesBefore.body, "\(name)")
        }
        // The session still edits normally afterwards.
        let next = try c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 300}}}}"#)
        #expect(next.status == 200)
        #expect(next.header("ETag").etagRevision == 3)
    }

    @Test("429 once --max-sessions 2 sessions exist (Retry-After), until one is deleted")
    func tooManySessions() throws {
        let daemon = try Daemon(["--max-sessions", "2"])
        let c = try daemon.connect()
        let first = try c.post("/v1/sessions", Documents.card)
        #expect(first.status == 201)
        #expect(try c.put("/v1/sessions/b", Documents.card).status == 201)

        let refused = try c.post("/v1/sessions", Documents.card)
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "60")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.problemType == "/problems/too-many-sessions")
        #expect(try c.put("/v1/sessions/c", Documents.card).status == 429)
        // Replacing an existing session is not creating one.
        #expect(try c.put("/v1/sessions/b", Documents.conflict).status == 200)
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 2)

        #expect(try c.request("DELETE", "/v1/sessions/b").status == 204)
        #expect(try c.put("/v1/sessions/c", Documents.card).status == 201)
        #expect(try c.post("/v1/sessions", Documents.card).status == 429)
        _ = first
    }

    // MARK: keep-alive and incremental edits

    @Test("keep-alive: a whole session's worth of API calls, errors included, on one connection, pipelined too")
    func keepAliveAcrossAPICalls() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        var responses: [RawHTTPResponse] = []
        responses.append(try c.put("/v1/sessions/k", Documents.card))
        responses.append(try c.get("/v1/sessions/k"))
        responses.append(try c.patch("/v1/sessions/k", #"{"constraints": {"card-top": "card.top == root.top + 60"}}"#))
        responses.append(try c.patch("/v1/sessions/k", #"{"constraints": {"x": "nobody.top == card.top"}}"#))  // 422
        responses.append(try c.post("/v1/solve", "[1, 2"))  // 400
        responses.append(try c.get("/v1/sessions/k/frames"))
        responses.append(try c.get("/nope"))  // 404
        responses.append(try c.request("HEAD", "/v1/sessions/k"))
        responses.append(try c.get("/v1/sessions/k", headers: [("If-None-Match", "\"2\"")]))  // 304
        #expect(responses.map(\.status) == [201, 200, 200, 422, 400, 200, 404, 200, 304])
        for response in responses {
            #expect(response.header("Connection")?.lowercased() != "close")
        }

        // Pipelined: three requests in one write, three answers in order.
        let patch = #"{"views": {"root": {"frame": {"height": 500}}}}"#
        try c.send("""
            PATCH /v1/sessions/k HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\n\
            Content-Length: \(patch.utf8.count)\r\n\r\n\(patch)\
            GET /v1/sessions/k/frames HTTP/1.1\r\nHost: x\r\n\r\n\
            DELETE /v1/sessions/k HTTP/1.1\r\nHost: x\r\n\r\n
            """)
        let patched = try c.readResponse()
        let frames = try c.readResponse()
        let deleted = try c.readResponse(forMethod: "DELETE")
        #expect(patched.status == 200)
        #expect(patched.header("ETag").etagRevision == 3)
        #expect(frames.status == 200)
        #expect(Judge.frames(try frames.json()["frames"])["root"] == [0, 0, 375, 500])
        #expect(deleted.status == 204)
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 0)
    }

    @Test("a constant edit is swapped in place: stats added 0, removed 0, constantsChanged 1")
    func constantEditStats() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        let edit = try c.patch("/v1/sessions/s", #"{"constraints": {"card-height": {"constant": 260}}}"#)
        #expect(edit.status == 200)
        let body = try edit.json()
        let stats = try #require(body["stats"])
        #expect(stats["added"]?.numberValue == 0)
        #expect(stats["removed"]?.numberValue == 0)
        #expect(stats["constantsChanged"]?.numberValue == 1)
        #expect(stats["editsSuggested"]?.numberValue == 0)
        #expect(stats["rebuilt"]?.boolValue == false)
        #expect(stats["pivots"]?.numberValue != nil)
        #expect(body["revision"]?.numberValue == 2)
        #expect(Judge.frames(body["frames"]) == ["card": [16, 40, 343, 260]])
        #expect(edit.header("Server-Timing")?.range(
            of: #"^parse;dur=\d+\.\d{3}, solve;dur=\d+\.\d{3}$"#, options: .regularExpression) != nil)
    }

    @Test("a sequence of PATCHes: the frames each answer reports add up to a fresh POST /v1/solve",
          arguments: ["relative", "absolute"])
    func patchSequenceMatchesFreshSolve(coordinates: String) throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        let query = "coordinates=\(coordinates)"
        let created = try c.put("/v1/sessions/seq?\(query)", Self.sequenceDocument)
        #expect(created.status == 201, "\(created.text.prefix(300))")
        // What a client following only the PATCH answers knows about the frames.
        var known = Judge.frames(try created.json()["frames"])
        var revision = 1
        for (step, patch) in Self.patchSequence.enumerated() {
            let answer = try c.patch("/v1/sessions/seq?\(query)", patch)
            #expect(answer.status == 200, "step \(step) \(patch): \(answer.text.prefix(300))")
            guard answer.status == 200 else { continue }
            let body = try answer.json()
            let changed = Judge.frames(body["frames"])
            let newRevision = Int(body["revision"]?.numberValue ?? 0)
            #expect(newRevision == (patch == "{}" ? revision : revision + 1), "step \(step): revision")
            revision = newRevision
            #expect(answer.header("ETag").etagRevision == revision)
            known.merge(changed) { _, new in new }

            let session = try c.get("/v1/sessions/seq").json()
            let document = try #require(session["document"])
            let views = Set(document["views"]?.objectValue?.keys ?? [])
            known = known.filter { views.contains($0.key) }

            let fresh = try c.post("/v1/solve?\(query)", document.text)
            #expect(fresh.status == 200, "step \(step): \(fresh.text.prefix(300))")
            let freshBody = try fresh.json()
            let expected = Judge.frames(freshBody["frames"])
            #expect(Judge.frameDifferences(known, expected).isEmpty,
                    "step \(step) \(patch): \(Judge.frameDifferences(known, expected))")
            // Changed frames are exactly the ones that differ from before (nothing unchanged listed).
            let current = try c.get("/v1/sessions/seq/frames?\(query)").json()
            #expect(Judge.frameDifferences(Judge.frames(current["frames"]), expected).isEmpty, "step \(step): GET frames")
            #expect(Judge.diagnosticsDifferences(body["diagnostics"], freshBody["diagnostics"]).isEmpty,
                    "step \(step): \(Judge.diagnosticsDifferences(body["diagnostics"], freshBody["diagnostics"]))")
            #expect(Judge.diagnosticsDifferences(current["diagnostics"], freshBody["diagnostics"]).isEmpty,
                    "step \(step): GET diagnostics")
        }
        #expect(revision == Self.patchSequence.filter { $0 != "{}" }.count + 1)
    }

    static let sequenceDocument = """
        {"views": {"root": {"frame": {"width": 375, "height": 667}},
                   "card": {"parent": "root"},
                   "icon": {"parent": "card", "intrinsicSize": {"width": 24, "height": 24}},
                   "title": {"parent": "card", "intrinsicSize": {"width": 120, "height": 21}},
                   "badge": {"parent": "card", "frame": {"width": 10, "height": 10}}},
         "constraints": {"card-sides": {"first": "card.horizontal", "second": "root.horizontal", "constant": 16},
                         "card-top": "card.top == root.top + 40",
                         "card-height": {"first": "card.height", "constant": 200, "activation": {"when": "!flag(compact)"}},
                         "compact-height": {"first": "card.height", "constant": 120, "activation": {"when": "flag(compact)"}},
                         "icon-pos": "icon.cornerTL == card.cornerTL + (12, 12)",
                         "title-after-icon": {"expr": "title.leading == icon.trailing + 8", "activation": "bothVisible"},
                         "title-alone": {"expr": "title.leading == card.leading + 12", "activation": {"when": "hidden(icon)"}},
                         "title-top": "title.top == card.top + 14",
                         "badge-top": "badge.top == card.top + 4",
                         "badge-trailing": {"first": "badge.trailing", "second": "card.trailing", "constant": -4}},
         "flags": {"compact": false}}
        """

    /// Every engine path: constants, root size, visibility, flags, added and removed constraints and
    /// views, a priority change, a manual switch (making the card ambiguous), a required conflict
    /// appearing and going away, and a no-op.
    static let patchSequence = [
        #"{"constraints": {"card-height": {"constant": 260}}}"#,
        #"{"views": {"root": {"frame": {"width": 414}}}}"#,
        #"{"constraints": {"card-top": "card.top == root.top + 64"}}"#,
        #"{"views": {"icon": {"hidden": true}}}"#,
        #"{"flags": {"compact": true}}"#,
        #"{"constraints": {"title-width": "title.width == 200"}}"#,
        #"{"constraints": {"title-width": "title.width >= 150 ~ 500"}}"#,
        #"{"views": {"footer": {"parent": "root", "frame": {"x": 0, "y": 600, "width": 100, "height": 40}}}}"#,
        #"{"views": {"root": {"frame": {"width": 320, "height": 480}}}}"#,
        #"{"constraints": {"title-width": null}}"#,
        #"{"views": {"badge": null}, "constraints": {"badge-top": null, "badge-trailing": null}}"#,
        #"{"views": {"icon": {"hidden": false}}, "flags": {"compact": false}}"#,
        #"{"constraints": {"card-height": {"active": false}}}"#,
        #"{"constraints": {"card-height": {"active": true, "priority": 999}}}"#,
        #"{"constraints": {"clash": "card.width == 100"}}"#,
        #"{"constraints": {"clash": null, "card-sides": {"constant": 24}}}"#,
        #"{"views": {"icon": {"intrinsicSize": {"width": 32}}}}"#,
        "{}",
    ]

    // MARK: garbage

    @Test("garbage bodies (truncated, 10 MB, 100k nested arrays, binary, ...) get 4xx; the daemon keeps serving")
    func garbageBodies() throws {
        let daemon = try Daemon()
        let setup = try daemon.connect()
        #expect(try setup.put("/v1/sessions/g", Documents.card).status == 201)
        let before = try setup.get("/v1/sessions/g")

        var random = SystemRandomNumberGenerator()
        let binary = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        let bodies: [(String, [UInt8])] = [
            ("truncated", Array(Documents.card.utf8.prefix(80))),
            ("empty", []),
            ("binary", binary),
            ("nested arrays", [UInt8](repeating: UInt8(ascii: "["), count: 100_000)),
            ("nested objects", Array(String(repeating: #"{"a":"#, count: 20_000).utf8)),
            ("NaN", Array(#"{"views": {"root": {"frame": {"width": NaN}}}}"#.utf8)),
            ("huge number", Array(#"{"views": {"root": {"frame": {"width": 1e400}}}}"#.utf8)),
            ("lone surrogate", Array(#"{"views": {"\ud800": {}}}"#.utf8)),
            ("invalid UTF-8", Array(#"{"views": {""#.utf8) + [0xC3, 0x28] + Array(#"": {}}}"#.utf8)),
            ("a number", Array("42".utf8)),
            ("1 MiB of spaces and more", [UInt8](repeating: 0x20, count: 1_100_000)),
        ]
        let targets: [(String, String, [(String, String)])] = [
            ("POST", "/v1/solve", []),
            ("POST", "/v1/sessions", []),
            ("PUT", "/v1/sessions/g2", []),
            ("PATCH", "/v1/sessions/g", [("Content-Type", "application/merge-patch+json")]),
        ]
        let c = try daemon.connect()
        for (method, target, headers) in targets {
            for (name, body) in bodies {
                let response = try c.request(method, target, headers: headers, body: body)
                #expect((400..<500).contains(response.status), "\(method) \(target) \(name): \(response.status)")
                #expect(response.header("Content-Type") == "application/problem+json", "\(method) \(target) \(name)")
            }
            // 10 MB: refused by the transport before it is buffered; the connection closes.
            let huge = try daemon.connect()
            let response = try huge.requestTolerantly(method, target, headers: headers,
                                                      body: [UInt8](repeating: UInt8(ascii: "["), count: 10_000_000))
            #expect(response.status == 413, "\(method) \(target) 10 MB: \(response.status)")
            #expect(response.header("Content-Type") == "application/problem+json", "\(method) \(target) 10 MB")
        }
        // Still serving; nothing was created and the session is as it was.
        let after = try daemon.connect()
        let health = try after.get("/healthz")
        #expect(health.status == 200)
        #expect(try health.json()["sessions"]?.numberValue == 1)
        #expect(try after.get("/v1/sessions/g").body == before.body)
        #expect(try after.post("/v1/solve", Documents.card).status == 200)
        #expect(daemon.isRunning)
    }

    // MARK: configuration

    @Test("--cors-origin: allowed origins get CORS headers and preflights are answered; others get none")
    func corsPreflight() throws {
        let daemon = try Daemon(["--cors-origin", "https://app.example", "--cors-origin", "http://localhost:3000"])
        let c = try daemon.connect()
        let preflight = try c.request("OPTIONS", "/v1/sessions/demo", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "PATCH"),
            ("Access-Control-Request-Headers", "content-type, if-match"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Allow") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
        #expect(preflight.header("Access-Control-Allow-Headers") == "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id, Last-Event-ID")
        #expect(preflight.header("Access-Control-Max-Age") == "600")
        #expect(preflight.header("Vary") == "Origin")

        let second = try c.request("OPTIONS", "/v1/solve", headers: [
            ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(second.header("Access-Control-Allow-Origin") == "http://localhost:3000")
        #expect(second.header("Access-Control-Allow-Methods") == "POST, OPTIONS")

        // Simple requests, errors included, from an allowed origin.
        let solved = try c.post("/v1/solve", Documents.card, headers: [("Origin", "https://app.example")])
        #expect(solved.status == 200)
        #expect(solved.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(solved.header("Access-Control-Expose-Headers") == "ETag, Location, Server-Timing, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate")
        let missing = try c.get("/v1/sessions/none", headers: [("Origin", "https://app.example")])
        #expect(missing.status == 404)
        #expect(missing.header("Access-Control-Allow-Origin") == "https://app.example")

        // Another origin is answered, without Access-Control-Allow-Origin.
        let other = try c.request("OPTIONS", "/v1/sessions/demo", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "PATCH"),
        ])
        #expect(other.status == 204)
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        #expect(other.header("Access-Control-Allow-Methods") == nil)
        #expect(other.header("Vary") == "Origin")
        let otherGet = try c.get("/healthz", headers: [("Origin", "https://app.example.evil")])
        #expect(otherGet.status == 200)
        #expect(otherGet.header("Access-Control-Allow-Origin") == nil)

        // Without --cors-origin there are no CORS headers at all.
        let plain = try Daemon()
        let none = try plain.connect().request("OPTIONS", "/v1/solve", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(none.status == 204)
        #expect(none.header("Access-Control-Allow-Origin") == nil)
        #expect(none.header("Vary") == nil)
    }

    @Test("--session-idle-timeout-seconds: the sweep timer drops idle sessions without any request naming them")
    func idleSessionsAreSwept() throws {
        let daemon = try Daemon(["--session-idle-timeout-seconds", "1"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/idle", Documents.card).status == 201)
        #expect(try c.get("/healthz").json()["sessions"]?.numberValue == 1)
        // /healthz does not touch sessions: only the daemon's timer can bring the count down.
        let count = try eventually(timeout: 6, pollEvery: 0.1, { try c.get("/healthz").json()["sessions"]?.numberValue ?? -1 },
                                   satisfies: { $0 == 0 })
        #expect(count == 0, "the idle session was not swept")
        #expect(try c.get("/v1/sessions/idle").status == 404)
    }

    // MARK: large documents

    @Test("a document over 64 KiB, solved off the worker's loop, gets its frames; the connection goes on")
    func largeDocumentOffloaded() throws {
        let daemon = try Daemon(["--threads", "1"])
        let c = try daemon.connect(timeoutSeconds: 15)
        let count = 600
        let document = Documents.chain(count)
        #expect(document.utf8.count >= 64 << 10)  // layoutd's Router.offloadBodyBytes
        for target in ["/v1/solve", "/v1/sessions/big"] {
            let answer = target == "/v1/solve" ? try c.post(target, document) : try c.put(target, document)
            #expect(answer.status == (target == "/v1/solve" ? 200 : 201))
            #expect(answer.header("Content-Length") == String(answer.body.count))
            let frames = try #require(try answer.json()["frames"])
            for i in [0, 1, 300, count - 1] {
                let frame = frames["v\(i)"]
                #expect(frame?["x"]?.numberValue == Double(1 + 6 * i), "v\(i)")
                #expect(frame?["y"]?.numberValue == Double(i % 7), "v\(i)")
                #expect(frame?["width"]?.numberValue == 5, "v\(i)")
            }
        }
        // The same connection, kept alive, answers small requests in place after it.
        let patched = try c.patch("/v1/sessions/big", #"{"constraints": {"h0": "v0.leading == root.leading + 11"}}"#)
        #expect(patched.status == 200)
        #expect(try patched.json()["frames"]?["v\(count - 1)"]?["x"]?.numberValue == Double(11 + 6 * (count - 1)))
        #expect(try c.get("/healthz").status == 200)
    }

    // MARK: shutdown

    @Test("SIGTERM with solves in flight on several connections: every answer completes, exit 0 within the grace")
    func sigtermWithRequestsInFlight() throws {
        let daemon = try Daemon(["--shutdown-grace-seconds", "4"])
        let document = Array(Documents.chain(400).utf8)
        // Connections accepted (one request each) before the signal.
        let connections = try (0..<4).map { _ in try daemon.connect(timeoutSeconds: 15) }
        for connection in connections {
            #expect(try connection.get("/healthz").status == 200)
        }
        let solveStarted = Date()
        let expected = try connections[0].request("POST", "/v1/solve", body: document)
        #expect(expected.status == 200)
        // The four in-flight solves must finish before the exit; on a loaded 2-CPU machine one solve can
        // take a second, so the bound is the grace plus what four solves cost here, not a fixed 5 s.
        let limit = 5 + 4 * Date().timeIntervalSince(solveStarted)

        for (index, connection) in connections.enumerated() {
            if index.isMultiple(of: 2) {
                try connection.sendRequest("POST", "/v1/solve", body: document)
            } else {
                try connection.sendRequest("PUT", "/v1/sessions/inflight\(index)", body: document)
            }
        }
        // Every request is in the daemon's hands (read from its sockets) before the signal.
        #expect(eventually(timeout: 30) { LoopbackSockets.allRead(port: daemon.port) })
        let signalled = Date()
        daemon.signal(SIGTERM)

        for (index, connection) in connections.enumerated() {
            let response = try connection.readResponse()
            #expect(response.status == (index.isMultiple(of: 2) ? 200 : 201), "connection \(index): \(response.status)")
            #expect(response.header("Content-Length") == String(response.body.count))
            let body = try response.json()
            #expect(body["frames"] == (try expected.json()["frames"]), "connection \(index): incomplete frames")
        }
        let status = daemon.waitForExit(timeout: limit)
        #expect(status == 0, "exit status \(String(describing: status)); stderr:\n\(daemon.stderr)")
        #expect(Date().timeIntervalSince(signalled) < limit)
        for connection in connections {
            #expect(connection.serverClosed())
        }
        // They really were in flight: at least one was answered (logged) after the signal was noticed.
        let log = daemon.stderr
        let afterSignal = log.range(of: "SIGTERM").map { log[$0.upperBound...] } ?? ""
        let answeredLater = afterSignal.split(separator: "\n").filter {
            $0.contains("POST /v1/solve 200") || $0.contains("PUT /v1/sessions/inflight")
        }
        #expect(!answeredLater.isEmpty, "no request was still in flight at SIGTERM; stderr:\n\(log)")
    }
}
