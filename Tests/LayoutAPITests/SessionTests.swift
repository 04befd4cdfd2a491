import TestSupport
import Testing
import JSON
import LayoutAPI

@Suite("Sessions: create, replace, read, delete, revisions and preconditions")
struct SessionTests {
    @Test("POST /v1/sessions picks a 128-bit hex id and answers 201 with Location, ETag and the solve")
    func create() {
        let c = Client()
        let r = c.send("POST", "/v1/sessions", body: Docs.small)
        #expect(r.status == 201)
        let body = T.json(r)
        let id = body["id"]?.stringValue ?? ""
        #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit })
        #expect(r.header("Location") == "/v1/sessions/\(id)")
        #expect(r.header("ETag").etagRevision == 1)
        #expect(body["revision"]?.numberValue == 1)
        #expect(body.objectValue?.keys == ["id", "revision", "frames", "diagnostics"])
        #expect(T.frames(body["frames"])["a"] == [5, 5, 90, 40])
        let other = T.json(c.send("POST", "/v1/sessions", body: Docs.small))["id"]?.stringValue
        #expect(other != id)
    }

    @Test("GET returns {id, revision, document, frames, diagnostics} with the canonical document")
    func get() {
        let c = Client()
        let doc = """
        {"views": [{"id": "root", "frame": {"width": 10, "height": 10}}, {"id": "a", "parent": "root"}],
         "constraints": ["a.edges == root.edges", {"id": "w", "expr": "a.width == 10"}]}
        """
        #expect(c.put("s", doc).status == 201)
        let r = c.send("GET", "/v1/sessions/s")
        #expect(r.status == 200)
        #expect(r.header("ETag").etagRevision == 1)
        let body = T.json(r)
        #expect(body.objectValue?.keys == ["id", "revision", "document", "frames", "diagnostics"])
        #expect(body["id"]?.stringValue == "s")
        #expect(T.text(body["document"] ?? .null) == ##"{"views":{"root":{"frame":{"width":10,"height":10}},"a":{"parent":"root"}},"constraints":{"#0":"a.edges == root.edges","w":{"expr":"a.width == 10"}}}"##)
        let frames = T.json(c.send("GET", "/v1/sessions/s/frames"))
        #expect(frames.objectValue?.keys == ["revision", "frames", "diagnostics"])
    }

    @Test("PUT creates (201, Location) then replaces (200, revision + 1); the same document keeps the revision")
    func put() {
        let c = Client()
        let created = c.put("my-session_1", Docs.small)
        #expect(created.status == 201)
        #expect(created.header("Location") == "/v1/sessions/my-session_1")
        #expect(T.json(created)["id"]?.stringValue == "my-session_1")
        let same = c.put("my-session_1", Docs.small)
        #expect(same.status == 200)
        #expect(same.header("ETag").etagRevision == 1)
        let replaced = c.put("my-session_1", Docs.stack)
        #expect(replaced.status == 200)
        #expect(replaced.header("ETag").etagRevision == 2)
        #expect(T.json(replaced)["revision"]?.numberValue == 2)
        #expect(T.frames(T.json(replaced)["frames"]).keys.sorted() == ["a", "b", "badge", "header", "root"])
        T.expectSameAsFresh(c, "my-session_1", "after PUT replace")
        // '#' is a valid id character; the Location escapes it.
        #expect(c.put("a#b", Docs.small).header("Location") == "/v1/sessions/a%23b")
        #expect(c.send("GET", "/v1/sessions/a#b").status == 200)
    }

    @Test("PUT with an id outside the id rules is a 400", arguments: [
        "a.b", "a b", String(repeating: "x", count: 129), "é", "a%2Fb", "a:b",
    ])
    func badID(_ id: String) {
        let c = Client()
        T.expectProblem(c.put(id, Docs.small), 400, type: "invalid-session-id")
        T.expectProblem(c.send("GET", "/v1/sessions/\(id)"), 404)
        #expect(c.api.sessionCount == 0)
    }

    @Test("a 128-character id is accepted")
    func longID() {
        #expect(Client().put(String(repeating: "x", count: 128), Docs.small).status == 201)
    }

    @Test("If-Match on PATCH, PUT and DELETE: a stale revision is a 412 with the current revision; '*' and the current one match")
    func ifMatch() {
        let c = Client()
        c.put("s", Docs.small)
        #expect(c.patch("/v1/sessions/s", #"{"views":{"root":{"frame":{"width":200}}}}"#,
                        headers: [("If-Match", "\"1\"")]).status == 200)
        let stale = c.patch("/v1/sessions/s", #"{"views":{"root":{"frame":{"width":300}}}}"#,
                            headers: [("If-Match", "\"1\"")])
        T.expectProblem(stale, 412, type: "precondition-failed")
        #expect(T.json(stale)["revision"]?.numberValue == 2)
        #expect(stale.header("ETag").etagRevision == 2)
        #expect(c.put("s", Docs.stack).status == 200)  // a PUT without If-Match has no precondition: revision 3
        T.expectProblem(c.send("PUT", "/v1/sessions/s", headers: [("If-Match", "\"2\"")], body: Docs.small), 412)
        T.expectProblem(c.send("DELETE", "/v1/sessions/s", headers: [("if-match", "\"1\", W/\"3\"")]), 412)
        #expect(c.send("PUT", "/v1/sessions/s", headers: [("If-Match", "\"7\", \"3\"")], body: Docs.small).status == 200)
        #expect(c.patch("/v1/sessions/s", #"{"flags":{"x":true}}"#, headers: [("If-Match", "*")]).status == 200)
        #expect(c.send("DELETE", "/v1/sessions/s", headers: [("If-Match", "\"5\"")]).status == 204)
        // If-Match on a PUT to a session that does not exist fails: there is no revision to match.
        T.expectProblem(c.send("PUT", "/v1/sessions/s", headers: [("If-Match", "*")], body: Docs.small), 412)
        #expect(c.api.sessionCount == 0)
    }

    @Test("If-None-Match: '*' makes PUT create-only; GET with the current ETag answers 304")
    func ifNoneMatch() {
        let c = Client()
        #expect(c.send("PUT", "/v1/sessions/s", headers: [("If-None-Match", "*")], body: Docs.small).status == 201)
        T.expectProblem(c.send("PUT", "/v1/sessions/s", headers: [("If-None-Match", "*")], body: Docs.stack), 412)
        let notModified = c.send("GET", "/v1/sessions/s", headers: [("If-None-Match", "\"1\"")])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.header("ETag").etagRevision == 1)
        #expect(c.send("GET", "/v1/sessions/s/frames", headers: [("If-None-Match", "W/\"1\"")]).status == 304)
        #expect(c.send("GET", "/v1/sessions/s", headers: [("If-None-Match", "\"0\"")]).status == 200)
    }

    @Test("a session deleted and created again under its id answers a new ETag; If-Match with the old one is a 412")
    func recreatedSessionGetsANewTag() throws {
        let c = Client()
        let first = c.put("s", Docs.small)
        let old = try #require(first.header("ETag"))
        #expect(first.header("ETag").etagRevision == 1)
        #expect(c.send("GET", "/v1/sessions/s", headers: [("If-None-Match", old)]).status == 304)
        #expect(c.send("DELETE", "/v1/sessions/s").status == 204)
        let again = c.put("s", Docs.small)
        #expect(again.status == 201 && again.header("ETag").etagRevision == 1)
        #expect(again.header("ETag") != old)
        T.expectProblem(c.patch("/v1/sessions/s", #"{"flags":{"x":true}}"#, headers: [("If-Match", old)]), 412)
        T.expectProblem(c.send("DELETE", "/v1/sessions/s", headers: [("If-Match", old)]), 412)
        #expect(c.send("GET", "/v1/sessions/s", headers: [("If-None-Match", old)]).status == 200)
        // The full current tag matches; so does the bare revision (which cannot tell the two apart).
        #expect(c.patch("/v1/sessions/s", #"{"flags":{"x":true}}"#, headers: [("If-Match", again.header("ETag") ?? "")]).status == 200)
        #expect(c.patch("/v1/sessions/s", #"{"flags":{"x":false}}"#, headers: [("If-Match", "\"2\"")]).status == 200)
    }

    @Test("strict=true on POST and PUT with a broken constraint answers 409 and creates or changes nothing")
    func strictCreate() {
        let c = Client()
        T.expectProblem(c.send("POST", "/v1/sessions", query: "strict=true", body: Docs.conflicting), 409)
        T.expectProblem(c.put("s", Docs.conflicting, query: "strict=true"), 409)
        #expect(c.api.sessionCount == 0)
        c.put("s", Docs.small)
        let before = c.send("GET", "/v1/sessions/s")
        T.expectProblem(c.put("s", Docs.conflicting, query: "strict=true"), 409)
        #expect(c.send("GET", "/v1/sessions/s").body == before.body)
        // Without strict the conflict is reported and the session replaced.
        let lenient = c.put("s", Docs.conflicting)
        #expect(lenient.status == 200)
        #expect(ConformanceJudge.brokenIDs(T.json(lenient)["diagnostics"]) == ["w2"])
    }

    @Test("an invalid PUT leaves the session as it was")
    func invalidPut() {
        let c = Client()
        c.put("s", Docs.small)
        let before = c.send("GET", "/v1/sessions/s")
        T.expectProblem(c.put("s", #"{"views": {"a": {"parent": "nobody"}}}"#), 422)
        T.expectProblem(c.put("s", #"{"views": "#), 400)
        let after = c.send("GET", "/v1/sessions/s")
        #expect(after.body == before.body)
        #expect(after.header("ETag") == before.header("ETag"))
    }
}
