import Foundation
import Testing
import TestSupport

/// Issue 33: after `kill -9` of PostgreSQL under a PATCH load on two nodes (sync everysec), some
/// sessions answered every PATCH 409 `/problems/stale-session` (and PUT 503 busy) until their node
/// was restarted. Here every session must accept a PATCH, on both nodes, within 5 s of the
/// server's return.
@Suite("PostgreSQL killed under load: no session stays stuck", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil,
                "LAYOUTD_TEST_POSTGRES is not set (scripts/test sets it)"))
struct PostgresCrashTests {
    typealias Server = PostgresStoreTests.PrivateServer

    static func card(_ height: Int) -> String { #"{"constraints":{"card-height":{"constant":\#(height)}}}"# }

    /// Clients PATCHing the sessions on both nodes in turn (as nginx's round robin would), until stopped.
    final class Load: @unchecked Sendable {
        private let lock = NSLock()
        private var stopping = false
        private var running = 0
        private(set) var acknowledged = 0

        func start(ports: [Int], sessions: Int, clients: Int) {
            for client in 0..<clients {
                lock.withLock { running += 1 }
                Thread.detachNewThread { [self] in
                    defer { lock.withLock { running -= 1 } }
                    let connections = ports.compactMap { try? RawHTTPConnection(port: $0, timeoutSeconds: 15) }
                    guard connections.count == ports.count else { return }
                    var i = client
                    while !lock.withLock({ stopping }) {
                        i += clients
                        let c = connections[i % connections.count]
                        guard let r = try? c.patch("/v1/sessions/c\(i % sessions)", PostgresCrashTests.card(100 + i)) else { return }
                        if r.status == 200 { lock.withLock { acknowledged += 1 } }
                    }
                }
            }
        }

        var count: Int { lock.withLock { acknowledged } }

        func stop() {
            lock.withLock { stopping = true }
            _ = eventually(timeout: 30) { lock.withLock { running == 0 } }
        }
    }

    @Test("after kill -9 of PostgreSQL under load, every session accepts a PATCH (fresh If-Match) on each node within 5 s of its return",
          arguments: [1, 2])
    func killNineUnderLoad(round: Int) throws {
        let directory = try TemporaryDirectory()
        let port = try freeLoopbackPort()
        let data = directory.url.path + "/pg"
        // Asynchronous commits flushed rarely: the kill loses acknowledged revisions, as in production
        // with sync everysec, only more of them.
        let start = "POSTGRES_OPTIONS='-c fsync=off -c wal_writer_delay=2000' postgres_start \"$1\" \"$2\""
        let url = try Server.script(start, data, String(port))
        defer { _ = try? Server.script("postgres_stop \"$1\"", data) }
        let args = ["--store", url, "--sync", "everysec", "--log-level", "warning"]
        let nodes = [try Daemon(args), try Daemon(args)]
        let sessions = 40
        let setup = try nodes[0].connect()
        for s in 0..<sessions { #expect(try setup.put("/v1/sessions/c\(s)", Documents.card).status == 201) }
        let load = Load()
        load.start(ports: nodes.map(\.port), sessions: sessions, clients: 8)
        #expect(eventually(timeout: 20) { load.count > 400 })

        let pid = try Server.script("head -n 1 \"$1/postmaster.pid\"", data)
        _ = try Server.script(#"kill -STOP "$1"; all="$1 $(pgrep -P "$1" | tr '\n' ' ')"; kill -KILL $all; "#
                              + #"for p in $all; do while [ -e /proc/$p ]; do sleep 0.05; done; done"#, pid)
        // The load runs into the dead server for a moment (its writes answer 503).
        usleep(300_000)  // a stretch of outage under load, not a wait for a condition
        _ = try Server.script(start, data, String(port))
        let back = Date()
        let atReturn = load.count
        #expect(eventually(timeout: 10) { load.count > atReturn + 100 }, "the load resumed")
        load.stop()

        // Every session, on each node: GET, then PATCH with the ETag just read.
        var stuck: [String] = []
        let connections = try nodes.map { try $0.connect() }
        for s in 0..<sessions {
            for (n, c) in connections.enumerated() {
                let answer = try eventually(timeout: max(0.1, 5 - Date().timeIntervalSince(back)), pollEvery: 0.05, {
                    let got = try c.get("/v1/sessions/c\(s)")
                    guard got.status == 200, let tag = got.header("ETag") else { return got }
                    return try c.patch("/v1/sessions/c\(s)", Self.card(7_000 + s), headers: [("If-Match", tag)])
                }, satisfies: { $0.status == 200 })
                if answer.status != 200 { stuck.append("c\(s) on node \(n + 1): \(answer.status) \(answer.text)") }
            }
        }
        #expect(stuck.isEmpty, "round \(round): \(stuck.count) stuck: \(stuck.prefix(6))")
        // Whether the crash lost acknowledged commits is the server's timing; when it did, the node said so.
        let lostLogged = nodes.filter { $0.stderr.contains("session store lost acknowledged revisions") }.count
        print("PostgresCrashTests round \(round): \(load.count) PATCHes acknowledged; \(lostLogged) node(s) logged lost revisions")
        for node in nodes { #expect(!node.stderr.contains("fatal") && node.isRunning, "\(node.stderr.suffix(2000))") }
    }
}
