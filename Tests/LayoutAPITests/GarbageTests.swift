import TestSupport
import Testing
import JSON
import LayoutAPI

/// No input makes the API answer 5xx, trap or hang: garbage gets a 4xx problem.
@Suite("Garbage bodies")
struct GarbageTests {
    static let bodies: [(String, [UInt8])] = {
        var random = SeededGenerator(seed: 42)
        let binary = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let cases: [(String, String)] = [
            ("empty", ""),
            ("whitespace", "  \n "),
            ("truncated", #"{"views": {"root": {"frame": {"width": 1"#),
            ("truncated string", #"{"views": {"ro"#),
            ("NaN", #"{"views": {"root": {"frame": {"width": NaN}}}}"#),
            ("Infinity", #"{"views": {"root": {"frame": {"width": Infinity}}}}"#),
            ("-Infinity", #"{"views": {"root": {"frame": {"width": -Infinity}}}}"#),
            ("nan lowercase", #"{"views": {"root": {"frame": {"width": nan}}}}"#),
            ("huge number", #"{"views": {"root": {"frame": {"width": 1e400}}}}"#),
            ("huge negative", #"{"views": {"root": {"frame": {"width": -1e400}}}}"#),
            ("duplicate keys", #"{"views": {"a": {}, "a": {}}}"#),
            ("duplicate top-level", #"{"views": {"a": {}}, "views": {"b": {}}}"#),
            ("trailing comma", #"{"views": {"a": {},}}"#),
            ("comment", #"{"views": {"a": {}} /* hi */}"#),
            ("single quotes", #"{'views': {}}"#),
            ("trailing garbage", #"{"views": {"a": {}}} x"#),
            ("bare string", #""layout""#),
            ("number", "42"),
            ("null", "null"),
            ("array", "[]"),
            ("parent cycle", #"{"views": {"a": {"parent": "b"}, "b": {"parent": "a"}}}"#),
            ("self parent", #"{"views": {"a": {"parent": "a"}}}"#),
            ("unknown fields", #"{"views": {"a": {"colour": "red"}}, "extra": 1}"#),
            ("wrong types", #"{"views": {"a": {"frame": "big"}}, "constraints": 5}"#),
            ("bad constraint", #"{"views": {"a": {}}, "constraints": {"c": "a.width == a.width * a.height"}}"#),
            ("division by zero", #"{"views": {"a": {}}, "constraints": {"c": "a.width == 1 / 0"}}"#),
            ("deep objects", String(repeating: #"{"a":"#, count: 5000) + "1" + String(repeating: "}", count: 5000)),
            ("deep arrays", String(repeating: "[", count: 100_000)),
            ("deep arrays closed", String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)),
            ("lone surrogate", #"{"views": {"\ud800": {}}}"#),
            ("control character", "{\"views\": {\"a\u{01}\": {}}}"),
            ("huge id", #"{"views": {""# + String(repeating: "x", count: 100_000) + #"": {}}}"#),
        ]
        return cases.map { ($0.0, Array($0.1.utf8)) } + [
            ("binary", binary),
            ("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]),
            ("byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"views": {"a": {}}}"#.utf8)),
            ("NUL bytes", [UInt8](repeating: 0, count: 64)),
        ]
    }()

    @Test("garbage on every route that takes a body answers a 4xx problem",
          arguments: bodies.indices)
    func garbage(_ index: Int) {
        let (name, bytes) = Self.bodies[index]
        let c = Client()
        c.put("s", Docs.small)
        let before = c.send("GET", "/v1/sessions/s")
        for (method, path) in [("POST", "/v1/solve"), ("POST", "/v1/sessions"), ("PUT", "/v1/sessions/s"),
                               ("PATCH", "/v1/sessions/s")] {
            let headers: [(name: String, value: String)] = method == "PATCH" ? [("Content-Type", "application/merge-patch+json")] : []
            let r = c.send(method, path, headers: headers, bytes: bytes)
            if name == "array" && method == "PATCH" || name == "null" && method == "PATCH" {
                // A non-object merge patch replaces the document: then it is not a valid document.
                T.expectProblem(r, 422)
                continue
            }
            #expect((400..<500).contains(r.status), "\(name) \(method) \(path): \(r.status) \(r.text.prefix(200))")
            #expect(r.header("Content-Type") == "application/problem+json", "\(name) \(method) \(path)")
            #expect(T.json(r)["status"]?.numberValue == Double(r.status), "\(name)")
        }
        #expect(c.send("GET", "/v1/sessions/s").body == before.body, "\(name)")
        #expect(c.api.sessionCount == 1, "\(name)")
    }

    @Test("a 10 MB body is a 413 with the default limit, and a 400 or 422 when the limit allows it")
    func tenMegabytes() {
        let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        T.expectProblem(Client().send("POST", "/v1/solve", bytes: garbage), 413)
        let roomy = Client(APIConfiguration(maxBodyBytes: 16_000_000))
        T.expectProblem(roomy.send("POST", "/v1/solve", bytes: garbage), 400)
        var array = "[" + String(repeating: "0,", count: 4_999_999) + "0]"
        T.expectProblem(roomy.send("POST", "/v1/solve", body: array), 422)
        array = #"{"views": {"r": {}}, "constraints": ["# + String(repeating: #""r.width >= 1","#, count: 600_000) + #""r.width >= 1"]}"#
        let r = roomy.send("POST", "/v1/solve", body: array)
        T.expectProblem(r, 422)
        #expect(T.json(r)["errors"]?.arrayValue?.first?["code"]?.stringValue == "too_many_constraints")
    }

    @Test("non-object values that are valid JSON are a 422 on the document routes")
    func notAnObject() {
        for body in ["null", "true", "1", "\"x\"", "[1, 2]"] {
            T.expectProblem(Client().send("POST", "/v1/solve", body: body), 422)
        }
    }

    @Test("400 answers name the line and column of the syntax error")
    func position() {
        let r = Client().send("POST", "/v1/sessions", body: "{\"views\": {\n\"a\": {},\n\"a\": {}}}")
        T.expectProblem(r, 400)
        #expect(T.json(r)["line"]?.numberValue == 3)
        #expect(T.json(r)["detail"]?.stringValue?.contains("line 3, column") == true)
    }
}
