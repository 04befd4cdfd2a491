import CSQLite
import Storage

/// One SQLite connection with its prepared statements, kept for the connection's life (each is
/// prepared on first use and reset after each use). Not thread-safe: its owner serialises use.
final class SQLiteConnection {
    let handle: OpaquePointer
    /// The database file, for error messages.
    let path: String
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating when absent) the database at `path`.
    init(path: String) throws(StorageError) {
        var db: OpaquePointer?
        // NOMUTEX: each connection is used by one thread at a time (its owner's lock).
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw SQLiteConnection.error(code, message, path: path)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Before any statement: the first ones an opener runs (`PRAGMA auto_vacuum`, the journal
        // mode, the schema) take locks too, and without a handler SQLite answers SQLITE_BUSY at
        // once when another process holds one (issue 33: `store check` on a live file failed
        // within 10 ms with "database is locked").
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
    }

    /// How long a statement waits for another connection's lock before it fails with SQLITE_BUSY.
    static let busyTimeoutMilliseconds: Int32 = 5000

    deinit { close() }

    private(set) var closed = false

    func close() {
        guard !closed else { return }
        closed = true
        statements.removeAll()  // finalised first: close_v2 would otherwise keep the file open
        sqlite3_close_v2(handle)
    }

    /// The cached statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws(StorageError) -> SQLiteStatement {
        if let s = statements[sql] { return s }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw error(code) }
        let s = SQLiteStatement(raw, connection: self)
        statements[sql] = s
        return s
    }

    /// Runs `sql` (one or more statements, no parameters, rows ignored).
    func execute(_ sql: String) throws(StorageError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// The first column of the first row of `sql` as an integer (a pragma, a count).
    func integer(_ sql: String) throws(StorageError) -> Int {
        let s = try statement(sql)
        defer { s.reset() }
        return try s.step() ? s.int(0) : 0
    }

    /// Every row's first column as text (`PRAGMA quick_check`).
    func texts(_ sql: String) throws(StorageError) -> [String] {
        let s = try statement(sql)
        defer { s.reset() }
        var out: [String] = []
        while try s.step() { out.append(s.text(0)) }
        return out
    }

    /// Copies what it can of the log into the database file without waiting for, or holding up,
    /// any reader or writer (`SQLITE_CHECKPOINT_PASSIVE`); a failure leaves it for the next one.
    func checkpoint() {
        _ = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rolls back the open transaction, if any (after a failed write; its own failure is moot).
    func rollbackIfNeeded() {
        if inTransaction { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// The error for result `code` on this connection, with SQLite's message.
    func error(_ code: Int32) -> StorageError {
        SQLiteConnection.error(code, String(cString: sqlite3_errmsg(handle)), path: path)
    }

    /// SQLite's result codes as the store's errors: damaged content is `corrupt`; what the
    /// operating system refused (full, read-only, I/O, removed or moved file) is `io`; a lock held
    /// by another process past the busy timeout is `unavailable`.
    static func error(_ code: Int32, _ message: String, path: String) -> StorageError {
        switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .corrupt(path: path, detail: "\(message) (SQLite code \(code))")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .unavailable("\(path) \(lockedPhrase): \(message)")
        default:
            return .io(path: path, detail: "\(message) (SQLite code \(code))")
        }
    }

    /// What a SQLITE_BUSY error says, which `StorageError.isSQLiteBusy` recognises.
    static let lockedPhrase = "is locked by another connection"
}

extension StorageError {
    /// Whether this is SQLite's SQLITE_BUSY/SQLITE_LOCKED past the busy timeout: another process
    /// held a lock, and trying the whole transaction again later may succeed (`layoutd store`
    /// retries it; the daemon answers 503 with `Retry-After`).
    public var isSQLiteBusy: Bool {
        guard case .unavailable(let why) = self else { return false }
        return why.contains(SQLiteConnection.lockedPhrase)
    }
}

/// The rowid of the connection's last insert.
func sqlite3LastInsertRowID(_ c: SQLiteConnection) -> Int64 { sqlite3_last_insert_rowid(c.handle) }
