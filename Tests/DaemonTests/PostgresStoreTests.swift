import Foundation
import JSON
import Testing
import TestSupport

/// The daemon on a PostgreSQL store whose server goes away and comes back (issue 22): requests that
/// need the store answer 503 with Retry-After meanwhile, full service resumes without restarting
/// layoutd, and nothing acknowledged is lost. The test has a PostgreSQL server of its own
/// (scripts/lib/postgres.sh in a temporary directory, on a free port): it stops and starts it,
/// which the server other suites share in parallel must not see.
@Suite("PostgreSQL store on the daemon", .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil,
                                                  "LAYOUTD_TEST_POSTGRES is not set (scripts/test sets it)"))
struct PostgresStoreTests {
    /// A private PostgreSQL server, stopped (and its directory removed) when dropped.
    final class PrivateServer {
        let directory: TemporaryDirectory
        let port: Int
        private(set) var url = ""

        init() throws {
            directory = try TemporaryDirectory()
            port = try freeLoopbackPort()
            try start()
        }

        deinit { try? stop() }

        var dataDirectory: String { directory.url.path + "/pg" }

        func start() throws { url = try Self.script("postgres_start \"$1\" \"$2\"", dataDirectory, String(port)) }
        func stop() throws { _ = try Self.script("postgres_stop \"$1\"", dataDirectory) }

        /// Runs `command` with scripts/lib/postgres.sh loaded; answers its output, trimmed.
        static func script(_ command: String, _ arguments: String...) throws -> String {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            // Output to files, not pipes: the server it starts must hold no pipe of ours open.
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-pg-\(UUID().uuidString)")
            FileManager.default.createFile(atPath: out.path + ".out", contents: nil)
            FileManager.default.createFile(atPath: out.path + ".err", contents: nil)
            defer { try? FileManager.default.removeItem(atPath: out.path + ".out"); try? FileManager.default.removeItem(atPath: out.path + ".err") }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "source \"\(root.path)/scripts/lib/postgres.sh\" && \(command)", "postgres.sh"] + arguments
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out.path + ".out"))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: out.path + ".err"))
            process.standardInput = FileHandle.nullDevice
            // ChildExit, not waitUntilExit: see there why the latter can wait forever.
            let exit = ChildExit(process)
            try process.run()
            guard exit.wait(timeout: 120) else {
                exit.kill()
                throw TestFailure("\(command) did not finish within 120 s")
            }
            let stdout = (try? String(contentsOfFile: out.path + ".out", encoding: .utf8)) ?? ""
            guard exit.shellStatus == 0 else {
                throw TestFailure("\(command) failed: \((try? String(contentsOfFile: out.path + ".err", encoding: .utf8)) ?? "")")
            }
            return stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func daemon(_ server: PrivateServer) throws -> Daemon {
        try Daemon(["--store", server.url, "--log-level", "warning"])
    }

    static func patch(_ c: RawHTTPConnection, _ value: Int) throws -> RawHTTPResponse {
        try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":\#(value)}}}"#)
    }

    /// Retries `body` until it answers `status` (a 503 meanwhile), up to `seconds`.
    static func until(_ status: Int, seconds: Double = 20, _ body: () throws -> RawHTTPResponse) throws -> RawHTTPResponse {
        try eventually(timeout: seconds, pollEvery: 0.1, body) { last in
            if last.status == status { return true }
            #expect(last.status == 503, "while waiting for \(status): \(last.status) \(last.text)")
            return false
        }
    }

    static func expectUnavailable(_ name: String, _ r: RawHTTPResponse) {
        #expect(r.status == 503 && r.header("Retry-After") != nil, "\(name): \(r.status) \(r.text)")
        #expect(r.header("Content-Type")?.hasPrefix("application/problem+json") == true, "\(name)")
        #expect(r.problemType == "/problems/store-unavailable", "\(name): \(r.text)")
    }

    @Test("PostgreSQL stopped and started again: 503 with Retry-After while it is away, full service after without a restart, nothing acknowledged lost; a node started while it is away comes up and waits for it")
    func serverAwayAndBack() throws {
        let server = try PrivateServer()
        let daemon = try Self.daemon(server)
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        for i in 0..<5 { #expect(try Self.patch(c, 100 + i).status == 200) }

        try server.stop()
        Self.expectUnavailable("PATCH", try Self.patch(c, 200))
        Self.expectUnavailable("PUT create", try c.put("/v1/sessions/t", Documents.card))
        Self.expectUnavailable("POST", try c.post("/v1/sessions", Documents.card))
        Self.expectUnavailable("DELETE", try c.request("DELETE", "/v1/sessions/s"))
        Self.expectUnavailable("GET of a session not in memory", try c.get("/v1/sessions/elsewhere"))
        #expect(daemon.isRunning)

        try server.start()
        // The first request may still meet a connection of before the restart: retried by the
        // client as a 503 tells it to.
        let resumed = try Self.until(200) { try Self.patch(c, 201) }
        #expect(resumed.status == 200 && resumed.header("ETag").etagRevision == 7)
        #expect(try c.put("/v1/sessions/t", Documents.card).status == 201)
        #expect(try c.get("/v1/sessions/elsewhere").status == 404)
        let acknowledged = try c.get("/v1/sessions/s")
        #expect(acknowledged.status == 200)
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit(timeout: 10)

        // A node started while the database is away: it starts, says so, answers 503, and serves
        // the stored sessions once the database is back.
        try server.stop()
        let late = try Self.daemon(server)
        #expect(late.stderr.contains("not reachable yet"))
        let l = try late.connect()
        Self.expectUnavailable("GET while away at start", try l.get("/v1/sessions/s"))
        try server.start()
        let read = try Self.until(200) { try l.get("/v1/sessions/s") }
        #expect(read.text == acknowledged.text && read.header("ETag") == acknowledged.header("ETag"))
        #expect(try l.get("/v1/sessions/t").status == 200)
    }

    @Test("layoutd store check and compact against a PostgreSQL database a node is using")
    func storeCommands() throws {
        let base = try #require(ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"])
        let name = "layoutd_cmd_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try PrivateServer.script("psql -q \"$1\" -c \"CREATE DATABASE $2\"", base, name)
        defer { _ = try? PrivateServer.script("psql -q \"$1\" -c \"DROP DATABASE $2 WITH (FORCE)\"", base, name) }
        let url = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        let daemon = try Daemon(["--store", url, "--log-level", "warning"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        for i in 0..<4 { #expect(try Self.patch(c, 100 + i).status == 200) }
        let before = try c.get("/v1/sessions/s")

        let check = try LayoutdBinary.run(["store", "check", "--store", url])
        #expect(check.status == 0 && check.stdout.contains(#""ok":true"#) && check.stdout.contains(#""sessions":1,"patches":4"#),
                "\(check.stdout) \(check.stderr)")
        let compact = try LayoutdBinary.run(["store", "compact", "--store", url])
        #expect(compact.status == 0 && compact.stdout.contains(#""sessionsFolded":1,"patchesFolded":4"#), "\(compact.stdout)")
        let after = try LayoutdBinary.run(["store", "check", "--store", url])
        #expect(after.status == 0 && after.stdout.contains(#""sessions":1,"patches":0"#), "\(after.stdout)")
        // The node goes on from the folded record; a restart reads it back the same.
        #expect(try Self.patch(c, 300).header("ETag").etagRevision == 6)
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit(timeout: 10)
        let restarted = try Daemon(["--store", url, "--log-level", "warning"])
        let read = try restarted.connect().get("/v1/sessions/s")
        #expect(read.status == 200 && read.header("ETag").etagRevision == 6 && read.text != before.text)
        let unreachable = try LayoutdBinary.run(["store", "check", "--store", "postgres://layoutd@127.0.0.1:1/layoutd"])
        #expect(unreachable.status == 66 && unreachable.stdout.contains("cannot connect to PostgreSQL"))
    }
    @Test("a node whose listening connection hangs (its server process stopped) serves another node's new revision within a few seconds")
    func hungListenerOnANode() throws {
        let base = try #require(ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"])
        let name = "layoutd_hb_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try PrivateServer.script("psql -q \"$1\" -c \"CREATE DATABASE $2\"", base, name)
        defer { _ = try? PrivateServer.script("psql -q \"$1\" -c \"DROP DATABASE $2 WITH (FORCE)\"", base, name) }
        let url = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        let a = try Daemon(["--store", url, "--log-level", "warning"]), b = try Daemon(["--store", url, "--log-level", "warning"])
        let ca = try a.connect(), cb = try b.connect()
        #expect(try ca.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try cb.get("/v1/sessions/s").header("ETag").etagRevision == 1)  // b holds a copy now

        // b's listener names itself after b's process; it is up once it sends heartbeats.
        func listener() -> Int32 {
            let out = try? PrivateServer.script("psql -Atq \"$1\" -c \"SELECT pid FROM pg_stat_activity WHERE "
                                                + "application_name = 'layoutd listener $2' AND query LIKE 'NOTIFY%'\"",
                                                url, String(b.process.processIdentifier))
            return out.flatMap { Int32($0) } ?? 0
        }
        let hung = eventually(timeout: 10, pollEvery: 0.05, listener, satisfies: { $0 != 0 })
        try #require(hung != 0, "b's listener is not in pg_stat_activity")
        #expect(kill(hung, SIGSTOP) == 0)
        // Before the database is dropped: a stopped server process cannot be terminated.
        defer { kill(hung, SIGCONT) }

        #expect(try Self.patch(ca, 150).header("ETag").etagRevision == 2)
        let written = Date()
        let seen = try eventually(timeout: 10, pollEvery: 0.05, { try cb.get("/v1/sessions/s").header("ETag").etagRevision },
                                  satisfies: { $0 == 2 })
        let after = Date().timeIntervalSince(written)
        #expect(seen == 2 && after < 5, "b answered revision \(seen.map(String.init) ?? "none") for \(after) s")
        // b listens again on a new connection: a later change reaches it by notice.
        #expect(try Self.patch(ca, 160).header("ETag").etagRevision == 3)
        _ = try eventually(timeout: 5, pollEvery: 0.02) { try cb.get("/v1/sessions/s").header("ETag").etagRevision == 3 }
        #expect(try cb.get("/v1/sessions/s").header("ETag").etagRevision == 3)
    }
}
