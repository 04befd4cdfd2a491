import Testing
import LayoutAPI

@Suite("CORS")
struct CORSTests {
    let c = Client(APIConfiguration(corsOrigins: ["https://app.example", "http://localhost:3000"]))

    @Test("a preflight from a configured origin answers 204 with methods, headers and the origin")
    func preflight() {
        let r = c.send("OPTIONS", "/v1/sessions/abc", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "PATCH"),
            ("Access-Control-Request-Headers", "content-type, if-match"),
        ])
        #expect(r.status == 204)
        #expect(r.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(r.header("Access-Control-Allow-Methods") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
        #expect(r.header("Access-Control-Allow-Headers")?.contains("Content-Type") == true)
        #expect(r.header("Access-Control-Allow-Headers")?.contains("If-Match") == true)
        #expect(r.header("Access-Control-Max-Age") != nil)
        #expect(r.header("Vary") == "Origin")
        let solve = c.send("OPTIONS", "/v1/solve", headers: [
            ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(solve.status == 204)
        #expect(solve.header("Access-Control-Allow-Methods") == "POST, OPTIONS")
    }

    @Test("responses to a configured origin carry Allow-Origin, Vary and the exposed headers, errors included")
    func simple() {
        let r = c.send("POST", "/v1/sessions", headers: [("origin", "https://app.example")], body: Docs.small)
        #expect(r.status == 201)
        #expect(r.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(r.header("Vary") == "Origin")
        #expect(r.header("Access-Control-Expose-Headers") == "ETag, Location, Server-Timing, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate")
        let e = c.send("GET", "/v1/sessions/none", headers: [("Origin", "https://app.example")])
        #expect(e.status == 404)
        #expect(e.header("Access-Control-Allow-Origin") == "https://app.example")
    }

    @Test("other origins get no Allow-Origin (only Vary), and without configured origins no CORS headers at all")
    func others() {
        for origin in ["https://evil.example", "https://app.example.evil", "HTTPS://APP.EXAMPLE", "null"] {
            let r = c.send("OPTIONS", "/v1/solve", headers: [("Origin", origin), ("Access-Control-Request-Method", "POST")])
            #expect(r.status == 204)
            #expect(r.header("Access-Control-Allow-Origin") == nil, "\(origin)")
            #expect(r.header("Vary") == "Origin")
        }
        let plain = Client().send("GET", "/healthz", headers: [("Origin", "https://app.example")])
        #expect(plain.header("Access-Control-Allow-Origin") == nil)
        #expect(plain.header("Vary") == nil)
    }

    @Test("'*' allows any origin")
    func wildcard() {
        let any = Client(APIConfiguration(corsOrigins: ["*"]))
        let r = any.send("GET", "/healthz", headers: [("Origin", "https://whoever.example")])
        #expect(r.header("Access-Control-Allow-Origin") == "https://whoever.example")
        #expect(any.send("GET", "/healthz").header("Access-Control-Allow-Origin") == nil)
    }
}
