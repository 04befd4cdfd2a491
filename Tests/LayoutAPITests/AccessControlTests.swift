import Access
import Foundation
import JSON
import LayoutAPI
import Storage
import Testing

/// A keys file in a temporary directory, and keys made for it (docs/http.md "Access control").
final class KeysFixture: @unchecked Sendable {
    let directory: String
    let path: String
    private(set) var keys: [String: String] = [:]
    private var records: [APIKeyRecord] = []

    init() {
        directory = NSTemporaryDirectory() + "layoutd-keys-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/keys"
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Adds a key and rewrites the file; returns the key.
    @discardableResult
    func add(_ name: String, tenant: String? = nil, readOnly: Bool = false, metrics: Bool = false,
             maxSessions: Int? = nil, rate: Double? = nil) -> String {
        let key = APIKeys.generate()
        keys[name] = key
        records.append(APIKeyRecord(name: name, tenant: tenant ?? name, digest: APIKeys.digest(of: key),
                                    readOnly: readOnly, metrics: metrics, maxSessions: maxSessions, rate: rate))
        write()
        return key
    }

    func revoke(_ name: String) {
        records.removeAll { $0.name == name }
        write()
    }

    private func write() {
        let text = records.map { KeyFile.line(for: $0) + "\n" }.joined()
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    func ring() throws -> KeyRing { try KeyRing(path: path) }
}

@Suite("Access control: keys, tenants, read-only keys, limits and stream tokens")
struct AccessControlTests {
    static let doc = #"{"views":{"root":{"frame":{"width":100,"height":100}},"a":{"parent":"root"}},"constraints":["a.edges == root.edges"]}"#
    static let other = #"{"views":{"root":{"frame":{"width":50,"height":50}}}}"#

    let keys = KeysFixture()
    /// What the limiter and the tokens read.
    let clock = TestClock()

    func client(storage: (any SessionStorage)? = nil, lifetime: Int = 300) throws -> Client {
        var configuration = APIConfiguration()
        let clock = self.clock
        configuration.access = AccessPolicy(keys: try keys.ring(), limiter: RateLimiter(clock: { clock.now }),
                                            tokenLifetimeSeconds: lifetime, now: { Int(clock.now) })
        return Client(api: LayoutAPI(configuration: configuration, storage: storage))
    }

    static func bearer(_ key: String) -> [(name: String, value: String)] { [("Authorization", "Bearer " + key)] }

    @Test("a /v1 request without a key, or with a key the file does not hold, answers 401 with WWW-Authenticate")
    func missingOrUnknownKey() throws {
        let real = keys.add("alice")
        let c = try client()
        let none = c.send("POST", "/v1/solve", body: Self.doc)
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == #"Bearer realm="layoutd""#)
        #expect(T.json(none)["type"]?.stringValue == "/problems/unauthorized")
        let wrong = c.send("POST", "/v1/solve", headers: Self.bearer(APIKeys.generate()), body: Self.doc)
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        let basic = c.send("POST", "/v1/solve", headers: [("Authorization", "Basic " + real)], body: Self.doc)
        #expect(basic.status == 401)
        for r in [none, wrong, basic] { #expect(!r.text.contains(real)) }
        #expect(c.send("POST", "/v1/solve", headers: Self.bearer(real), body: Self.doc).status == 200)
        #expect(c.send("POST", "/v1/solve", headers: [("authorization", "bearer  " + real)], body: Self.doc).status == 200)
    }

    @Test("probes, the playground, the client and the API description stay open; preflights need no key")
    func openRoutes() throws {
        keys.add("alice")
        let c = try client()
        for path in ["/healthz", "/readyz", "/", "/client.js", "/playground.js", "/openapi.json", "/openapi.yaml",
                     "/schemas/layout-document.json"] {
            #expect(c.send("GET", path).status == 200, "\(path)")
        }
        #expect(c.send("OPTIONS", "/v1/sessions/x").status == 204)
        #expect(c.send("GET", "/metrics").status == 401)
    }

    @Test("another tenant's key finds no session, even by its id, and makes its own under the same id")
    func tenantsAreNamespaces() throws {
        let alice = keys.add("alice"), alice2 = keys.add("alice-ci", tenant: "alice"), bob = keys.add("bob")
        let c = try client()
        #expect(c.send("PUT", "/v1/sessions/demo", headers: Self.bearer(alice), body: Self.doc).status == 201)
        for (method, path) in [("GET", "/v1/sessions/demo"), ("GET", "/v1/sessions/demo/frames"),
                               ("GET", "/v1/sessions/demo/render.svg"), ("GET", "/v1/sessions/demo/events"),
                               ("DELETE", "/v1/sessions/demo"), ("POST", "/v1/sessions/demo/tokens")] {
            let r = c.send(method, path, headers: Self.bearer(bob))
            #expect(r.status == 404, "\(method) \(path)")
            #expect(!r.text.contains("alice"), "the other tenant's name must not show: \(r.text)")
        }
        let patched = c.patch("/v1/sessions/demo", #"{"views":{"a":{"hidden":true}}}"#, headers: Self.bearer(bob))
        #expect(patched.status == 404)
        // Bob's own "demo" is another session.
        #expect(c.send("PUT", "/v1/sessions/demo", headers: Self.bearer(bob), body: Self.other).status == 201)
        let mine = c.send("GET", "/v1/sessions/demo", headers: Self.bearer(alice))
        #expect(mine.status == 200)
        #expect(T.json(mine)["id"]?.stringValue == "demo")
        #expect(T.json(mine)["revision"]?.numberValue == 1)
        #expect(T.frames(T.json(mine)["frames"])["root"] == [0, 0, 100, 100])
        #expect(T.frames(T.json(c.send("GET", "/v1/sessions/demo", headers: Self.bearer(bob)))["frames"])["root"] == [0, 0, 50, 50])
        // A second key of the same tenant shares its sessions (a key can be rotated).
        #expect(c.send("GET", "/v1/sessions/demo", headers: Self.bearer(alice2)).status == 200)
        #expect(c.send("DELETE", "/v1/sessions/demo", headers: Self.bearer(bob)).status == 204)
        #expect(c.send("GET", "/v1/sessions/demo", headers: Self.bearer(alice)).status == 200)
    }

    @Test("a server-chosen id and its Location name the session as its tenant sees it")
    func createdIDsHideTheTenant() throws {
        let alice = keys.add("alice")
        let c = try client()
        let r = c.send("POST", "/v1/sessions", headers: Self.bearer(alice), body: Self.doc)
        #expect(r.status == 201)
        let id = try #require(T.json(r)["id"]?.stringValue)
        #expect(id.count == 32 && !id.contains("alice") && !id.contains("/"))
        #expect(r.header("Location") == "/v1/sessions/" + id)
        #expect(c.send("GET", "/v1/sessions/" + id, headers: Self.bearer(alice)).status == 200)
    }

    @Test("an id holding a slash (%2F) names no session: it cannot reach another tenant's")
    func slashInIDCannotCrossTenants() throws {
        let alice = keys.add("alice"), bob = keys.add("bob")
        let c = try client()
        #expect(c.send("PUT", "/v1/sessions/demo", headers: Self.bearer(alice), body: Self.doc).status == 201)
        #expect(c.send("GET", "/v1/sessions/..%2Falice%2Fdemo", headers: Self.bearer(bob)).status == 404)
        #expect(c.send("GET", "/v1/sessions/alice%2Fdemo", headers: Self.bearer(bob)).status == 404)
        #expect(c.send("PUT", "/v1/sessions/alice%2Fdemo", headers: Self.bearer(bob), body: Self.doc).status == 400)
    }

    @Test("a read-only key reads, solves and draws, and every write answers 403")
    func readOnlyKeys() throws {
        let alice = keys.add("alice"), viewer = keys.add("viewer", tenant: "alice", readOnly: true)
        let c = try client()
        #expect(c.send("PUT", "/v1/sessions/demo", headers: Self.bearer(alice), body: Self.doc).status == 201)
        for (method, path) in [("GET", "/v1/sessions/demo"), ("HEAD", "/v1/sessions/demo"), ("GET", "/v1/sessions/demo/frames"),
                               ("GET", "/v1/sessions/demo/render.svg"), ("GET", "/v1/sessions/demo/events")] {
            #expect(c.send(method, path, headers: Self.bearer(viewer)).status == 200, "\(method) \(path)")
        }
        #expect(c.send("POST", "/v1/solve", headers: Self.bearer(viewer), body: Self.doc).status == 200)
        #expect(c.send("POST", "/v1/render.svg", headers: Self.bearer(viewer), body: Self.doc).status == 200)
        for (method, path, body) in [("PUT", "/v1/sessions/demo", Self.other), ("PUT", "/v1/sessions/new", Self.other),
                                     ("PATCH", "/v1/sessions/demo", #"{"views":{"a":{"hidden":true}}}"#),
                                     ("DELETE", "/v1/sessions/demo", ""), ("POST", "/v1/sessions", Self.doc)] {
            let r = c.send(method, path, headers: Self.bearer(viewer), body: body)
            #expect(r.status == 403, "\(method) \(path)")
            #expect(T.json(r)["type"]?.stringValue == "/problems/forbidden")
        }
        #expect(T.json(c.send("GET", "/v1/sessions/demo", headers: Self.bearer(alice)))["revision"]?.numberValue == 1)
        #expect(c.send("GET", "/v1/sessions/new", headers: Self.bearer(alice)).status == 404)
    }

    @Test("a key with a rate gets 429 with Retry-After and RateLimit headers beyond it, and its tokens back a second later")
    func rateLimits() throws {
        let limited = keys.add("limited", rate: 2), free = keys.add("free")
        let c = try client()
        for _ in 0..<2 {
            let r = c.send("POST", "/v1/solve", headers: Self.bearer(limited), body: Self.doc)
            #expect(r.status == 200)
            #expect(r.header("RateLimit-Policy") == #""key";q=2;w=1"#)
        }
        let refused = c.send("POST", "/v1/solve", headers: Self.bearer(limited), body: Self.doc)
        #expect(refused.status == 429)
        #expect(T.json(refused)["type"]?.stringValue == "/problems/rate-limited")
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(refused.header("RateLimit")?.hasPrefix(#""key";r=0;t="#) == true)
        // Another key is not held back by this one's bucket.
        #expect(c.send("POST", "/v1/solve", headers: Self.bearer(free), body: Self.doc).status == 200)
        clock.advance(1)
        #expect(c.send("POST", "/v1/solve", headers: Self.bearer(limited), body: Self.doc).status == 200)
    }

    @Test("a tenant at its session quota gets 429 session-quota; other tenants and deletes are unaffected",
          arguments: [false, true])
    func sessionQuota(stored: Bool) throws {
        let small = keys.add("small", maxSessions: 2), big = keys.add("big")
        let c = try client(storage: stored ? MemorySessionStorage() : nil)
        #expect(c.send("PUT", "/v1/sessions/a", headers: Self.bearer(small), body: Self.doc).status == 201)
        #expect(c.send("POST", "/v1/sessions", headers: Self.bearer(small), body: Self.doc).status == 201)
        let over = c.send("PUT", "/v1/sessions/c", headers: Self.bearer(small), body: Self.doc)
        #expect(over.status == 429)
        #expect(T.json(over)["type"]?.stringValue == "/problems/session-quota")
        #expect(c.send("POST", "/v1/sessions", headers: Self.bearer(small), body: Self.doc).status == 429)
        // Replacing a session it holds is not a new one.
        #expect(c.send("PUT", "/v1/sessions/a", headers: Self.bearer(small), body: Self.other).status == 200)
        for i in 0..<3 {
            #expect(c.send("PUT", "/v1/sessions/b\(i)", headers: Self.bearer(big), body: Self.doc).status == 201)
        }
        #expect(c.send("DELETE", "/v1/sessions/a", headers: Self.bearer(small)).status == 204)
        #expect(c.send("PUT", "/v1/sessions/c", headers: Self.bearer(small), body: Self.doc).status == 201)
    }

    @Test("a stream token reads its own session only, only by GET, until it expires or its key is revoked")
    func streamTokens() throws {
        let alice = keys.add("alice")
        let c = try client(lifetime: 60)
        #expect(c.send("PUT", "/v1/sessions/demo", headers: Self.bearer(alice), body: Self.doc).status == 201)
        #expect(c.send("PUT", "/v1/sessions/other", headers: Self.bearer(alice), body: Self.doc).status == 201)
        let issued = c.send("POST", "/v1/sessions/demo/tokens", headers: Self.bearer(alice))
        #expect(issued.status == 201)
        #expect(issued.header("Cache-Control") == "no-store")
        #expect(T.json(issued)["expiresIn"]?.numberValue == 60)
        let token = try #require(T.json(issued)["token"]?.stringValue)
        #expect(!token.contains(alice))
        let q = "access_token=" + token
        #expect(c.send("GET", "/v1/sessions/demo/events", query: q).status == 200)
        #expect(c.send("GET", "/v1/sessions/demo/render.svg", query: q).status == 200)
        #expect(c.send("GET", "/v1/sessions/demo/frames", query: q).status == 200)
        #expect(c.send("GET", "/v1/sessions/other/events", query: q).status == 401)
        #expect(c.patch("/v1/sessions/demo", #"{"views":{"a":{"hidden":true}}}"#, query: q).status == 401)
        #expect(c.send("POST", "/v1/solve", query: q, body: Self.doc).status == 401)
        #expect(c.send("POST", "/v1/sessions/demo/tokens", query: q).status == 401)
        #expect(c.send("POST", "/v1/sessions/nope/tokens", headers: Self.bearer(alice)).status == 404)
        clock.advance(61)
        #expect(c.send("GET", "/v1/sessions/demo/events", query: q).status == 401)
        // A fresh token dies with its key.
        let fresh = try #require(T.json(c.send("POST", "/v1/sessions/demo/tokens", headers: Self.bearer(alice)))["token"]?.stringValue)
        #expect(c.send("GET", "/v1/sessions/demo/frames", query: "access_token=" + fresh).status == 200)
        keys.revoke("alice")
        keys.add("bob")
        let ring = try #require(c.api.configuration.access?.keys)
        ring.reload()
        #expect(c.send("GET", "/v1/sessions/demo/frames", query: "access_token=" + fresh).status == 401)
        #expect(c.send("GET", "/v1/sessions/demo", headers: Self.bearer(alice)).status == 401)
    }

    @Test("/metrics needs a key made with --metrics")
    func metricsNeedTheMetricsFlag() throws {
        let alice = keys.add("alice"), prometheus = keys.add("prometheus", readOnly: true, metrics: true)
        let c = try client()
        #expect(c.send("GET", "/metrics", headers: Self.bearer(alice)).status == 403)
        #expect(c.send("GET", "/metrics", headers: Self.bearer(prometheus)).status == 200)
    }

    @Test("answers name the key's name for the access log and the tenant for metrics, never the key")
    func answersCarryTheKeyName() throws {
        let alice = keys.add("alice-laptop", tenant: "alice")
        let c = try client()
        let r = c.send("POST", "/v1/solve", headers: Self.bearer(alice), body: Self.doc)
        #expect(r.keyName == "alice-laptop")
        #expect(r.tenant == "alice")
        #expect(!r.headers.contains { $0.value.contains(alice) })
    }
}
