#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Primitives
import Storage

/// `SessionStorage` in a PostgreSQL database shared by several layoutd nodes:
/// `store: "postgres://user@host:port/db?…"`.
///
/// Fencing holds between processes: every write is one statement (its own transaction) whose
/// `UPDATE … WHERE id = $1 AND generation = $2 AND revision = $3 - 1` finds no row when another
/// node wrote first (the row lock makes the second writer wait, then re-read the row), and patches
/// have (id, revision) as primary key. A write that finds nothing reads what is stored and throws
/// `.conflict`. Every write that changes a session calls `pg_notify` on the session's bucket
/// channel (`NoticeBuckets`) in its transaction, delivered at commit to the nodes that follow that
/// bucket (`follow`, `observe`).
///
/// Connection loss: a call that cannot reach the server throws `.unavailable` (the API answers
/// 503 with Retry-After) and a later call connects again by itself. A write whose connection broke
/// before its answer came may have been committed or not: it throws `.unavailable` too, never
/// success; the client's retry then finds it applied (a conflict, 412) or applies it.
///
/// Durability (`StorageSync`): `always` sets `synchronous_commit = on` (the commit is flushed to
/// the server's WAL before it answers); `everysec` and `never` set it `off` (the server answers
/// before the flush and its WAL writer flushes within 3 × `wal_writer_delay`, 600 ms by default:
/// a crash of the *server* may lose that much, and never corrupts).
public final class PostgresSessionStorage: SessionStorage, @unchecked Sendable {
    public let sync: StorageSync
    public let policy: SnapshotPolicy
    let clock: @Sendable () -> Double
    let pool: PostgresPool
    private let listener: PostgresListener
    /// Whether this process has made sure of the schema (created, migrated or checked).
    private let schemaReady = Locked(false)
    /// Why the server could not be reached when the store was made (nil: it could).
    public let startupProblem: String?

    /// What libpq says is wrong with `url`, nil when it parses.
    public static func problem(url: String) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            defer { if let error { PQfreemem(error) } }
            return error.map { PostgresConnection.message($0) } ?? "not a PostgreSQL connection URL"
        }
        PQconninfoFree(options)
        return nil
    }

    /// Settings every connection gets unless the URL says otherwise: a bounded connect, and TCP
    /// keepalives plus a user timeout so that a server that vanished without closing its
    /// connections (a network partition, a powered-off machine) is noticed in about 15 s.
    static let connectionDefaults: [(String, String)] = [
        ("connect_timeout", "5"), ("application_name", "layoutd"),
        ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "15000"),
    ]

    /// A store on the database at `url`, with at most `poolSize` connections (the daemon: its
    /// workers + 1) plus one listening connection once someone `observe`s. Tries to connect once:
    /// a server that cannot be reached is no error (`startupProblem` says why; calls answer
    /// `unavailable` until it can be). Throws when the URL does not parse, or when the database
    /// holds a newer schema or tables that are not layoutd's.
    public init(url: String, sync: StorageSync = .everysec, policy: SnapshotPolicy = SnapshotPolicy(),
                poolSize: Int = 4, clock: @escaping @Sendable () -> Double = wallClock) throws(StorageError) {
        if let problem = Self.problem(url: url) { throw StorageError.unavailable("store URL: \(problem)") }
        self.sync = sync
        self.policy = policy
        self.clock = clock
        let ready = schemaReady
        let open = { () throws(StorageError) -> PostgresConnection in
            let c = try PostgresConnection(url: url, defaults: Self.connectionDefaults)
            try c.execute("SET synchronous_commit = \(sync == .always ? "on" : "off")")
            if !ready.withLock({ $0 }) {
                try PostgresSchema.prepare(c, now: clock())
                ready.withLock { $0 = true }
            }
            return c
        }
        pool = PostgresPool(size: poolSize, now: clock, open: open)
        listener = PostgresListener(url: url, defaults: Self.connectionDefaults)
        do throws(StorageError) {
            try pool.with { _ in }
            startupProblem = nil
        } catch {
            // Reached, but the schema is not one this layoutd may use: refuse to start.
            if case .corrupt = error { throw error }
            if case .unavailable(let why) = error, why.contains("schema version") { throw error }
            startupProblem = error.description
        }
    }

    deinit { close() }

    public func close() {
        listener.stop()
        pool.close()
    }

    public var isShared: Bool { true }

    public func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        listener.add(handler)
    }

    /// Listens on the bucket of `id` (`NoticeBuckets`) while this node holds a copy of it.
    public func follow(_ id: String) { listener.follow(NoticeBuckets.bucket(of: id)) }

    public func unfollow(_ id: String) { listener.unfollow(NoticeBuckets.bucket(of: id)) }

    /// The server process of the listening connection, 0 while none listens (tests stop it).
    var listenerBackendPID: Int32 { listener.backendPID }

    /// The pool's connections (`idle`: connected and waiting, `inUse`: lent to a call or being
    /// made) and its size, for `GET /metrics`; a lock taken for a moment, no I/O.
    public var poolState: (idle: Int, inUse: Int, size: Int) {
        let counts = pool.counts
        return (counts.idle, counts.inUse, pool.size)
    }

    /// Whether the notification listener holds a connection listening now (`GET /metrics`).
    public var listenerConnected: Bool { listener.backendPID != 0 }

    /// The buckets whose channels the listener listens on now (tests).
    var listenedBuckets: Set<Int> { listener.listenedBuckets }

    // MARK: reads

    public func load(id: String) throws(StorageError) -> StoredSession? {
        let rows = try pool.with(idempotent: true) { c throws(StorageError) in try c.run(SQL.load, [.text(id)]) }
        guard rows.count > 0, rows.isNull(0, 6) else { return nil }
        guard let delegates = DelegateCoding.decode(rows.bytes(0, 3)) else {
            throw .corrupt(path: "PostgreSQL layoutd_sessions '\(id)'", detail: "its delegate memory is not a JSON object of booleans")
        }
        var session = StoredSession(id: id, generation: UInt64(rows.int(0, 0)), revision: rows.int(0, 1),
                                    snapshot: rows.bytes(0, 5), snapshotRevision: rows.int(0, 2), patches: [],
                                    delegates: delegates, lastUsed: rows.double(0, 4),
                                    writeID: UInt64(bitPattern: Int64(rows.int(0, 7))))
        for row in 1..<rows.count {
            session.patches.append(StoredPatch(revision: rows.int(row, 1), bytes: rows.bytes(row, 5)))
        }
        let expected = Array(session.snapshotRevision + 1 ..< session.revision + 1)
        guard session.patches.map(\.revision) == expected,
              (1..<rows.count).allSatisfy({ UInt64(rows.int($0, 0)) == session.generation }) else {
            throw .corrupt(path: "PostgreSQL layoutd_patches '\(id)'", detail: "its patches are revisions "
                           + "\(session.patches.map(\.revision)), not \(expected.first ?? 0)...\(session.revision) of generation \(session.generation)")
        }
        return session
    }

    public func count() throws(StorageError) -> Int {
        try pool.with(idempotent: true) { c throws(StorageError) in try c.run(SQL.count, []).int(0, 0) }
    }

    public func ids(after: String?, limit: Int) throws(StorageError) -> [String] {
        let rows = try pool.with(idempotent: true) { c throws(StorageError) in
            if let after { return try c.run(SQL.idsAfter, [.int(max(0, limit)), .text(after)]) }
            return try c.run(SQL.idsFirst, [.int(max(0, limit))])
        }
        return (0..<rows.count).map { rows.text($0, 0) }
    }
}
