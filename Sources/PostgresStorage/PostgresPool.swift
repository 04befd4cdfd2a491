import Primitives
import Storage

/// At most `size` connections to one database, each lent to one caller at a time.
///
/// Connections are made when a caller needs one and none is idle, so a store whose server is away
/// at start (or goes away later) costs nothing until it is asked; a caller then gets
/// `unavailable` at once and the next one tries again. An idle connection the server closed (a
/// restart, an administrator's `pg_terminate_backend`) is noticed before it is lent (its socket
/// has an end of file to read) and replaced, so the first request after the server is back
/// succeeds. A connection that failed during a call, or was left inside a transaction, is
/// dropped.
final class PostgresPool: @unchecked Sendable {
    let size: Int
    private let open: () throws(StorageError) -> PostgresConnection
    private let lock = PThreadLock()
    private var idle: [PostgresConnection] = []
    /// Connections lent out or being made.
    private var busy = 0
    private var closed = false
    /// The last failed attempt to connect: callers within `failFastSeconds` of it get its error
    /// without trying again (a server that is away is not asked by every request in a burst).
    private var lastFailure: (at: Double, error: StorageError)?
    private let failFastSeconds = 0.2
    private let now: @Sendable () -> Double

    init(size: Int, now: @escaping @Sendable () -> Double,
         open: @escaping () throws(StorageError) -> PostgresConnection) {
        self.size = max(1, size)
        self.now = now
        self.open = open
    }

    /// Runs `body` with a connection of its own. `idempotent` (a read): when a connection taken
    /// from the pool turns out to be broken during the call (the server closed it just before),
    /// the call is made once more on a new connection; a write is not repeated (it may have been
    /// applied), its caller gets `unavailable`.
    func with<R>(idempotent: Bool = false, _ body: (PostgresConnection) throws(StorageError) -> R) throws(StorageError) -> R {
        let taken: Result<PostgresConnection?, StorageError> = lock.withLock {
            while !closed && idle.isEmpty && busy >= size { lock.wait() }
            if closed { return .failure(.unavailable("the PostgreSQL store is closed")) }
            busy += 1
            return .success(idle.popLast())
        }
        var connection = try taken.get()
        defer {
            lock.withLock {
                busy -= 1
                if let connection, !closed, connection.isReusable { idle.append(connection) }
                lock.signal()
            }
        }
        if let c = connection, !c.isAlive { connection = nil }
        if let c = connection {
            do throws(StorageError) {
                return try body(c)
            } catch {
                guard idempotent, !c.isConnected else { throw error }
                connection = nil
            }
        }
        let fresh = try connect()
        connection = fresh
        return try body(fresh)
    }

    /// A new connection, unless the last attempt failed a moment ago (then its error).
    private func connect() throws(StorageError) -> PostgresConnection {
        if let failure = lock.withLock({ lastFailure }), now() - failure.at < failFastSeconds { throw failure.error }
        do throws(StorageError) {
            let c = try open()
            lock.withLock { lastFailure = nil }
            return c
        } catch {
            lock.withLock { lastFailure = (now(), error) }
            throw error
        }
    }

    /// Connections idle in the pool and lent out (or being made), for the daemon's metrics.
    var counts: (idle: Int, inUse: Int) { lock.withLock { (idle.count, busy) } }

    /// Closes the idle connections and refuses new callers; lent ones close when given back.
    func close() {
        let dropped = lock.withLock {
            closed = true
            lock.broadcast()
            defer { idle.removeAll() }
            return idle
        }
        _ = dropped  // released here, outside the lock: PQfinish may wait for the socket
    }
}

extension PostgresConnection {
    /// Fit to go back to the pool: connected and outside any transaction.
    var isReusable: Bool { isConnected && isIdleOutsideTransaction }
}
