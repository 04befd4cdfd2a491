import Testing
import JSON
import LayoutAPI

@Suite("Routes, methods and status codes of http.md's table")
struct RoutingTests {
    @Test("GET /healthz answers 200 with status ok")
    func healthz() {
        let c = Client()
        let r = c.send("GET", "/healthz")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json")
        #expect(T.json(r)["status"]?.stringValue == "ok")
    }

    @Test("unknown paths answer 404 problem+json", arguments: [
        "/index.html", "/v1", "/v2/solve", "/v1/solve/", "/v1/sessions/", "/v1/sessions/a/b", "/v1/sessions/a/frames/x",
        "/healthz/", "/v1/sessionsX",
    ])
    func unknownRoute(_ path: String) {
        let c = Client()
        T.expectProblem(c.send("GET", path), 404, type: "not-found")
        T.expectProblem(c.send("POST", path, body: Docs.small), 404, type: "not-found")
    }

    @Test("a wrong method answers 405 with Allow listing the route's methods", arguments: [
        ("GET", "/v1/solve", "POST, OPTIONS"),
        ("PUT", "/v1/solve", "POST, OPTIONS"),
        ("DELETE", "/v1/sessions", "POST, OPTIONS"),
        ("GET", "/v1/sessions", "POST, OPTIONS"),
        ("POST", "/v1/sessions/x", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"),
        ("PATCH", "/v1/sessions/x/frames", "GET, HEAD, OPTIONS"),
        ("POST", "/healthz", "GET, HEAD, OPTIONS"),
        ("get", "/healthz", "GET, HEAD, OPTIONS"),
        ("TRACE", "/v1/sessions/x", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"),
    ])
    func methodNotAllowed(_ method: String, _ path: String, _ allow: String) {
        let r = Client().send(method, path)
        T.expectProblem(r, 405, type: "method-not-allowed")
        #expect(r.header("Allow") == allow)
    }

    @Test("OPTIONS on every route answers 204 with Allow", arguments: [
        ("/healthz", "GET, HEAD, OPTIONS"), ("/v1/solve", "POST, OPTIONS"), ("/v1/sessions", "POST, OPTIONS"),
        ("/v1/sessions/any", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"), ("/v1/sessions/any/frames", "GET, HEAD, OPTIONS"),
    ])
    func options(_ path: String, _ allow: String) {
        let r = Client().send("OPTIONS", path)
        #expect(r.status == 204)
        #expect(r.header("Allow") == allow)
        #expect(r.body.isEmpty)
    }

    @Test("HEAD answers like GET on every GET route (the transport drops the body)")
    func head() {
        let c = Client()
        #expect(c.put("s1", Docs.small).status == 201)
        for path in ["/healthz", "/v1/sessions/s1", "/v1/sessions/s1/frames"] {
            let get = c.send("GET", path), head = c.send("HEAD", path)
            #expect(head.status == 200)
            #expect(head.body == get.body)
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
        }
        T.expectProblem(c.send("HEAD", "/v1/sessions/nope"), 404)
    }

    @Test("every success status of the table: 200 solve, 201 POST and PUT, 200 GET, PATCH, PUT, 204 DELETE")
    func successStatuses() {
        let c = Client()
        #expect(c.send("POST", "/v1/solve", body: Docs.small).status == 200)
        let created = c.send("POST", "/v1/sessions", body: Docs.small)
        #expect(created.status == 201)
        let id = T.json(created)["id"]?.stringValue ?? ""
        #expect(c.send("GET", "/v1/sessions/\(id)").status == 200)
        #expect(c.send("GET", "/v1/sessions/\(id)/frames").status == 200)
        #expect(c.patch("/v1/sessions/\(id)", #"{"views":{"root":{"frame":{"width":120}}}}"#).status == 200)
        #expect(c.put("mine", Docs.small).status == 201)
        #expect(c.put("mine", Docs.stack).status == 200)
        let deleted = c.send("DELETE", "/v1/sessions/\(id)")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        T.expectProblem(c.send("GET", "/v1/sessions/\(id)"), 404, type: "session-not-found")
        T.expectProblem(c.send("DELETE", "/v1/sessions/\(id)"), 404)
        T.expectProblem(c.patch("/v1/sessions/\(id)", "{}"), 404)
        T.expectProblem(c.send("GET", "/v1/sessions/\(id)/frames"), 404)
    }

    @Test("query parameters: without '=', unknown ones ignored, bad values of known ones are a 400")
    func query() {
        let c = Client()
        // `?strict` alone means strict=true.
        T.expectProblem(c.send("POST", "/v1/solve", query: "strict", body: Docs.conflicting), 409)
        T.expectProblem(c.send("POST", "/v1/solve", query: "verbose&strict&x=1", body: Docs.conflicting), 409)
        #expect(c.send("POST", "/v1/solve", query: "strict=false", body: Docs.conflicting).status == 200)
        #expect(c.send("POST", "/v1/solve", query: "unknown=%zz&&=&coordinates=absolute", body: Docs.small).status == 200)
        T.expectProblem(c.send("POST", "/v1/solve", query: "coordinates=polar", body: Docs.small), 400,
                        type: "invalid-query")
        T.expectProblem(c.send("POST", "/v1/solve", query: "strict=maybe", body: Docs.small), 400)
        T.expectProblem(c.send("POST", "/v1/solve", query: "frames=some", body: Docs.small), 400)
        // Percent-encoded names and values are decoded.
        T.expectProblem(c.send("POST", "/v1/solve", query: "str%69ct=tru%65", body: Docs.conflicting), 409)
    }

    @Test("coordinates=absolute measures frames from the root on every solving route")
    func absolute() {
        let c = Client()
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}},
                   "p": {"parent": "root", "frame": {"x": 10, "y": 20, "width": 50, "height": 50}},
                   "k": {"parent": "p", "frame": {"x": 5, "y": 5, "width": 10, "height": 10}}}}
        """
        let relative = T.frames(T.json(c.send("POST", "/v1/solve", body: doc))["frames"])
        let absolute = T.frames(T.json(c.send("POST", "/v1/solve", query: "coordinates=absolute", body: doc))["frames"])
        #expect(relative["k"] == [5, 5, 10, 10])
        #expect(absolute["k"] == [15, 25, 10, 10])
        #expect(c.put("s", doc, query: "coordinates=absolute").status == 201)
        #expect(T.frames(T.json(c.send("GET", "/v1/sessions/s", query: "coordinates=absolute"))["frames"])["k"]
                == [15, 25, 10, 10])
        #expect(T.frames(T.json(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute"))["frames"])["k"]
                == [15, 25, 10, 10])
        // Moving the parent moves the child in absolute coordinates only.
        let moved = c.patch("/v1/sessions/s", #"{"views":{"p":{"frame":{"x":30}}}}"#, query: "coordinates=absolute")
        #expect(T.frames(T.json(moved)["frames"]) == ["p": [30, 20, 50, 50], "k": [35, 25, 10, 10]])
        let back = c.patch("/v1/sessions/s", #"{"views":{"p":{"frame":{"x":10}}}}"#)
        #expect(T.frames(T.json(back)["frames"]) == ["p": [10, 20, 50, 50]])
    }
}
