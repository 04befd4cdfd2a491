import Testing
import Foundation
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

    @Test("scheme://host:* allows that scheme and host on any port (or none), nothing that merely starts alike")
    func anyPort() {
        let cors = CORS(origins: ["http://localhost:*"])
        for origin in ["http://localhost:5173", "http://localhost:1", "http://localhost:65535", "http://localhost"] {
            #expect(cors.allows(origin), "\(origin)")
        }
        for origin in ["http://localhost:", "http://localhost:5173/", "http://localhost:123456", "http://localhost.evil",
                       "http://localhost.evil:80", "https://localhost:5173", "http://localhost:80x", "http://localhost:*"] {
            #expect(!cors.allows(origin), "\(origin)")
        }
        #expect(CORS.isPattern("http://localhost:*") && CORS.isPattern("*") && CORS.isPattern("https://a.example:8443"))
        #expect(!CORS.isPattern("http://*.example") && !CORS.isPattern("http://localhost:8*") && !CORS.isPattern("http://a/"))
    }

    @Test("each refused origin is reported once; the daemon's own origin and allowed ones never")
    func refusedOnce() {
        final class Reports: @unchecked Sendable {
            let lock = NSLock()
            var origins: [String] = []
            func add(_ origin: String) { lock.withLock { origins.append(origin) } }
        }
        let reported = Reports()
        var configuration = APIConfiguration(corsOrigins: ["https://app.example"])
        configuration.onRefusedOrigin = { origin in reported.add(origin) }
        let c = Client(configuration)
        for _ in 0..<3 {
            c.send("OPTIONS", "/v1/solve", headers: [("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "POST")])
        }
        c.send("GET", "/healthz", headers: [("Origin", "https://app.example")])
        c.send("POST", "/v1/solve", headers: [("Origin", "http://127.0.0.1:8080"), ("Host", "127.0.0.1:8080")], body: Docs.small)
        c.send("GET", "/healthz", headers: [("Origin", "null")])
        #expect(reported.lock.withLock { reported.origins } == ["http://localhost:5173", "null"])
    }

    @Test("transport headers: Vary for every origin, Allow-Origin and Expose-Headers for an allowed one, nothing when off")
    func transportHeaders() {
        let cors = CORS(origins: ["http://localhost:*"])
        #expect(cors.transportHeaders(origin: "http://localhost:3000").map(\.name)
                == ["Vary", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers"])
        #expect(cors.transportHeaders(origin: "http://evil.example").map(\.name) == ["Vary"])
        #expect(cors.transportHeaders(origin: nil).map(\.name) == ["Vary"])
        #expect(CORS(origins: []).transportHeaders(origin: "http://localhost:3000").isEmpty)
    }
}
