#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Primitives
import Storage

/// `SessionStorage` in one SQLite database file (write-ahead log mode): the embedded store that
/// needs no set-up, `store: "sqlite:PATH"`.
///
/// Writes go through one connection with group commit: a caller queues its write and, when no
/// other caller is writing, becomes the *leader*, which runs every queued write in one transaction
/// and commits it (one fsync with `sync: always`) for all of them; callers that queued meanwhile
/// form the next batch. Reads use a second connection (a read transaction per call: WAL lets it
/// read while the writer writes). Opening reads the header and the schema version, never the
/// sessions: it costs the same with 100,000 sessions as with none (`PRAGMA quick_check` of such a
/// file, 829 MB, took 3.4 s: it is `check`'s job, not open's).
///
/// Durability, per `StorageSync` (see docs/operations.md):
/// - `always`: `synchronous = FULL`: in WAL mode each commit fsyncs the log before it returns.
/// - `everysec`: `synchronous = NORMAL`: a commit is written to the log (the OS has it: a crash of
///   the process loses nothing) without an fsync; a background thread fsyncs the log once a second
///   when something was committed. NORMAL keeps the database consistent across a power loss (the
///   log is synced before each checkpoint, the file after), only the last commits may roll back.
///   OFF would not: a checkpoint could then write pages to the file before the log that holds them
///   is on disk, and a power loss could corrupt it.
/// - `never`: `synchronous = NORMAL` without the thread's fsync: the kernel writes the log back
///   when it chooses; checkpoints still sync, so a power loss loses recent commits but corrupts
///   nothing.
///
/// Checkpoints (copying the log's pages into the file, with an fsync of each) run on the same
/// background thread, once a second, on a connection of its own (`background`): not on the
/// request's thread, as SQLite's automatic checkpoint would, every 1,000 pages.
public final class SQLiteSessionStorage: SessionStorage, @unchecked Sendable {
    public let path: String
    public let sync: StorageSync
    public let policy: SnapshotPolicy
    let clock: @Sendable () -> Double

    /// The write connection: used only by the leader (`Coordination.writerBusy`).
    let writer: SQLiteConnection
    /// What the leader knows of the sessions it wrote (the leader's alone, as `writer`).
    let written = WrittenSessions()
    /// How stale an appended session's row may let its `last_used` get: an append rewrites the
    /// row (a second page for the commit) only this often, or when its delegate memory changed.
    static let rowRefreshSeconds = 1.0
    /// The read connection, behind its own lock.
    let reader: Locked<SQLiteConnection>

    /// The write queue and the leader's flag, behind `lock` (whose condition wakes waiting callers).
    final class Ticket {
        let op: WriteOp
        var answer: Result<WriteAnswer, StorageError>?
        init(_ op: WriteOp) { self.op = op }
    }
    struct Coordination {
        var queue: [Ticket] = []
        var writerBusy = false
        var closed = false
        var statistics = SQLiteStatistics()
        /// `statistics.commits` when the log was last fsynced by the `everysec` thread.
        var syncedCommits = 0
    }
    /// Shared with the `everysec` thread, which must not keep the store itself alive.
    final class Shared: @unchecked Sendable {
        let lock = PThreadLock()
        var coordination = Coordination()
        /// The `everysec` thread's own sleep, which `close` cuts short (`stopping`, behind it): on
        /// `lock`'s condition it would wake at every commit's broadcast, and sync at every commit.
        let timer = PThreadLock()
        var stopping = false
    }
    let shared = Shared()
    var lock: PThreadLock { shared.lock }
    var coordination: Coordination {
        _read { yield shared.coordination }
        _modify { yield &shared.coordination }
    }
    private var syncThread: pthread_t?
    /// The database file's device and inode when opened: in WAL mode SQLite does not notice a
    /// removed or replaced file (its writes would go to the log of an unlinked file and be lost at
    /// close), so each commit checks that the path still names this file (one `stat`).
    private let identity: (device: UInt64, inode: UInt64)

    /// Opens the store at `path`, creating the file (and its parent directory) when absent.
    /// Throws `corrupt` naming the file when it is not a SQLite database, is truncated, or holds
    /// another schema; `io` when it cannot be created or opened.
    public init(path: String, sync: StorageSync = .everysec, policy: SnapshotPolicy = SnapshotPolicy(),
                clock: @escaping @Sendable () -> Double = wallClock) throws(StorageError) {
        self.path = path
        self.sync = sync
        self.policy = policy
        self.clock = clock
        try Self.makeParentDirectory(of: path)
        try SQLiteSchema.checkHeader(path: path)
        let isNew = try Self.createPrivateFile(path)
        let w = try SQLiteConnection(path: path)
        // Incremental auto-vacuum only takes effect before the first table is made (new files);
        // `compact` then gives free pages back to the file system without rewriting the file.
        // Only then: on an existing file the pragma opens a write transaction (to rewrite the
        // header), which a maintenance command on a live file would have to wait for (issue 33).
        if isNew { try w.execute("PRAGMA auto_vacuum = INCREMENTAL") }
        guard try w.texts("PRAGMA journal_mode = WAL").first == "wal" else {
            throw StorageError.io(path: path, detail: "SQLite could not switch the database to write-ahead-log mode")
        }
        try w.execute("PRAGMA synchronous = \(sync == .always ? "FULL" : "NORMAL")")
        // Another process (`sqlite3 … .backup`, `layoutd store check`) may hold a lock briefly:
        // every connection waits for it (`SQLiteConnection.busyTimeoutMilliseconds`).
        // After a checkpoint empties it, the log file is cut back to this size.
        try w.execute("PRAGMA journal_size_limit = 16777216")
        // The background thread copies the log into the file once a second; the writer itself
        // only when the log holds 16 MB (a commit that checkpoints waits for two fsyncs).
        try w.execute("PRAGMA wal_autocheckpoint = 4096")
        try SQLiteSchema.prepare(w, now: clock())
        let r = try SQLiteConnection(path: path)
        writer = w
        reader = Locked(r)
        guard let identity = Self.identity(of: path) else {
            throw StorageError.io(path: path, detail: "the file vanished while it was being opened")
        }
        self.identity = identity
        let (shared, path, sync) = (shared, path, sync)
        syncThread = startThread { Self.background(shared, path: path, sync: sync) }
    }

    deinit { close() }

    /// One process writes the file (the lock file says so): no other node to hear of.
    public var isShared: Bool { false }
    public func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) {}

    public func close() {
        let thread: pthread_t? = lock.withLock {
            if coordination.closed { return nil }
            coordination.closed = true
            // Writes already queued finish (each caller is waiting for its answer).
            while coordination.writerBusy || !coordination.queue.isEmpty { lock.wait() }
            lock.broadcast()
            return syncThread
        }
        if let thread {
            shared.timer.withLock {
                shared.stopping = true
                shared.timer.broadcast()
            }
            pthread_join(thread, nil)
        }
        // Closing the last connection checkpoints the log into the file, syncs it and removes it.
        reader.withLock { $0.close() }
        writer.close()
    }

    /// Commits, syncs and writes so far (for tests and `layout-bench store`).
    public var statistics: SQLiteStatistics { lock.withLock { coordination.statistics } }

    // MARK: reads

    /// Runs `body` in a read transaction on the read connection (a consistent view of the store).
    func read<R>(_ body: (SQLiteConnection) throws(StorageError) -> R) throws(StorageError) -> R {
        if lock.withLock({ coordination.closed }) { throw StorageError.unavailable("the SQLite store \(path) is closed") }
        // `Locked.withLock` rethrows untyped errors: the outcome crosses it as a Result.
        let outcome = reader.withLock { (c: inout SQLiteConnection) -> Result<R, StorageError> in
            // `close` may have run since the check above; it closes this connection under this lock.
            if c.closed { return .failure(.unavailable("the SQLite store \(path) is closed")) }
            do throws(StorageError) {
                try c.execute("BEGIN")
                defer { c.rollbackIfNeeded() }
                return .success(try body(c))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    public func load(id: String) throws(StorageError) -> StoredSession? {
        try read { c throws(StorageError) in try Self.load(id, from: c) }
    }

    public func count() throws(StorageError) -> Int {
        try read { c throws(StorageError) in try c.integer("SELECT count(*) FROM sessions") }
    }

    public func ids(after: String?, limit: Int) throws(StorageError) -> [String] {
        try read { c throws(StorageError) in
            let s = try c.statement(after == nil ? "SELECT id FROM sessions ORDER BY id LIMIT ?1"
                                                 : "SELECT id FROM sessions WHERE id > ?2 ORDER BY id LIMIT ?1")
            defer { s.reset() }
            s.bind(1, max(0, limit))
            if let after { s.bind(2, after) }
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
    }

    /// The session `id` as stored, read on `c` inside a transaction.
    static func load(_ id: String, from c: SQLiteConnection) throws(StorageError) -> StoredSession? {
        let row = try c.statement("""
            SELECT key, generation, revision, snapshot_revision, delegates, last_used, write_id FROM sessions WHERE id = ?1
            """)
        defer { row.reset() }
        row.bind(1, id)
        guard try row.step() else { return nil }
        let key = row.int(0)
        let delegatesBytes = row.blob(4)
        guard let delegates = DelegateCoding.decode(delegatesBytes) else {
            throw .corrupt(path: c.path, detail: "session '\(id)': its delegate memory is not a JSON object of booleans")
        }
        let snapshot = try c.statement("SELECT document FROM snapshots WHERE key = ?1")
        defer { snapshot.reset() }
        snapshot.bind(1, key)
        guard try snapshot.step() else {
            throw .corrupt(path: c.path, detail: "session '\(id)' has no snapshot")
        }
        var session = StoredSession(id: id, generation: row.uint64(1), revision: row.int(2), snapshot: snapshot.blob(0),
                                    snapshotRevision: row.int(3), patches: [], delegates: delegates,
                                    lastUsed: row.double(5), writeID: row.uint64(6))
        let patches = try c.statement("SELECT revision, patch, write_id FROM patches WHERE key = ?1 ORDER BY revision")
        defer { patches.reset() }
        patches.bind(1, key)
        while try patches.step() {
            session.patches.append(StoredPatch(revision: patches.int(0), bytes: patches.blob(1)))
            session.writeID = patches.uint64(2)
        }
        // The row's revision is as of its last write; the session's is its last patch's.
        let rowRevision = session.revision
        session.revision = session.patches.last?.revision ?? session.snapshotRevision
        let expected = Array(session.snapshotRevision + 1 ..< session.revision + 1)
        guard session.patches.map(\.revision) == expected, session.revision >= rowRevision else {
            throw .corrupt(path: c.path, detail: "session '\(id)': its patches are revisions "
                           + "\(session.patches.map(\.revision)), not \(session.snapshotRevision + 1)...\(max(rowRevision, session.revision))")
        }
        return session
    }

    // MARK: files and threads

    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Throws `io` when the path no longer names the file the store opened, saying whether it was
    /// deleted (or moved away) or replaced by another file: the operator's log line (issue 27).
    func checkFileIsStillThere() throws(StorageError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let what = code == ENOENT ? "was deleted (or moved away)"
                                      : "can no longer be found (\(String(cString: strerror(code))))"
            throw .io(path: path, detail: "the database file \(what) since the store opened it; writes are refused "
                      + "until the same file is back at that path or layoutd is restarted")
        }
        guard (UInt64(info.st_dev), UInt64(info.st_ino)) == identity else {
            throw .io(path: path, detail: "the database file was replaced by another file since the store opened it "
                      + "(device \(identity.device) inode \(identity.inode), now device \(info.st_dev) inode \(info.st_ino)); "
                      + "writes are refused until the same file is back at that path or layoutd is restarted")
        }
    }

    /// The database and its write-ahead log, in bytes.
    var fileBytes: Int {
        [path, path + "-wal"].reduce(0) { total, p in
            var info = stat()
            return total + (stat(p, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    /// Creates the database file, mode 0600, when it is absent (SQLite would make it 0644 less the
    /// umask; its `-wal` and `-shm` files take the database file's mode, so they are 0600 too).
    /// Returns whether the file is new (absent or empty). An existing file keeps its mode.
    static func createPrivateFile(_ path: String) throws(StorageError) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_size == 0 }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return false }  // made meanwhile by another process
            throw .io(path: path, detail: "cannot create the database file: \(String(cString: strerror(errno)))")
        }
        // The umask cannot widen 0600, but an odd one (0o177 aside) could narrow it to unusable.
        _ = fchmod(fd, 0o600)
        Glibc.close(fd)
        return true
    }

    private static func makeParentDirectory(of path: String) throws(StorageError) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !parts.isEmpty else { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        if parts.first == "" { parts = parts.dropFirst() }
        for part in parts where !part.isEmpty {
            prefix += "/" + part
            // 0700: the sessions are the tenants' documents (issue 33); an existing directory
            // keeps its mode (the operator's choice).
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(path: path, detail: "cannot create the directory \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }
}
