import Foundation
import JSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27 item 10: stored sessions this node cannot serve (beyond its limits, damaged) answer
/// what they are, stay stored, and `store compact` reports each damaged one and goes on.
@Suite("layoutd: stored sessions beyond this node's limits, damaged ones, and what the store commands say")
struct StoredSessionFaultTests {
    /// A daemon on the SQLite file at `path`.
    static func daemon(_ path: String, _ extra: [String] = []) throws -> Daemon {
        try Daemon(["--store", "sqlite:\(path)", "--log-level", "warning"] + extra)
    }

    /// SIGTERM and wait: the store is closed cleanly (its log checkpointed) before the next opens it.
    static func stop(_ daemon: Daemon) {
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0, "\(daemon.stderr)")
    }

    static func sqlite(_ path: String, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, statement]
        let exit = ChildExit(process)
        try process.run()
        #expect(exit.wait(timeout: 20) && exit.shellStatus == 0, "sqlite3 \(statement)")
    }

    @Test("a restart with a lower --max-views: the stored session answers 503 naming the setting, stays stored and counted, and serves again once raised")
    func beyondLimitsAfterRestart() throws {
        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("store.db").path
        var first = try Self.daemon(path)
        var c = try first.connect()
        let created = try c.put("/v1/sessions/card", Documents.card)  // 3 views
        #expect(created.status == 201)
        Self.stop(first)

        first = try Self.daemon(path, ["--max-views", "2"])
        c = try first.connect()
        let refused = try c.get("/v1/sessions/card")
        #expect(refused.status == 503, "\(refused.text)")
        let problem = try refused.json()
        #expect(problem["type"]?.stringValue == "/problems/session-beyond-limits")
        let detail = problem["detail"]?.stringValue ?? ""
        #expect(detail.contains("3 views, more than maxViews (2)") && detail.contains("--max-views"), "\(detail)")
        // Not deleted by the refusal, nor by a PATCH or a DELETE that meets the same answer.
        #expect(try c.patch("/v1/sessions/card", #"{"constraints":{"card-height":{"constant":150}}}"#).status == 503)
        #expect(try c.get("/healthz").json()["sessions"] == .number(1))
        Self.stop(first)

        let raised = try Self.daemon(path)
        c = try raised.connect()
        let served = try c.get("/v1/sessions/card")
        #expect(served.status == 200 && served.header("ETag") == created.header("ETag"))
    }

    @Test("damaged sessions: a GET says the stored session cannot be read; compact reports each one and folds the others")
    func damagedSessions() throws {
        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("store.db").path
        let daemon = try Self.daemon(path)
        let c = try daemon.connect()
        for id in ["a", "b", "c"] {
            #expect(try c.put("/v1/sessions/\(id)", Documents.card).status == 201)
            for constant in [150, 160] {
                #expect(try c.patch("/v1/sessions/\(id)", #"{"constraints":{"card-height":{"constant":\#(constant)}}}"#).status == 200)
            }
        }
        Self.stop(daemon)
        // b: a patch missing (its records do not read back); c: a patch that is not JSON (does not replay).
        try Self.sqlite(path, "DELETE FROM patches WHERE revision = 2 AND key = (SELECT key FROM sessions WHERE id = 'b')")
        try Self.sqlite(path, "UPDATE patches SET patch = X'7B7B' WHERE revision = 2 AND key = (SELECT key FROM sessions WHERE id = 'c')")

        let restarted = try Self.daemon(path)
        let r = try restarted.connect()
        #expect(try r.get("/v1/sessions/a").status == 200)
        for id in ["b", "c"] {
            let read = try r.get("/v1/sessions/\(id)")
            let detail = try read.json()["detail"]?.stringValue ?? ""
            #expect(read.status == 503 && detail.hasPrefix("the session could not be read from the session store"), "\(id): \(detail)")
            #expect(!detail.contains("the change was not made"))
        }
        Self.stop(restarted)

        let compact = try LayoutdBinary.run(["store", "compact", "--store", "sqlite:\(path)"])
        #expect(compact.status == 1, "\(compact.stdout) \(compact.stderr)")
        let report = try JSONParser.parse(compact.stdout)
        #expect(report["ok"] == .bool(false) && report["sessionsFolded"] == .number(1) && report["patchesFolded"] == .number(2))
        let failures = report["failures"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(failures.count == 2 && failures.contains { $0.hasPrefix("session 'b'") } && failures.contains { $0.hasPrefix("session 'c'") },
                "\(failures)")
    }

    @Test("a directory at the store path is named a directory, by serve and by store check")
    func directoryAtTheStorePath() throws {
        let dir = try TemporaryDirectory()
        let serve = try LayoutdBinary.run(["serve", "--port", "0", "--store", "sqlite:\(dir.url.path)"],
                                          environment: OperatorSettingsTests.environment())
        #expect(serve.status == 1 && serve.stderr.contains("\(dir.url.path): it is a directory"), "\(serve.stderr)")
        #expect(!serve.stderr.contains("too short"))
        let check = try LayoutdBinary.run(["store", "check", "--store", "sqlite:\(dir.url.path)"])
        #expect(check.status == 66 && check.stdout.contains("it is a directory, not a database file"), "\(check.stdout)")
    }
}
