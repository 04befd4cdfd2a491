import Foundation
import JSON
import Testing
import TestSupport

/// The shipped nginx configuration (deploy/nginx/layoutd.conf, docs/deploy.md "The edge") run by a
/// real nginx in front of a real layoutd: what its public and internal servers answer, the request
/// id they pass on and log, which PATCHes they send to a second node, and TLS with a certificate the
/// test makes. No PostgreSQL: one node (or a node that drops every request) is enough for the edge.
@Suite("nginx edge: deploy/nginx/layoutd.conf", .serialized)
struct EdgeNginxTests {
    static let doc = #"{"views":{"root":{"frame":{"width":100,"height":100}},"a":{"parent":"root"}},"constraints":["a.edges == root.edges"]}"#
    static let node = "max_fails=1 fail_timeout=2s"

    /// The routes only the internal server answers (each answers 200 on the node itself).
    static let hidden = ["/metrics", "/openapi.json", "/openapi.yaml", "/schemas/layout-document.json", "/", "/playground.js", "/client.js"]

    @Test("nginx -t accepts the shipped file with only its node list, listen lines and log paths replaced")
    func shippedConfigurationPassesNginxTest() throws {
        let edge = try EdgeNginx(nodes: ["127.0.0.1:1 \(Self.node)", "127.0.0.1:2 \(Self.node)"])
        let check = try edge.test()
        #expect(check.status == 0, "nginx -t: \(check.output)")
        #expect(check.output.contains("syntax is ok"), "\(check.output)")
        let shipped = try EdgeNginx.shippedConfig()
        #expect(shipped.contains("server_tokens off;"))
        let nodeHeaders = shipped.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("add_header X-Layoutd-Node") }
        #expect(nodeHeaders.count == 1, "X-Layoutd-Node is added by the internal server only: \(nodeHeaders)")
    }

    @Test("the public server answers /v1/ and the health routes; /metrics, /openapi.*, /schemas and the playground answer 404 there and 200 on the internal server")
    func publicAndInternalRoutes() throws {
        let daemon = try Daemon()
        let edge = try EdgeNginx(nodes: ["127.0.0.1:\(daemon.port) \(Self.node)"])
        try edge.start()
        let pub = try edge.publicConnection(), inner = try edge.internalConnection()

        // Exposed: the API and the health routes, through the public server.
        #expect(try pub.get("/healthz").status == 200)
        #expect(try pub.get("/readyz").status == 200)
        #expect(try pub.post("/v1/solve", Self.doc).status == 200)
        let created = try pub.post("/v1/sessions", Self.doc)
        #expect(created.status == 201, "\(created.status) \(created.text.prefix(200))")
        let id = try #require(try created.json()["id"]?.stringValue)
        #expect(try pub.get("/v1/sessions/\(id)").status == 200)
        #expect(try pub.get("/v1/sessions/\(id)/frames").status == 200)

        // Hidden: a 404 problem from nginx on the public server, the node's answer on the internal one.
        for path in Self.hidden {
            #expect(try daemon.connect().get(path).status == 200, "\(path) on the node itself")
            let refused = try edge.publicConnection().get(path)
            #expect(refused.status == 404 && refused.problemType == "/problems/not-found"
                        && refused.header("Content-Type") == "application/problem+json", "\(path) public: \(refused.status) \(refused.text.prefix(120))")
            #expect(try edge.internalConnection().get(path).status == 200, "\(path) internal")
        }

        // No version in Server, no node address on the public server; the internal one says which node.
        let answer = try pub.get("/healthz")
        #expect(answer.header("Server") == "nginx", "Server: \(answer.header("Server") ?? "-")")
        #expect(answer.header("X-Layoutd-Node") == nil, "a node address on the public server")
        let refused = try edge.publicConnection().get("/metrics")
        #expect(refused.header("Server") == "nginx" && refused.header("X-Layoutd-Node") == nil)
        let inside = try inner.get("/healthz")
        #expect(inside.header("X-Layoutd-Node") == "127.0.0.1:\(daemon.port)", "\(inside.header("X-Layoutd-Node") ?? "-")")
        #expect(inside.header("Server") == "nginx")
    }

    @Test("X-Request-Id: the client's reaches the node and comes back; without one nginx's own is sent; nginx's log and the node's carry the same id")
    func requestIdJoinsTheLogs() throws {
        let daemon = try Daemon()
        let edge = try EdgeNginx(nodes: ["127.0.0.1:\(daemon.port) \(Self.node)"])
        try edge.start()
        let mine = "edge-test-\(UUID().uuidString.prefix(8))"
        let echoed = try edge.publicConnection().get("/healthz", headers: [("X-Request-Id", mine)])
        #expect(echoed.header("X-Request-Id") == mine)
        let generated = try edge.publicConnection().post("/v1/solve", Self.doc)
        let theirs = try #require(generated.header("X-Request-Id"))
        #expect(theirs.count == 32 && theirs.allSatisfy(\.isHexDigit), "nginx's $request_id: \(theirs)")

        for id in [mine, theirs] {
            // The node logs each request (access log, info) and nginx one JSON line per request.
            #expect(eventually(timeout: 5, pollEvery: 0.02) { daemon.stderr.contains("id=\(id)") || daemon.stderr.contains(#""\#(id)""#) },
                    "\(id) in the node's log: \(daemon.stderr.suffix(600))")
            let lines = eventually(timeout: 5, pollEvery: 0.02, { edge.accessLog }, satisfies: { $0.contains(id) })
                .split(separator: "\n").filter { $0.contains(id) }
            #expect(lines.count == 1)
            let entry = try JSONParser.parse(Array((lines.first ?? "").utf8))
            #expect(entry["request_id"]?.stringValue == id && entry["node_request_id"]?.stringValue == id, "\(lines)")
            #expect(entry["client"]?.stringValue == "127.0.0.1" && entry["node"]?.stringValue == "127.0.0.1:\(daemon.port)")
        }
    }

    @Test("a hand-made file in layoutd.d/public/ changes the public server: X-Layoutd-Node shown only when an include asks for it")
    func nodeHeaderOnlyWhenIncluded() throws {
        let daemon = try Daemon()
        let edge = try EdgeNginx(nodes: ["127.0.0.1:\(daemon.port) \(Self.node)"])
        try edge.start()
        #expect(try edge.publicConnection().get("/healthz").header("X-Layoutd-Node") == nil)
        edge.stop()
        try edge.include("public/node-header.conf", "add_header X-Layoutd-Node $upstream_addr always;\n")
        try edge.start()
        #expect(try edge.publicConnection().get("/healthz").header("X-Layoutd-Node") == "127.0.0.1:\(daemon.port)")
    }

    @Test("a PATCH with If-Match that reached a node which died before answering goes to the next node; without If-Match, or with *, it does not (502)")
    func patchRetriedOnlyWithIfMatch() throws {
        let daemon = try Daemon()
        let dropper = try ClosingNode()
        // max_fails=0: the dropping node stays in the ring, so every request hashed to it tries it first.
        let edge = try EdgeNginx(nodes: ["127.0.0.1:\(dropper.port) max_fails=0", "127.0.0.1:\(daemon.port) max_fails=0"])
        try edge.start()
        let direct = try daemon.connect()
        let patch = #"{"views":{"root":{"frame":{"width":120,"height":100}}}}"#
        var dropped: [String] = []
        for n in 0..<24 {
            let id = "retry-\(n)-\(UUID().uuidString.prefix(6).lowercased())"
            #expect(try direct.put("/v1/sessions/\(id)", Self.doc).status == 201)
            let before = dropper.taken
            let plain = try edge.publicConnection().patch("/v1/sessions/\(id)", patch)
            if dropper.taken > before {
                // Hashed to the dropping node: nginx does not send a PATCH without If-Match again.
                #expect(plain.status == 502 && plain.problemType == "/problems/node-unavailable", "\(id): \(plain.status)")
                dropped.append(id)
            } else {
                #expect(plain.status == 200, "\(id): \(plain.status)")
            }
        }
        #expect(dropped.count >= 3, "only \(dropped.count) of 24 sessions hashed to the dropping node")
        for id in dropped {
            let (_, revision) = try Cluster.document(direct, id)
            #expect(revision == 1, "\(id): the 502 PATCH changed nothing")
            let star = try edge.publicConnection().patch("/v1/sessions/\(id)", patch, headers: [("If-Match", "*")])
            #expect(star.status == 502, "\(id) with If-Match *: \(star.status)")
            let etag = try #require(try direct.get("/v1/sessions/\(id)").header("ETag"))
            let before = dropper.taken
            let retried = try edge.publicConnection().patch("/v1/sessions/\(id)", patch, headers: [("If-Match", etag)])
            #expect(retried.status == 200 && dropper.taken > before, "\(id) with If-Match \(etag): \(retried.status), tried the dropping node: \(dropper.taken > before)")
            #expect(try Cluster.document(direct, id).revision == 2, "\(id): applied once")
        }
    }

    @Test("TLS termination: deploy/nginx/tls.conf with a certificate made by openssl, and curl through it verifying that certificate")
    func tlsWithSelfSignedCertificate() throws {
        let openssl = try Self.tool("openssl"), curl = try Self.tool("curl")
        let daemon = try Daemon()
        let edge = try EdgeNginx(nodes: ["127.0.0.1:\(daemon.port) \(Self.node)"])
        let dir = edge.directory.url.path
        let made = try MetricsTests.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                                                  "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                                  "-keyout", dir + "/tls.key", "-out", dir + "/tls.crt"])
        #expect(made.status == 0, "openssl: \(made.output)")
        let tlsPort = try freeLoopbackPort()
        let shipped = try EdgeNginx.shippedConfig("tls.conf")
        #expect(shipped.contains("listen 127.0.0.1:8443 ssl;") && shipped.contains("/etc/nginx/tls/layoutd.crt"))
        try edge.include("public/tls.conf", shipped
            .replacingOccurrences(of: "listen 127.0.0.1:8443 ssl;", with: "listen 127.0.0.1:\(tlsPort) ssl;")
            .replacingOccurrences(of: "/etc/nginx/tls/layoutd.crt", with: dir + "/tls.crt")
            .replacingOccurrences(of: "/etc/nginx/tls/layoutd.key", with: dir + "/tls.key"))
        try edge.start()

        func status(_ path: String, _ extra: [String] = []) throws -> String {
            try MetricsTests.run(curl, ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{ssl_verify_result}", "--cacert", dir + "/tls.crt"]
                                 + extra + ["https://localhost:\(tlsPort)\(path)", "--resolve", "localhost:\(tlsPort):127.0.0.1"]).output
        }
        #expect(try status("/healthz") == "200 0", "the certificate verified, the node answered")
        #expect(try status("/metrics") == "404 0", "a hidden route stays hidden over TLS")
        #expect(try status("/v1/solve", ["-X", "POST", "--data", Self.doc]) == "200 0")
    }

    /// A tool's path, or a failure naming it (scripts/test installs openssl and curl with nginx).
    static func tool(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        throw TestFailure("\(name) is not installed")
    }
}
