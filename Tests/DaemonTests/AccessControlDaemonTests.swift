import Foundation
import JSON
import Testing
import TestSupport

/// Access control on the real daemon (issue 29): keys made with `layoutd keys new`, `serve
/// --api-keys`, every route against every kind of caller, revocation by file change and by SIGHUP,
/// protected mode, and the key kept out of the log.
@Suite("Access control on the daemon", .serialized)
struct AccessControlDaemonTests {
    static let doc = #"{"views":{"root":{"frame":{"width":100,"height":100}},"a":{"parent":"root"}},"constraints":["a.edges == root.edges"]}"#

    /// `layoutd keys new NAME --file FILE …`: the key (its last line of output).
    static func newKey(_ name: String, file: String, _ extra: [String] = []) throws -> String {
        let made = try LayoutdBinary.run(["keys", "new", name, "--file", file] + extra)
        guard made.status == 0, let key = made.stdout.split(separator: "\n").last.map(String.init), key.hasPrefix("lk_") else {
            throw TestFailure("keys new \(name) failed (\(made.status)): \(made.stderr)")
        }
        return key
    }

    static func bearer(_ key: String) -> [(String, String)] { [("Authorization", "Bearer " + key)] }

    /// Who calls, in the route table below.
    enum Caller: String, CaseIterable { case none, wrong, readOnly, otherTenant, sameTenant }

    @Test("every route answers each caller as its key allows: none and wrong 401, read-only reads only, another tenant 404, the same tenant's second key as the first")
    func everyRouteAgainstEveryCaller() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        let owner = try Self.newKey("alice", file: file)
        let keys: [Caller: String] = [
            .wrong: "lk_" + String(repeating: "A", count: 43),
            .readOnly: try Self.newKey("alice-viewer", file: file, ["--tenant", "alice", "--read-only"]),
            .otherTenant: try Self.newKey("bob", file: file),
            .sameTenant: try Self.newKey("alice-ci", file: file, ["--tenant", "alice"]),
        ]
        let daemon = try Daemon(["--api-keys", file])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/demo", Self.doc, headers: Self.bearer(owner)).status == 201)
        let patch = #"{"views":{"a":{"hidden":true}}}"#
        // (method, path, body, expected status by caller) — writes go to a fresh id or undo themselves.
        typealias Row = (String, String, String, [Caller: Int])
        let rows: [Row] = [
            ("POST", "/v1/solve", Self.doc, [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
            ("POST", "/v1/render.svg", Self.doc, [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
            ("POST", "/v1/sessions", Self.doc, [.none: 401, .wrong: 401, .readOnly: 403, .otherTenant: 201, .sameTenant: 201]),
            ("GET", "/v1/sessions/demo", "", [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 404, .sameTenant: 200]),
            ("HEAD", "/v1/sessions/demo", "", [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 404, .sameTenant: 200]),
            ("GET", "/v1/sessions/demo/frames", "", [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 404, .sameTenant: 200]),
            ("GET", "/v1/sessions/demo/render.svg", "", [.none: 401, .wrong: 401, .readOnly: 200, .otherTenant: 404, .sameTenant: 200]),
            ("POST", "/v1/sessions/demo/tokens", "", [.none: 401, .wrong: 401, .readOnly: 201, .otherTenant: 404, .sameTenant: 201]),
            ("PATCH", "/v1/sessions/demo", patch, [.none: 401, .wrong: 401, .readOnly: 403, .otherTenant: 404, .sameTenant: 200]),
            ("PUT", "/v1/sessions/demo", Self.doc, [.none: 401, .wrong: 401, .readOnly: 403, .otherTenant: 201, .sameTenant: 200]),
            ("GET", "/metrics", "", [.none: 401, .wrong: 401, .readOnly: 403, .otherTenant: 403, .sameTenant: 403]),
            ("GET", "/healthz", "", [.none: 200, .wrong: 200, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
            ("GET", "/readyz", "", [.none: 200, .wrong: 200, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
            ("GET", "/openapi.json", "", [.none: 200, .wrong: 200, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
            ("GET", "/", "", [.none: 200, .wrong: 200, .readOnly: 200, .otherTenant: 200, .sameTenant: 200]),
        ]
        for (method, path, body, expected) in rows {
            for caller in Caller.allCases {
                let headers = caller == .none ? [] : Self.bearer(keys[caller]!)
                let contentType: [(String, String)] = method == "PATCH" ? [("Content-Type", "application/merge-patch+json")] : []
                let r = try c.request(method, path, headers: headers + contentType, body: Array(body.utf8))
                #expect(r.status == expected[caller], "\(method) \(path) as \(caller.rawValue): \(r.status) \(r.text.prefix(200))")
                if r.status == 401 { #expect(r.header("WWW-Authenticate")?.hasPrefix("Bearer realm=\"layoutd\"") == true) }
                if r.status == 403 { #expect(r.problemType == "/problems/forbidden") }
            }
        }
        // DELETE last: the other tenant's finds nothing, the same tenant's deletes the shared session.
        for (caller, status) in [(Caller.none, 401), (.wrong, 401), (.readOnly, 403), (.otherTenant, 204), (.sameTenant, 204)] {
            let headers = caller == .none ? [] : Self.bearer(keys[caller]!)
            #expect(try c.request("DELETE", "/v1/sessions/demo", headers: headers).status == status, "DELETE as \(caller.rawValue)")
        }
        #expect(try c.get("/v1/sessions/demo", headers: Self.bearer(owner)).status == 404)
        // Access lines are written by the log's own thread.
        let log = eventually(timeout: 5, { daemon.stderr }, satisfies: { $0.contains("DELETE /v1/sessions/demo 204") })
        #expect(log.contains("key=alice-ci"))
        for key in keys.values + [owner] { #expect(!log.contains(key), "a key reached the log") }
    }

    @Test("a key revoked in the file is refused within two seconds; SIGHUP reads a change the watcher cannot see")
    func revocation() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        let alice = try Self.newKey("alice", file: file)
        let bob = try Self.newKey("bob", file: file)
        let daemon = try Daemon(["--api-keys", file])
        let c = try daemon.connect()
        #expect(try c.post("/v1/solve", Self.doc, headers: Self.bearer(alice)).status == 200)
        let revoked = try LayoutdBinary.run(["keys", "revoke", "alice", "--file", file])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let started = Date()
        #expect(eventually(timeout: 2) { (try? c.post("/v1/solve", Self.doc, headers: Self.bearer(alice)).status) == 401 })
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try c.post("/v1/solve", Self.doc, headers: Self.bearer(bob)).status == 200)

        // Bob's hash replaced in place by one of the same length, size and modification time kept:
        // the watcher sees no change, SIGHUP makes the daemon read the file.
        var before = stat()
        #expect(stat(file, &before) == 0)
        var text = try String(contentsOfFile: file, encoding: .utf8)
        let bobLine = try #require(text.range(of: "bob "))
        let hashStart = try #require(text.range(of: "sha256=", range: bobLine.lowerBound..<text.endIndex))
        let digest = hashStart.upperBound..<text.index(hashStart.upperBound, offsetBy: 64)
        text.replaceSubrange(digest, with: String(repeating: "0", count: 64))
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
        // To the nanosecond (the watcher compares st_mtim whole).
        let times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, file, times, 0) == 0)
        #expect(try c.post("/v1/solve", Self.doc, headers: Self.bearer(bob)).status == 200)
        daemon.signal(SIGHUP)
        #expect(eventually(timeout: 2) { (try? c.post("/v1/solve", Self.doc, headers: Self.bearer(bob)).status) == 401 })
        #expect(daemon.isRunning)
    }

    @Test("a keys file broken while serving keeps the keys read before, and the log says why")
    func malformedFileLaterKeepsKeys() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        let alice = try Self.newKey("alice", file: file)
        let daemon = try Daemon(["--api-keys", file])
        let c = try daemon.connect()
        let appended = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try appended.seekToEnd()
        try appended.write(contentsOf: Data("mallory tenant=m sha256=nothex\n".utf8))
        try appended.close()
        #expect(eventually(timeout: 3) { daemon.stderr.contains("keys:2:") || daemon.stderr.contains("keys:2 ") })
        #expect(try c.post("/v1/solve", Self.doc, headers: Self.bearer(alice)).status == 200)
    }

    @Test("a malformed keys file stops the start with status 64 naming its line")
    func malformedFileAtStart() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("keys", Array("# keys\nalice tenant=alice sha256=12\n".utf8))
        let run = try LayoutdBinary.run(["serve", "--port", "0", "--api-keys", file], timeout: 20)
        #expect(run.status == 64)
        #expect(run.stderr.contains(file + ":2"), "\(run.stderr)")
    }

    @Test("protected mode: a non-loopback host without keys exits 64 naming --api-keys and --allow-anonymous; --allow-anonymous opens it")
    func protectedMode() throws {
        let refused = try LayoutdBinary.run(["serve", "--host", "0.0.0.0", "--port", "0"], timeout: 20)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--api-keys") && refused.stderr.contains("--allow-anonymous"), "\(refused.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        environment["LAYOUTD_HOST"] = "0.0.0.0"
        let byEnvironment = try LayoutdBinary.run(["serve", "--port", "0"], environment: environment, timeout: 20)
        #expect(byEnvironment.status == 64)
        let open = try Daemon(["--host", "0.0.0.0", "--allow-anonymous"])
        #expect(eventually { open.stderr.contains("access control: none (--allow-anonymous") }, "\(open.stderr)")
        let c = try open.connect()
        #expect(try c.post("/v1/solve", Self.doc).status == 200)
        // Loopback stays open without keys, as before.
        let local = try Daemon()
        #expect(try local.connect().post("/v1/solve", Self.doc).status == 200)
    }

    @Test("a tenant's sessions stay its own across a restart on the same store")
    func tenantsSurviveRestarts() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        let store = "sqlite:" + dir.url.appendingPathComponent("sessions.db").path
        let alice = try Self.newKey("alice", file: file)
        let bob = try Self.newKey("bob", file: file)
        do {
            let daemon = try Daemon(["--api-keys", file, "--store", store])
            let c = try daemon.connect()
            #expect(try c.put("/v1/sessions/demo", Self.doc, headers: Self.bearer(alice)).status == 201)
            #expect(try c.put("/v1/sessions/demo", #"{"views":{"root":{"frame":{"width":7,"height":7}}}}"#,
                              headers: Self.bearer(bob)).status == 201)
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 10) == 0)
        }
        let rotated = try Self.newKey("alice-2", file: file, ["--tenant", "alice"])
        #expect(try LayoutdBinary.run(["keys", "revoke", "alice", "--file", file]).status == 0)
        let daemon = try Daemon(["--api-keys", file, "--store", store])
        let c = try daemon.connect()
        let mine = try c.get("/v1/sessions/demo", headers: Self.bearer(rotated))
        #expect(mine.status == 200)
        #expect(Judge.frames(try mine.json()["frames"])["root"] == [0, 0, 100, 100])
        let bobs = try c.get("/v1/sessions/demo", headers: Self.bearer(bob))
        #expect(Judge.frames(try bobs.json()["frames"])["root"] == [0, 0, 7, 7])
        #expect(try c.get("/v1/sessions/demo", headers: Self.bearer(alice)).status == 401)
    }
}
