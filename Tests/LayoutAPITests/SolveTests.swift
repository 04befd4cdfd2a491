import TestSupport
import Testing
import JSON
import LayoutAPI

@Suite("POST /v1/solve")
struct SolveTests {
    @Test("a document solves to {frames, diagnostics} with Server-Timing")
    func solve() {
        let r = Client().send("POST", "/v1/solve", body: Docs.small)
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json")
        #expect(r.header("Server-Timing")?.hasPrefix("parse;dur=") == true)
        #expect(r.header("Server-Timing")?.contains(", solve;dur=") == true)
        #expect(r.text == #"{"frames":{"root":{"x":0,"y":0,"width":100,"height":50},"a":{"x":5,"y":5,"width":90,"height":40}},"diagnostics":{"broken":[],"ambiguous":[],"inactive":[]}}"#)
    }

    @Test("broken required constraints are reported, and strict=true answers 409 listing them")
    func strict() {
        let c = Client()
        let lenient = T.json(c.send("POST", "/v1/solve", body: Docs.conflicting))
        #expect(ConformanceJudge.brokenIDs(lenient["diagnostics"]) == ["w2"])
        let r = c.send("POST", "/v1/solve", query: "strict=true", body: Docs.conflicting)
        T.expectProblem(r, 409, type: "required-conflict")
        let body = T.json(r)
        #expect(body["broken"]?.arrayValue?.first?["id"]?.stringValue == "w2")
        #expect(ConformanceJudge.strings(body["broken"]?.arrayValue?.first?["conflictsWith"]) == ["w1"])
        #expect(body["errors"]?.arrayValue?.first?["pointer"]?.stringValue == "/constraints/w2")
        #expect(body["errors"]?.arrayValue?.first?["code"]?.stringValue == "broken")
    }

    @Test("a body that is not JSON is a 400 naming line and column")
    func notJSON() {
        let r = Client().send("POST", "/v1/solve", body: "{\n  \"views\": {\n    \"root\" {}\n  }\n}")
        T.expectProblem(r, 400, type: "invalid-json")
        let body = T.json(r)
        #expect(body["line"]?.numberValue == 3)
        #expect(body["column"]?.numberValue == 12)
        #expect(body["detail"]?.stringValue?.contains("line 3, column 12") == true)
    }

    @Test("an invalid document is a 422 listing every problem with its pointer")
    func invalid() {
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "red": {"parent": "root"}},
         "constraints": {"c3": {"first": "red.top", "second": "bleu.top"}, "c4": "red.width == == 3"}}
        """
        let r = Client().send("POST", "/v1/solve", body: doc)
        T.expectProblem(r, 422, type: "invalid-document")
        let body = T.json(r)
        let errors = body["errors"]?.arrayValue ?? []
        #expect(body["title"]?.stringValue == "Invalid layout document")
        #expect(body["detail"]?.stringValue == "\(errors.count) problems")
        #expect(errors.count == 2)
        #expect(errors.first?["pointer"]?.stringValue == "/constraints/c3/second")
        #expect(errors.first?["code"]?.stringValue == "unknown_view")
        #expect(errors.last?["pointer"]?.stringValue?.hasPrefix("/constraints/c4") == true)
        #expect(errors.last?["code"]?.stringValue == "syntax")
    }

    @Test("the configured view and constraint limits apply (422)")
    func limits() {
        let c = Client(APIConfiguration(maxViews: 2, maxConstraints: 1))
        let views = #"{"views": {"r": {}, "a": {"parent": "r"}, "b": {"parent": "r"}}}"#
        let r = c.send("POST", "/v1/solve", body: views)
        T.expectProblem(r, 422)
        #expect(T.json(r)["errors"]?.arrayValue?.contains { $0["code"]?.stringValue == "too_many_views" } == true)
        let constraints = #"{"views": {"r": {}}, "constraints": ["r.width == 1", "r.height == 1"]}"#
        let r2 = c.send("POST", "/v1/solve", body: constraints)
        #expect(T.json(r2)["errors"]?.arrayValue?.contains { $0["code"]?.stringValue == "too_many_constraints" } == true)
    }

    @Test("a body over the configured limit is a 413 on every route that takes a body")
    func tooLarge() {
        let c = Client(APIConfiguration(maxBodyBytes: 100))
        let big = String(repeating: " ", count: 101)
        T.expectProblem(c.send("POST", "/v1/solve", body: big), 413, type: "body-too-large")
        T.expectProblem(c.send("POST", "/v1/sessions", body: big), 413)
        T.expectProblem(c.send("PUT", "/v1/sessions/x", body: big), 413)
        T.expectProblem(c.patch("/v1/sessions/x", big), 413)
        #expect(c.send("POST", "/v1/solve", body: String(repeating: " ", count: 90) + "{\"views\":{\"r\":{}}}").status == 413)
        #expect(c.send("POST", "/v1/solve", body: "{\"views\":{\"r\":{}}}").status == 200)
    }
}
