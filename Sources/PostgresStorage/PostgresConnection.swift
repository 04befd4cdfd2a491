#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Primitives
import Storage

/// One libpq connection with its prepared statements. Not thread-safe: the pool lends it to one
/// caller at a time.
final class PostgresConnection {
    let handle: OpaquePointer
    /// Names of the statements prepared on this connection (a prepared statement lives as long as
    /// its connection: a new connection prepares them again).
    private var prepared: Set<String> = []
    /// A call waited `answerTimeout` for the server and gave up: the connection is in an unknown
    /// state (a statement may be running or committed), so it is never used again.
    private(set) var abandoned = false

    /// How long a call waits for the server's answer. A server that stopped (SIGSTOP, a VM paused,
    /// a network that drops packets without a reset) keeps the TCP connection open, so neither
    /// keepalives nor `tcp_user_timeout` end the wait; this does. Generous next to any statement
    /// the store runs (milliseconds), short next to a client's patience.
    static let answerTimeout = 10.0

    /// Connects to `url` (a `postgres://` URL or any libpq connection string). `defaults` come
    /// before the URL, so that what the URL says wins over them.
    convenience init(url: String, defaults: [(String, String)]) throws(StorageError) {
        let keywords = defaults.map(\.0) + ["dbname"]
        let values = defaults.map(\.1) + [url]
        let raw = withCStrings(keywords) { k in
            withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let raw else { throw StorageError.unavailable("PostgreSQL: libpq could not allocate a connection") }
        guard PQstatus(raw) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(raw))
            PQfinish(raw)
            throw StorageError.unavailable("cannot connect to PostgreSQL: \(message)")
        }
        self.init(adopting: raw)
    }

    /// Takes over `raw`, a connection made (`CONNECTION_OK`) by other means (the listener's
    /// non-blocking connect); it is finished with this value.
    init(adopting raw: OpaquePointer) {
        handle = raw
        // libpq prints the server's notices and a closing server's last words on stderr by
        // default; the store reports what matters through its errors instead.
        PQsetNoticeProcessor(raw, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable, without a round trip: a server that closed it (a
    /// restart, `pg_terminate_backend`) left an end of file (or an error message) to read.
    var isAlive: Bool {
        guard !abandoned, PQstatus(handle) == CONNECTION_OK else { return false }
        var fds = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        // Anything to read while idle is a notification, or a server closing the connection: it
        // sends its reason (FATAL) first and the end of the stream after, which may not have
        // arrived yet when the reason has (seen under load: the write that followed then failed).
        // So bytes that held no notification count as a closing connection: at worst a
        // connection that got a stray notice is opened again.
        var onlyNotifications = true
        while poll(&fds, 1, 0) > 0 {
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { return false }
            var notified = false
            while let n = PQnotifies(handle) {
                PQfreemem(n)
                notified = true
            }
            if !notified { onlyNotifications = false }
            fds.revents = 0
        }
        return onlyNotifications && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    var isConnected: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }
    var isIdleOutsideTransaction: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// The process id of the server process serving this connection (tests terminate it).
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs `sql` (no parameters; several statements allowed), rows ignored.
    func execute(_ sql: String) throws(StorageError) {
        let result = try answer(to: PQsendQuery(handle, sql), what: sql)
        defer { PQclear(result) }
        try check(result, what: sql)
    }

    /// Runs `sql` (no parameters) and answers its rows, text-format.
    func texts(_ sql: String) throws(StorageError) -> [[String?]] {
        let result = try answer(to: PQsendQuery(handle, sql), what: sql)
        defer { PQclear(result) }
        try check(result, what: sql)
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { col in
                PQgetisnull(result, row, col) != 0 ? nil : String(cString: PQgetvalue(result, row, col))
            }
        }
    }

    /// Prepares `statement` on this connection unless it is already.
    func prepare(_ statement: PostgresStatement) throws(StorageError) {
        if prepared.contains(statement.name) { return }
        let types = statement.types.map(\.rawValue)
        let result = try answer(to: PQsendPrepare(handle, statement.name, statement.sql, Int32(types.count), types),
                                what: "preparing \(statement.name)")
        defer { PQclear(result) }
        try check(result, what: "preparing \(statement.name)")
        prepared.insert(statement.name)
    }

    /// Runs the prepared `statement` with `parameters` (bytes as binary, the rest as text) and
    /// answers its rows in binary format.
    func run(_ statement: PostgresStatement, _ parameters: [PostgresValue]) throws(StorageError) -> PostgresRows {
        try prepare(statement)
        // One buffer for every parameter's bytes, each NUL-terminated (text parameters need it).
        var buffer: [UInt8] = []
        buffer.reserveCapacity(parameters.reduce(0) { $0 + $1.encodedCount + 1 })
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for p in parameters {
            switch p {
            case .null:
                offsets.append(nil); lengths.append(0); formats.append(0)
                continue
            case .bytes(let b):
                offsets.append(buffer.count); lengths.append(Int32(b.count)); formats.append(1)
                buffer += b
            case .text(let s):
                offsets.append(buffer.count); lengths.append(Int32(s.utf8.count)); formats.append(0)
                buffer += s.utf8
            case .int(let i):
                offsets.append(buffer.count); formats.append(0)
                let s = String(i)
                lengths.append(Int32(s.utf8.count)); buffer += s.utf8
            case .double(let d):
                offsets.append(buffer.count); formats.append(0)
                let s = "\(d)"
                lengths.append(Int32(s.utf8.count)); buffer += s.utf8
            }
            buffer.append(0)
        }
        let sent: Int32 = buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let values: [UnsafePointer<CChar>?] = offsets.map { o in
                o.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            }
            return PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 1)
        }
        let result = try answer(to: sent, what: statement.name)
        do throws(StorageError) {
            try check(result, what: statement.name)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresRows(result!)
    }

    /// Waits, at most `answerTimeout`, for the results of the query just sent (`sent`: what the
    /// `PQsend…` call answered) and answers the last one, as `PQexec` would (nil when libpq could
    /// not even send it: `check` reads the connection's error then). A server that does not answer
    /// in time leaves the connection `abandoned`.
    private func answer(to sent: Int32, what: String) throws(StorageError) -> OpaquePointer? {
        guard sent == 1 else { return nil }
        let deadline = MonotonicTime.now.seconds + Self.answerTimeout
        func wait(for events: Int32) throws(StorageError) {
            let left = deadline - MonotonicTime.now.seconds
            var fd = pollfd(fd: PQsocket(handle), events: Int16(events), revents: 0)
            let ready = left > 0 ? poll(&fd, 1, Int32(min(left, 3600) * 1000) + 1) : 0
            if ready == 0 {
                abandoned = true
                throw StorageError.unavailable("PostgreSQL did not answer \(what) within \(Int(Self.answerTimeout)) s")
            }
        }
        // The query may not have left in one write (a large document): flush it all first.
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { break }
            if flushed < 0 { return nil }
            try wait(for: Int32(POLLOUT | POLLIN))
            if PQconsumeInput(handle) == 0 { return nil }
        }
        var last: OpaquePointer? = nil
        while true {
            while PQisBusy(handle) != 0 {
                try wait(for: Int32(POLLIN))
                if PQconsumeInput(handle) == 0 { break }
            }
            guard let result = PQgetResult(handle) else { return last }
            if let last { PQclear(last) }
            last = result
            // COPY states never occur here (the store runs no COPY); a broken connection ends the loop.
            if PQstatus(handle) != CONNECTION_OK { return last }
        }
    }

    /// Throws what a failed result means for the store: the connection lost (or the server going
    /// away) is `unavailable`, retried by the caller; a full disk is `io`; data the server itself
    /// finds corrupt is `corrupt`; anything else `unavailable` with the server's words.
    private func check(_ result: OpaquePointer?, what: String) throws(StorageError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return }
        let message = Self.message(result.map { PQresultErrorMessage($0) } ?? PQerrorMessage(handle))
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        if PQstatus(handle) != CONNECTION_OK || state.hasPrefix("08") || state.hasPrefix("57P") {
            throw StorageError.unavailable("the connection to PostgreSQL was lost (\(message.isEmpty ? state : message))")
        }
        if state == "53100" || state.hasPrefix("58") {  // disk full; system I/O error
            throw StorageError.io(path: "PostgreSQL", detail: message)
        }
        if state.hasPrefix("XX001") || state.hasPrefix("XX002") {
            throw StorageError.corrupt(path: "PostgreSQL", detail: message)
        }
        throw StorageError.unavailable("PostgreSQL refused \(what): \(message) (SQLSTATE \(state))")
    }

    static func message(_ raw: UnsafePointer<CChar>?) -> String {
        guard let raw else { return "" }
        return String(cString: raw).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// A statement prepared on every connection on first use: a name, its SQL and its parameters'
/// types (so that `$3 - 1` needs no cast).
struct PostgresStatement: Sendable {
    let name: String
    let sql: String
    let types: [PostgresType]
}

/// Parameter types by object id (pg_type.oid).
enum PostgresType: UInt32, Sendable {
    case bytea = 17, int8 = 20, int4 = 23, text = 25, float8 = 701
}

/// A parameter's value.
enum PostgresValue {
    case null
    case text(String)
    case bytes([UInt8])
    case int(Int)
    case double(Double)

    var encodedCount: Int {
        switch self {
        case .null: return 0
        case .text(let s): return s.utf8.count
        case .bytes(let b): return b.count
        case .int, .double: return 24
        }
    }
}

/// The rows of a result in binary format; cleared when released.
final class PostgresRows {
    let result: OpaquePointer
    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    var count: Int { Int(PQntuples(result)) }

    func isNull(_ row: Int, _ col: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(col)) != 0 }

    func bytes(_ row: Int, _ col: Int) -> [UInt8] {
        let n = Int(PQgetlength(result, Int32(row), Int32(col)))
        guard n > 0, let p = PQgetvalue(result, Int32(row), Int32(col)) else { return [] }
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
    }

    func text(_ row: Int, _ col: Int) -> String { String(decoding: bytes(row, col), as: UTF8.self) }

    /// A big-endian integer of 2, 4 or 8 bytes (int2, int4, int8 in binary format).
    func int(_ row: Int, _ col: Int) -> Int {
        let b = bytes(row, col)
        var v: UInt64 = 0
        for byte in b { v = v << 8 | UInt64(byte) }
        switch b.count {
        case 2: return Int(Int16(truncatingIfNeeded: v))
        case 4: return Int(Int32(truncatingIfNeeded: v))
        default: return Int(Int64(bitPattern: v))
        }
    }

    func double(_ row: Int, _ col: Int) -> Double {
        let b = bytes(row, col)
        guard b.count == 8 else { return 0 }
        return Double(bitPattern: b.reduce(0) { $0 << 8 | UInt64($1) })
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
