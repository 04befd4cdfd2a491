import CSQLite
import Storage

/// A prepared statement: bind by position (1-based), step, read columns (0-based), reset.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ index: Int32, _ value: Int) { sqlite3_bind_int64(handle, index, Int64(value)) }
    func bind(_ index: Int32, _ value: UInt64) { sqlite3_bind_int64(handle, index, Int64(bitPattern: value)) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String) { sqlite3_bind_text(handle, index, value, -1, csqlite_transient()) }
    func bind(_ index: Int32, _ value: [UInt8]?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        // A zero-length blob still binds as a blob (not NULL): SQLite needs a non-null pointer.
        value.withUnsafeBytes { b in
            _ = sqlite3_bind_blob64(handle, index, b.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(b.count),
                                    csqlite_transient())
        }
    }

    /// Runs the statement to its next row: true when there is one, false when done.
    func step() throws(StorageError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = connection.error(code)
            reset()
            throw error
        }
    }

    /// Runs a statement that answers no row.
    func run() throws(StorageError) {
        defer { reset() }
        _ = try step()
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func uint64(_ column: Int32) -> UInt64 { UInt64(bitPattern: sqlite3_column_int64(handle, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: p)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }
}
