import EventHTTP
import Foundation
import PostgresStorage
import Primitives
import SQLiteStorage
import Storage
import Telemetry

/// The daemon's own gauges for `GET /metrics` (issue 33): what it is (`layoutd_build_info`), how
/// busy it is (requests in flight, open connections), its limits, and its store's resources (the
/// PostgreSQL pool and listener, the SQLite file and WAL). Everything a scrape reads is in memory:
/// the store's state is read by `StoreGauges` on a timer of its own, never on the event loop that
/// answers the scrape.
final class DaemonMetrics: Sendable {
    /// Requests started (0) and answered (1), per thread's shard: every loop counts every request,
    /// so one shared atomic would be a cache line all of them write.
    private let requests = ShardedCounters(count: 2)
    private let settings: DaemonConfiguration
    private let storeGauges: StoreGauges?
    /// Set once the server exists (it is made after the router).
    private let server = Locked<HTTPServerStatistics?>(nil)

    init(settings: DaemonConfiguration, storage: (any SessionStorage)?) {
        self.settings = settings
        storeGauges = storage.flatMap(StoreGauges.init)
    }

    func attach(_ statistics: HTTPServerStatistics) { server.withLock { $0 = statistics } }

    func stop() { storeGauges?.stop() }

    /// `respond`, counted in `layoutd_http_requests_in_flight` from the handler's call until its
    /// answer is ready (an offloaded one: until its work is done; a stream: until it opens).
    func counting(_ respond: @escaping HTTPHandler) -> HTTPHandler {
        { [self] request in
            requests.add(0)
            let response = respond(request)
            if case .offloaded(let work) = response {
                return .offloaded { [self] in
                    defer { requests.add(1) }
                    return work()
                }
            }
            requests.add(1)
            return response
        }
    }

    func write(to out: inout PrometheusText) {
        out.family("layoutd_build_info", .gauge, help: "Always 1; the labels say which layoutd this is and what it runs on.")
        out.sample("layoutd_build_info", [("version", Layoutd.configuration.version), ("libevent", LibeventInternals.loadedVersion),
                                          ("store", Self.storeKind(settings))], 1.0)
        out.single("layoutd_http_requests_in_flight", .gauge,
                   help: "Requests being answered now (read, answer not yet ready; an offloaded one until its work is done).",
                   Double(max(0, Int64(bitPattern: requests.value(0) &- requests.value(1)))))
        if let statistics = server.withLock({ $0 }) {
            out.single("layoutd_http_open_connections", .gauge, help: "Client connections open now, over every worker.",
                       Double(statistics.openConnections))
        }
        out.single("layoutd_max_sessions", .gauge, help: "The session limit (maxSessions): creating one more answers 429.",
                   Double(settings.maxSessions))
        storeGauges?.write(to: &out)
    }

    static func storeKind(_ settings: DaemonConfiguration) -> String {
        switch settings.storeLocation {
        case .sqlite?: return "sqlite"
        case .postgres?: return "postgres"
        default: return "memory"
        }
    }
}

/// The store's resources, read every `interval` on a queue of its own and kept for the scrape:
/// SQLite's file and WAL sizes (two `stat`s: file I/O an event loop must not do), PostgreSQL's
/// pool and listener (locks the store's threads hold).
final class StoreGauges: Sendable {
    static let interval = 2.0

    private enum Source: @unchecked Sendable {
        case sqlite(path: String)
        case postgres(PostgresSessionStorage)
    }

    private struct Reading {
        var fileBytes = 0.0, walBytes = 0.0
        var poolIdle = 0.0, poolInUse = 0.0, poolSize = 0.0, listening = 0.0
    }

    private let source: Source
    private let reading = Locked(Reading())
    private let timer = Locked<DispatchSourceTimer?>(nil)

    init?(_ storage: any SessionStorage) {
        if let sqlite = storage as? SQLiteSessionStorage {
            source = .sqlite(path: sqlite.path)
        } else if let postgres = storage as? PostgresSessionStorage {
            source = .postgres(postgres)
        } else {
            return nil
        }
        refresh()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "layoutd.store-gauges"))
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.refresh() }
        timer.resume()
        self.timer.withLock { $0 = timer }
    }

    func stop() { timer.withLock { $0?.cancel(); $0 = nil } }

    private func refresh() {
        switch source {
        case .sqlite(let path):
            let file = Self.size(of: path), wal = Self.size(of: path + "-wal")
            reading.withLock { $0.fileBytes = file; $0.walBytes = wal }
        case .postgres(let storage):
            let pool = storage.poolState
            let listening = storage.listenerConnected
            reading.withLock {
                $0.poolIdle = Double(pool.idle)
                $0.poolInUse = Double(pool.inUse)
                $0.poolSize = Double(pool.size)
                $0.listening = listening ? 1 : 0
            }
        }
    }

    /// A file's size in bytes; 0 when it does not exist (no WAL between checkpoints that remove it).
    private static func size(of path: String) -> Double {
        var info = stat()
        return stat(path, &info) == 0 ? Double(info.st_size) : 0
    }

    func write(to out: inout PrometheusText) {
        let r = reading.withLock { $0 }
        switch source {
        case .sqlite:
            out.family("layoutd_sqlite_file_bytes", .gauge,
                       help: "Size of the SQLite store's files, by file: db (the database) and wal (its write-ahead log); read every 2 s.")
            out.sample("layoutd_sqlite_file_bytes", [("file", "db")], r.fileBytes)
            out.sample("layoutd_sqlite_file_bytes", [("file", "wal")], r.walBytes)
        case .postgres:
            out.family("layoutd_postgres_pool_connections", .gauge,
                       help: "PostgreSQL pool connections by state: idle (connected, waiting) and in_use (lent to a call or being made); read every 2 s.")
            out.sample("layoutd_postgres_pool_connections", [("state", "idle")], r.poolIdle)
            out.sample("layoutd_postgres_pool_connections", [("state", "in_use")], r.poolInUse)
            out.single("layoutd_postgres_pool_size", .gauge, help: "Most connections the PostgreSQL pool may open.", r.poolSize)
            out.single("layoutd_postgres_listener_connected", .gauge,
                       help: "1 while the notification listener holds a connection that LISTENs, else 0 (changes of other nodes are then caught up on the next request).",
                       r.listening)
        }
    }
}
