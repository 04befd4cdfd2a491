import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The metrics issue 33 adds, on the real daemon: build information, requests in flight, open
/// connections, the session limit, the store's resources (SQLite's files; PostgreSQL's pool and
/// listener when `LAYOUTD_TEST_POSTGRES` names a server), fenced writes apart from errors; and
/// `promtool check metrics` still finds nothing to say.
@Suite("layoutd daemon: operator metrics (build, in flight, connections, limits, store resources)")
struct OperatorMetricsTests {
    /// The value of the sample written exactly as `series` (name and labels), or nil.
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func scrape(_ daemon: Daemon) throws -> String {
        let r = try daemon.connect().get("/metrics")
        #expect(r.status == 200)
        let promtool = try MetricsTests.tool("promtool")
        let check = try MetricsTests.run(promtool, ["check", "metrics"], input: r.body)
        #expect(check.status == 0 && check.output.isEmpty, "promtool: \(check.output)")
        return r.text
    }

    @Test("build info, requests in flight, open connections and the session limit, with a SQLite store's file and WAL sizes")
    func daemonGaugesWithSQLite() throws {
        let dir = try TemporaryDirectory()
        let daemon = try Daemon(["--store", "sqlite:\(dir.url.path)/s.db", "--max-sessions", "77"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        // Three more connections, kept open across the scrape.
        let idle = try (0..<3).map { _ in try daemon.connect() }
        for connection in idle { #expect(try connection.get("/healthz").status == 200) }

        // The store's sizes are read every 2 s: wait for a reading after the write.
        let text = try eventually(timeout: 10, pollEvery: 0.2, { try OperatorMetricsTests.scrape(daemon) },
                                  satisfies: { (OperatorMetricsTests.sample($0, #"layoutd_sqlite_file_bytes{file="db"}"#) ?? 0) > 0 })
        #expect(text.contains(#"layoutd_build_info{version="0.1.0",libevent=""#), "\(text)")
        #expect(text.contains(#",store="sqlite"} 1"#))
        // The scrape itself is in flight while the text is made.
        #expect(OperatorMetricsTests.sample(text, "layoutd_http_requests_in_flight") ?? 0 >= 1)
        #expect(OperatorMetricsTests.sample(text, "layoutd_http_open_connections") ?? 0 >= 5, "the scrape's, c and the three idle ones")
        #expect(OperatorMetricsTests.sample(text, "layoutd_max_sessions") == 77)
        #expect((OperatorMetricsTests.sample(text, #"layoutd_sqlite_file_bytes{file="db"}"#) ?? 0) >= 4096)
        #expect(OperatorMetricsTests.sample(text, #"layoutd_sqlite_file_bytes{file="wal"}"#) != nil)
        #expect(OperatorMetricsTests.sample(text, "layoutd_store_fencing_conflicts_total") == 0)
        #expect(!text.contains(#"kind="conflict""#), "a fenced write is not a store error")

        // Connections closed are no longer counted.
        for connection in idle { connection.close() }
        #expect(try eventually(timeout: 5, pollEvery: 0.05) {
            (OperatorMetricsTests.sample(try OperatorMetricsTests.scrape(daemon), "layoutd_http_open_connections") ?? 99) <= 2
        })
    }

    @Test("without a store: no store gauges, and build info says memory")
    func memoryStoreGauges() throws {
        let daemon = try Daemon()
        let text = try OperatorMetricsTests.scrape(daemon)
        #expect(text.contains(#",store="memory"} 1"#), "\(text)")
        #expect(!text.contains("layoutd_sqlite_file_bytes") && !text.contains("layoutd_postgres_pool"))
        #expect(OperatorMetricsTests.sample(text, "layoutd_max_sessions") == 10_000)
    }
}

/// The PostgreSQL gauges, on the server `LAYOUTD_TEST_POSTGRES` names (scripts/test starts one).
@Suite("layoutd daemon: operator metrics on PostgreSQL (pool, listener)",
       .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil, "LAYOUTD_TEST_POSTGRES names no server"))
struct OperatorPostgresMetricsTests {
    @Test("on PostgreSQL (LAYOUTD_TEST_POSTGRES): the pool within its size, the listener connected, edits racing between two nodes not counted as store errors")
    func postgresPoolListenerAndConflicts() throws {
        let url = ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] ?? ""
        let id = "metrics-\(UUID().uuidString.prefix(8))"
        let node1 = try Daemon(["--store", url]), node2 = try Daemon(["--store", url])
        let c1 = try node1.connect(), c2 = try node2.connect()
        #expect(try c1.put("/v1/sessions/\(id)", Documents.card).status == 201)
        #expect(try c2.get("/v1/sessions/\(id)").status == 200)
        // Each node edits from the revision it holds; whichever writes second is fenced off (or
        // catches up first): at least one fencing conflict over the two, or both succeeded in turn.
        for i in 0..<10 {
            _ = try c1.patch("/v1/sessions/\(id)", #"{"constraints":{"card-height":{"constant":\#(300 + i)}}}"#)
            _ = try c2.patch("/v1/sessions/\(id)", #"{"constraints":{"card-height":{"constant":\#(400 + i)}}}"#)
        }
        let texts = try eventually(timeout: 10, pollEvery: 0.2, { try [OperatorMetricsTests.scrape(node1), OperatorMetricsTests.scrape(node2)] },
                                   satisfies: { $0.allSatisfy { OperatorMetricsTests.sample($0, "layoutd_postgres_listener_connected") == 1 } })
        for text in texts {
            #expect(text.contains(#",store="postgres"} 1"#))
            #expect(OperatorMetricsTests.sample(text, "layoutd_postgres_listener_connected") == 1, "\(text)")
            let idle = OperatorMetricsTests.sample(text, #"layoutd_postgres_pool_connections{state="idle"}"#) ?? -1
            let inUse = OperatorMetricsTests.sample(text, #"layoutd_postgres_pool_connections{state="in_use"}"#) ?? -1
            let size = OperatorMetricsTests.sample(text, "layoutd_postgres_pool_size") ?? -1
            #expect(idle >= 1 && inUse >= 0 && idle + inUse <= size, "\(idle) \(inUse) \(size)")
            #expect(OperatorMetricsTests.sample(text, #"layoutd_store_errors_total{kind="unavailable"}"#) == 0)
            #expect(!text.contains(#"kind="conflict""#))
        }
        let conflicts = texts.compactMap { OperatorMetricsTests.sample($0, "layoutd_store_fencing_conflicts_total") }
        #expect(conflicts.count == 2)
    }
}
