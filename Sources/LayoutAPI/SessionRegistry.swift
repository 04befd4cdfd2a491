import Synchronization
import Primitives

/// The sessions by id: a lock around the dictionary (held only for lookups and inserts, never
/// while solving), idle expiry and the session limit.
///
/// Expiry is lazy: a lookup of an expired session drops it, an insert at the limit sweeps first,
/// and any access sweeps when the last sweep is older than `sweepInterval`; `sweep()` lets the
/// daemon do it on a timer too. Lock order: the store's lock is never taken while a session's
/// lock is held, and the store never takes a session's lock while holding its own.
///
/// Residency (with a budget, `maxResident` or `maxResidentBytes` > 0): every session a lookup or
/// insert hands out counts as resident (the caller is about to use its solver). When more than
/// `maxResident` are, the least recently used go to sleep (`Session.sleep`, outside the store's
/// lock) in a batch of `residentBatch`, so the choice (a sort of the resident ones) costs little
/// per request. When the sessions held take more than `maxResidentBytes` (`Session.footprint`,
/// summed in `memory` as they change), the least recently used go to sleep until what they give
/// back brings the total a sixteenth under the budget. Sizes change after the hand-out (a wake,
/// a PATCH that grows the document): the total is checked again at each hand-out, so it exceeds
/// the budget by at most what the requests in flight add.
final class SessionRegistry: Sendable {
    private struct Entry {
        let session: Session
        var lastUsed: Double
        /// `Table.uses` at the last lookup or insert: orders sessions by recency even when the
        /// clock reads the same for several requests.
        var use: UInt64
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        /// Ids of the sessions counted as resident.
        var resident: Set<String> = []
        var uses: UInt64 = 0
        var lastSweep: Double
    }

    private let table: Locked<Table>
    /// With a session store, the registry holds copies and idle expiry here only drops a copy:
    /// whether the session itself expired is the store's to say (`LayoutAPI.sweepStored`), since
    /// other nodes may be using it. A copy with event streams is kept (its streams end when the
    /// store expires the session, or follow it while other nodes edit it).
    let copiesOnly: Bool
    let maxSessions: Int
    /// Most sessions kept resident; 0: no limit.
    let maxResident: Int
    /// Most bytes the sessions held may take, estimated (`MemoryEstimate`); 0: no limit.
    let maxResidentBytes: Int
    /// The estimated bytes of the sessions held (each counted from its insert to its removal).
    let memory = MemoryAccount()
    /// Whether a budget asks for the resident sessions to be tracked.
    var budgeted: Bool { maxResident > 0 || maxResidentBytes > 0 }
    /// Seconds; 0 or less: sessions never expire.
    let idleTimeout: Double
    let clock: @Sendable () -> Double
    /// Called with the id of each session that leaves the registry (removed or expired): with a
    /// shared store, the node stops following its writes (`SessionStorage.unfollow`).
    let released: @Sendable (String) -> Void

    /// Set (for good) when the resident budget first puts a session to sleep: until then every
    /// session held is resident, and no request on one needs a wake (`LayoutAPI.isExpensive`).
    private let slept = Atomic<Bool>(false)

    /// Whether a session held here may be dormant (asleep) now.
    var mayHoldSleepers: Bool { slept.load(ordering: .acquiring) }

    private func putToSleep(_ sleepers: [Session]) {
        guard !sleepers.isEmpty else { return }
        slept.store(true, ordering: .releasing)
        for s in sleepers { s.sleep() }
    }

    var sweepInterval: Double { min(max(idleTimeout, 1), 60) }
    /// How many sessions go to sleep at once when the resident budget is exceeded.
    var residentBatch: Int { max(1, maxResident / 16) }

    init(maxSessions: Int, maxResident: Int = 0, maxResidentBytes: Int = 0, idleTimeout: Double,
         clock: @escaping @Sendable () -> Double, copiesOnly: Bool = false,
         released: @escaping @Sendable (String) -> Void = { _ in }) {
        self.copiesOnly = copiesOnly
        self.released = released
        self.maxSessions = maxSessions
        self.maxResident = maxResident
        self.maxResidentBytes = maxResidentBytes
        self.idleTimeout = idleTimeout
        self.clock = clock
        self.table = Locked(Table(lastSweep: clock()))
    }

    /// Sessions marked resident (an upper bound of those holding a solver).
    var residentCount: Int { table.withLock { $0.resident.count } }

    var count: Int { table.withLock { $0.entries.count } }

    /// The live session with this id, marking it used now; nil when absent or expired.
    func lookup(_ id: String) -> Session? {
        let now = clock()
        var dropped: [Session] = [], sleepers: [Session] = []
        let found: Session? = table.withLock { t in
            dropped = sweepIfDue(&t, now: now)
            // One hash of the id for the lookup and both updates (this runs on every request).
            guard let slot = t.entries.index(forKey: id) else { return nil }
            let e = t.entries.values[slot]
            if isExpired(e, now: now) {
                drop(id, from: &t)
                dropped.append(e.session)
                return nil
            }
            t.uses += 1
            t.entries.values[slot].lastUsed = now
            t.entries.values[slot].use = t.uses
            sleepers = countResident(id, in: &t)
            return e.session
        }
        retire(dropped)
        putToSleep(sleepers)
        return found
    }

    /// The session with this id as held now, without marking it used or expiring it.
    func peek(_ id: String) -> Session? {
        table.withLock { $0.entries[id]?.session }
    }

    /// Every session held now, without marking them used.
    func all() -> [Session] {
        table.withLock { $0.entries.values.map(\.session) }
    }

    enum InsertResult {
        case inserted
        case exists(Session)
        case full
    }

    /// Adds `session` unless its id is taken or the limit is reached (after dropping expired ones).
    func insert(_ session: Session) -> InsertResult {
        let now = clock()
        var dropped: [Session] = [], sleepers: [Session] = []
        let result: InsertResult = table.withLock { t in
            dropped = sweepIfDue(&t, now: now)
            if let e = t.entries[session.id] {
                if !isExpired(e, now: now) { return .exists(e.session) }
                drop(session.id, from: &t)
                dropped.append(e.session)
            }
            if t.entries.count >= maxSessions {
                dropped += sweep(&t, now: now)
                if t.entries.count >= maxSessions { return .full }
            }
            t.uses += 1
            t.entries[session.id] = Entry(session: session, lastUsed: now, use: t.uses)
            sleepers = countResident(session.id, in: &t)
            return .inserted
        }
        if case .inserted = result { session.count(in: memory) }
        retire(dropped)
        putToSleep(sleepers)
        return result
    }

    /// Removes this very session (not a newer one with the same id). The caller marks it dead.
    func remove(_ session: Session) {
        let removed: Bool = table.withLock { t in
            guard t.entries[session.id]?.session === session else { return false }
            drop(session.id, from: &t)
            return true
        }
        if removed {
            session.uncount()
            released(session.id)
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

    /// The sessions looked up or inserted at or after `time`, with their last use (uses the
    /// session store has yet to record: `LayoutAPI.recordUses`).
    func used(since time: Double) -> [(session: Session, at: Double)] {
        table.withLock { t in t.entries.values.compactMap { $0.lastUsed >= time ? ($0.session, $0.lastUsed) : nil } }
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
        idleTimeout > 0 && now - e.lastUsed >= idleTimeout && !(copiesOnly && e.session.events.count > 0)
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
            drop(id, from: &t)
        }
        return dropped
    }

    private func drop(_ id: String, from t: inout Table) {
        t.entries[id] = nil
        t.resident.remove(id)
    }

    /// Counts the session `id` as resident (it is being handed out); with a budget, returns the
    /// sessions that must go to sleep for it (`chooseSleepers`).
    private func countResident(_ id: String, in t: inout Table) -> [Session] {
        guard budgeted else { return [] }
        let added = t.resident.insert(id).inserted
        let overCount = maxResident > 0 && added && t.resident.count > maxResident
        // One relaxed load per hand-out: the byte budget is checked on every request.
        let overBytes = maxResidentBytes > 0 && memory.bytes > maxResidentBytes
        guard overCount || overBytes else { return [] }
        return chooseSleepers(&t, keeping: id)
    }

    /// When a resident budget is exceeded, marks the least recently used resident sessions
    /// (never `keeping`, the one being handed out) as asleep and returns them, for the caller to
    /// put to sleep once the store's lock is released: by count down to the budget less a batch,
    /// then by bytes until what they give back (`Session.reclaimableBytes`) brings the total a
    /// sixteenth under the byte budget; either margin puts the next sort a batch of requests away.
    private func chooseSleepers(_ t: inout Table, keeping: String) -> [Session] {
        var candidates: [(use: UInt64, id: String)] = []
        candidates.reserveCapacity(t.resident.count)
        for id in t.resident where id != keeping {
            if let e = t.entries[id] { candidates.append((e.use, id)) }
        }
        let overCount = maxResident > 0 && t.resident.count > maxResident
        let byCount = overCount ? min(candidates.count, t.resident.count - maxResident + residentBatch - 1) : 0
        var bytes = memory.bytes
        let target = maxResidentBytes - maxResidentBytes / 16
        candidates.sort { $0.use < $1.use }
        var sleepers: [Session] = []
        for (n, (_, id)) in candidates.enumerated() {
            guard n < byCount || (maxResidentBytes > 0 && bytes > target) else { break }
            t.resident.remove(id)
            guard let e = t.entries[id] else { continue }
            bytes -= e.session.reclaimableBytes
            sleepers.append(e.session)
        }
        return sleepers
    }

    /// Marks dropped sessions dead, outside the store's lock (see the lock order above), and
    /// ends their event streams.
    private func retire(_ sessions: [Session]) {
        guard !sessions.isEmpty else { return }
        for s in sessions {
            s.uncount()
            released(s.id)
            s.retire()
            // A copy (`copiesOnly`) has no streams: the session lives on in the store.
            s.events.end(sessionID: s.id, .expired)
        }
    }
}

extension SessionRegistry {
    /// How many sessions have ids starting with `prefix` (a tenant's: `tenant/`), counting no
    /// further than `limit` (a quota check needs no more).
    func count(prefix: String, upTo limit: Int) -> Int {
        table.withLock { t in
            var n = 0
            for id in t.entries.keys where id.hasPrefix(prefix) {
                n += 1
                if n >= limit { break }
            }
            return n
        }
    }
}
