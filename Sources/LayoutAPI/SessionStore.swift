/// The sessions by id: a lock around the dictionary (held only for lookups and inserts, never
/// while solving), idle expiry and the session limit.
///
/// Expiry is lazy: a lookup of an expired session drops it, an insert at the limit sweeps first,
/// and any access sweeps when the last sweep is older than `sweepInterval`; `sweep()` lets the
/// daemon do it on a timer too. Lock order: the store's lock is never taken while a session's
/// lock is held, and the store never takes a session's lock while holding its own.
final class SessionStore: Sendable {
    private struct Entry {
        let session: Session
        var lastUsed: Double
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        var lastSweep: Double
    }

    private let table: Locked<Table>
    let maxSessions: Int
    /// Seconds; 0 or less: sessions never expire.
    let idleTimeout: Double
    let clock: @Sendable () -> Double

    var sweepInterval: Double { min(max(idleTimeout, 1), 60) }

    init(maxSessions: Int, idleTimeout: Double, clock: @escaping @Sendable () -> Double) {
        self.maxSessions = maxSessions
        self.idleTimeout = idleTimeout
        self.clock = clock
        self.table = Locked(Table(lastSweep: clock()))
    }

    var count: Int { table.withLock { $0.entries.count } }

    /// The live session with this id, marking it used now; nil when absent or expired.
    func lookup(_ id: String) -> Session? {
        let now = clock()
        var dropped: [Session] = []
        let found: Session? = table.withLock { t in
            dropped = sweepIfDue(&t, now: now)
            guard let e = t.entries[id] else { return nil }
            if isExpired(e, now: now) {
                t.entries[id] = nil
                dropped.append(e.session)
                return nil
            }
            t.entries[id]?.lastUsed = now
            return e.session
        }
        retire(dropped)
        return found
    }

    /// The session with this id as held now, without marking it used or expiring it.
    func peek(_ id: String) -> Session? {
        table.withLock { $0.entries[id]?.session }
    }

    enum InsertResult {
        case inserted
        case exists(Session)
        case full
    }

    /// Adds `session` unless its id is taken or the limit is reached (after dropping expired ones).
    func insert(_ session: Session) -> InsertResult {
        let now = clock()
        var dropped: [Session] = []
        let result: InsertResult = table.withLock { t in
            dropped = sweepIfDue(&t, now: now)
            if let e = t.entries[session.id] {
                if !isExpired(e, now: now) { return .exists(e.session) }
                t.entries[session.id] = nil
                dropped.append(e.session)
            }
            if t.entries.count >= maxSessions {
                dropped += sweep(&t, now: now)
                if t.entries.count >= maxSessions { return .full }
            }
            t.entries[session.id] = Entry(session: session, lastUsed: now)
            return .inserted
        }
        retire(dropped)
        return result
    }

    /// Removes this very session (not a newer one with the same id). The caller marks it dead.
    func remove(_ session: Session) {
        table.withLock { t in
            if t.entries[session.id]?.session === session { t.entries[session.id] = nil }
        }
    }

    /// Drops every expired session now; returns how many.
    @discardableResult
    func sweep() -> Int {
        let now = clock()
        let dropped = table.withLock { sweep(&$0, now: now) }
        retire(dropped)
        return dropped.count
    }

    /// Quick check before doing the work of a create (the insert checks again).
    var isFull: Bool {
        let now = clock()
        return table.withLock { t in
            t.entries.count >= maxSessions && !t.entries.values.contains { isExpired($0, now: now) }
        }
    }

    // MARK: private

    private func isExpired(_ e: Entry, now: Double) -> Bool {
        idleTimeout > 0 && now - e.lastUsed >= idleTimeout
    }

    private func sweepIfDue(_ t: inout Table, now: Double) -> [Session] {
        guard idleTimeout > 0, now - t.lastSweep >= sweepInterval else { return [] }
        return sweep(&t, now: now)
    }

    private func sweep(_ t: inout Table, now: Double) -> [Session] {
        t.lastSweep = now
        guard idleTimeout > 0 else { return [] }
        var dropped: [Session] = []
        for (id, e) in t.entries where isExpired(e, now: now) {
            dropped.append(e.session)
            t.entries[id] = nil
        }
        return dropped
    }

    /// Marks dropped sessions dead, outside the store's lock (see the lock order above), and
    /// ends their event streams.
    private func retire(_ sessions: [Session]) {
        for s in sessions {
            s.state.withLock { $0.alive = false }
            s.events.end(sessionID: s.id, reason: "expired")
        }
    }
}
