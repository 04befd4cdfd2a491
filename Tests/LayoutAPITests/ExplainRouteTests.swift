import JSON
@testable import LayoutAPI
import Testing

/// `GET /v1/sessions/{id}/explain?view=V&attribute=A` (docs/http.md, "Explain").
@Suite("Explain route: answers, refusals, access")
struct ExplainRouteTests {
    static let doc = """
    {"views": {"root": {"frame": {"width": 300, "height": 200}},
               "label": {"parent": "root"}, "below": {"parent": "root"}},
     "constraints": {"top": "label.top == root.top + 10", "left": "label.left == root.left + 10",
                     "h": "label.height == 36", "w": "label.width == 100",
                     "b": "below.top == label.bottom + 8", "bx": "below.left == root.left",
                     "bw": "below.width == 50"}}
    """

    static func explain(_ c: Client, _ query: String, id: String = "s",
                        headers: [(name: String, value: String)] = []) -> APIResponse {
        c.send("GET", "/v1/sessions/\(id)/explain", query: query, headers: headers)
    }

    @Test("a determined value answers its constraints and chain; an undetermined one is ambiguous")
    func answers() throws {
        let c = Client()
        #expect(c.put("s", Self.doc).status == 201)
        let r = Self.explain(c, "view=below&attribute=top")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json")
        #expect(r.header("ETag") != nil)
        let j = T.json(r)
        // By hand: root.top 0, label.top 10, label.height 36, below.top = 46 + 8.
        #expect(j["value"]?.numberValue == 54)
        #expect(j["ambiguous"] == JSONValue.bool(false))
        #expect(j["constraints"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b", "top", "h", "root.frame.y"])
        #expect(j["constraints"]?.arrayValue?.first?["text"]?.stringValue == "below.top == label.bottom + 8")
        #expect(j["chain"]?.stringValue?.hasPrefix("below.top = label.bottom + 8 (b) ; label.top = root.top + 10 (top)") == true)
        // below's height is left to nothing: ambiguous, and below is what moves.
        let free = T.json(Self.explain(c, "view=below&attribute=bottom"))
        #expect(free["ambiguous"] == JSONValue.bool(true))
        #expect(free["freeViews"]?.arrayValue == [JSONValue.string("below")])
        // HEAD answers as GET, without a body; If-None-Match with the ETag is a 304.
        #expect(c.send("HEAD", "/v1/sessions/s/explain", query: "view=below&attribute=top").status == 200)
        let etag = try #require(r.header("ETag"))
        #expect(Self.explain(c, "view=below&attribute=top", headers: [("If-None-Match", etag)]).status == 304)
    }

    @Test("an unknown view is a 404 naming /view, an unknown attribute a 422 naming /attribute, both with a suggestion")
    func refusals() throws {
        let c = Client()
        c.put("s", Self.doc)
        let view = Self.explain(c, "view=lable&attribute=top")
        T.expectProblem(view, 404, type: "view-not-found")
        let viewError = try #require(T.json(view)["errors"]?.arrayValue?.first)
        #expect(viewError["pointer"]?.stringValue == "/view")
        #expect(viewError["code"]?.stringValue == "unknown_view")
        #expect(viewError["suggestion"]?.stringValue == "label")
        let attribute = Self.explain(c, "view=label&attribute=centrX")
        T.expectProblem(attribute, 422, type: "invalid-attribute")
        let attributeError = try #require(T.json(attribute)["errors"]?.arrayValue?.first)
        #expect(attributeError["pointer"]?.stringValue == "/attribute")
        #expect(attributeError["code"]?.stringValue == "unknown_attribute")
        #expect(attributeError["suggestion"]?.stringValue == "centerX")
        T.expectProblem(Self.explain(c, "view=label&attribute=edges"), 422, type: "invalid-attribute")
        for query in ["attribute=top", "view=label", "view=&attribute=top", ""] {
            let missing = Self.explain(c, query)
            T.expectProblem(missing, 400, type: "invalid-query")
            #expect(T.json(missing)["errors"]?.arrayValue?.first?["code"]?.stringValue == "missing_field", "\(query)")
        }
        T.expectProblem(Self.explain(c, "view=label&attribute=top", id: "nope"), 404, type: "session-not-found")
        // Only GET, HEAD and OPTIONS.
        #expect(c.send("POST", "/v1/sessions/s/explain", query: "view=label&attribute=top").status == 405)
        // Nothing changed: the session is still at revision 1.
        #expect(T.json(c.send("GET", "/v1/sessions/s"))["revision"]?.numberValue == 1)
    }

    @Test("a PATCH changes the answer; a session that slept answers as before")
    func followsEditsAndWakes() throws {
        var configuration = TestClock().configuration(timeout: 0)
        configuration.maxResidentSessions = 1
        let c = Client(configuration)
        c.put("s", Self.doc)
        #expect(c.patch("/v1/sessions/s", #"{"constraints": {"h": "label.height == 40"}}"#).status == 200)
        let before = Self.explain(c, "view=below&attribute=top")
        #expect(T.json(before)["value"]?.numberValue == 58)
        c.put("other", Docs.small)
        #expect(c.api.registry.peek("s")?.isResident == false)
        let after = Self.explain(c, "view=below&attribute=top")
        #expect(after.status == 200 && after.body == before.body)
        #expect(c.api.registry.peek("s")?.isResident == true)
    }

    @Test("read-only keys and stream tokens may ask; another tenant finds no session")
    func access() throws {
        let keys = KeysFixture()
        let alice = keys.add("alice"), viewer = keys.add("viewer", tenant: "alice", readOnly: true), bob = keys.add("bob")
        var configuration = APIConfiguration()
        configuration.access = AccessPolicy(keys: try keys.ring())
        let c = Client(api: LayoutAPI(configuration: configuration))
        let q = "view=below&attribute=top"
        #expect(c.send("PUT", "/v1/sessions/s", headers: AccessControlTests.bearer(alice), body: Self.doc).status == 201)
        #expect(Self.explain(c, q).status == 401)
        #expect(Self.explain(c, q, headers: AccessControlTests.bearer(alice)).status == 200)
        #expect(Self.explain(c, q, headers: AccessControlTests.bearer(viewer)).status == 200)
        let other = Self.explain(c, q, headers: AccessControlTests.bearer(bob))
        T.expectProblem(other, 404, type: "session-not-found")
        #expect(!other.text.contains("alice"))
        let token = try #require(T.json(c.send("POST", "/v1/sessions/s/tokens",
                                               headers: AccessControlTests.bearer(alice)))["token"]?.stringValue)
        #expect(Self.explain(c, q + "&access_token=" + token).status == 200)
    }
}
