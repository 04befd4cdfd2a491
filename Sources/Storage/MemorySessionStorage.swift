import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `SessionStorage` in this process's memory: `store: "memory"` (nothing survives a restart) and
/// the reference the SQLite store is tested against. The same fencing and snapshot rules.
///
/// `shared: true` makes it stand in for a store several nodes share (several `LayoutAPI`s in one
/// test process): it then sends a `StoreNotice` for every write, as PostgreSQL's does, on a queue of
/// its own after the write (never on the writer's thread, which holds its session's lock).
public final class MemorySessionStorage: SessionStorage {
    private struct Record {
        var session: StoredSession
        var patchBytes: Int
    }

    private struct State {
        var records: [String: Record] = [:]
        var lastGeneration: UInt64
        var closed = false
    }

    private let state: Mutex<State>
    public let policy: SnapshotPolicy
    private let clock: @Sendable () -> Double
    public let isShared: Bool
    private let observers = Mutex<[@Sendable (StoreNotice) -> Void]>([])
    /// Serial: notices reach observers in the order of the writes.
    private let notices = DispatchQueue(label: "layoutd.memory-store.notices")

    public init(policy: SnapshotPolicy = SnapshotPolicy(), clock: @escaping @Sendable () -> Double = wallClock,
                shared: Bool = false) {
        self.policy = policy
        self.clock = clock
        self.isShared = shared
        self.state = Mutex(State(lastGeneration: initialGeneration(now: clock())))
    }

    public func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        guard isShared else { return }
        observers.withLock { $0.append(handler) }
    }

    /// Tells the observers (shared only). Called after the write, outside the store's lock.
    private func tell(_ notice: StoreNotice) {
        guard isShared else { return }
        let handlers = observers.withLock { $0 }
        notices.async { for handler in handlers { handler(notice) } }
    }

    /// Sends `.lost` to the observers, as a shared store does when its listening connection came
    /// back (for tests).
    public func announceLostNotices() { tell(.lost) }

    /// Puts `session` back as the stored record of its id, as a database server restarted without
    /// its last commits does (PostgreSQL with `synchronous_commit = off`): for tests of what
    /// nodes do when the store lost acknowledged writes. Tells nobody.
    public func restore(_ session: StoredSession) {
        state.withLock { s in
            s.records[session.id] = Record(session: session, patchBytes: session.patches.reduce(0) { $0 + $1.bytes.count })
        }
    }

    /// Runs `body` on the records unless the store is closed.
    private func withOpen<R>(_ body: (inout State) throws(StorageError) -> R) throws(StorageError) -> R {
        try state.withLock { (s: inout State) throws(StorageError) -> R in
            if s.closed { throw StorageError.unavailable("the memory store is closed") }
            return try body(&s)
        }
    }

    private static func stored(_ r: Record?) -> Fence.Stored? {
        r.map { ($0.session.generation, $0.session.revision, $0.session.writeID) }
    }

    public func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        let now = clock()
        let generation = try withOpen { (s: inout State) throws(StorageError) -> UInt64 in
            try Fence.create(id, stored: Self.stored(s.records[id]))
            s.lastGeneration += 1
            s.records[id] = Record(session: StoredSession(id: id, generation: s.lastGeneration, revision: revision,
                                                          snapshot: document, snapshotRevision: revision, patches: [],
                                                          delegates: delegates, lastUsed: now,
                                                          writeID: WriteChain.created(document)), patchBytes: 0)
            return s.lastGeneration
        }
        tell(.changed(id: id, generation: generation, revision: revision, writeID: WriteChain.created(document)))
        return generation
    }

    public func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                        delegates: [String: Bool], base: UInt64?) throws(StorageError) {
        let now = clock()
        let writeID = try withOpen { (s: inout State) throws(StorageError) -> UInt64 in
            try Fence.next(id, generation: generation, revision: revision, base: base, stored: Self.stored(s.records[id]))
            let writeID = WriteChain.replaced(after: s.records[id]!.session.writeID, document)
            s.records[id] = Record(session: StoredSession(id: id, generation: generation, revision: revision,
                                                          snapshot: document, snapshotRevision: revision, patches: [],
                                                          delegates: delegates, lastUsed: now, writeID: writeID),
                                   patchBytes: 0)
            return writeID
        }
        tell(.changed(id: id, generation: generation, revision: revision, writeID: writeID))
    }

    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        let now = clock()
        let (result, writeID) = try withOpen { (s: inout State) throws(StorageError) -> (AppendResult, UInt64) in
            try Fence.next(id, generation: generation, revision: revision, base: base, stored: Self.stored(s.records[id]))
            let writeID = WriteChain.patched(after: s.records[id]!.session.writeID, patch)
            s.records[id]!.session.writeID = writeID
            // In place (the fence made sure it exists): a copy of the record would copy its patches.
            s.records[id]!.session.revision = revision
            s.records[id]!.session.patches.append(StoredPatch(revision: revision, bytes: patch))
            s.records[id]!.patchBytes += patch.count
            if let delegates { s.records[id]!.session.delegates = delegates }
            s.records[id]!.session.lastUsed = now
            let r = s.records[id]!
            return (AppendResult(snapshotDue: policy.isDue(patchCount: r.session.patches.count, patchBytes: r.patchBytes,
                                                           snapshotBytes: r.session.snapshot.count)), writeID)
        }
        tell(.changed(id: id, generation: generation, revision: revision, writeID: writeID, patch: patch))
        return result
    }

    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError) {
        try withOpen { (s: inout State) throws(StorageError) in
            try Fence.current(id, generation: generation, revision: revision, base: base, stored: Self.stored(s.records[id]))
            s.records[id]!.session.snapshot = document
            s.records[id]!.session.snapshotRevision = revision
            s.records[id]!.session.patches = []
            s.records[id]!.patchBytes = 0
        }
    }

    public func delete(id: String, generation: UInt64) throws(StorageError) {
        try withOpen { (s: inout State) throws(StorageError) in
            try Fence.generation(id, generation, stored: Self.stored(s.records[id]))
            s.records[id] = nil
        }
        tell(.deleted(id: id, generation: generation))
    }

    public func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        let expired = try withOpen { (s: inout State) throws(StorageError) -> Bool in
            guard let r = s.records[id], r.session.generation == generation, r.session.lastUsed < time else { return false }
            s.records[id] = nil
            return true
        }
        if expired { tell(.deleted(id: id, generation: generation)) }
        return expired
    }

    public func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        try withOpen { (s: inout State) throws(StorageError) in
            try Fence.generation(id, generation, stored: Self.stored(s.records[id]))
            s.records[id]!.session.lastUsed = time
        }
    }

    public func touch(_ uses: [SessionUse]) throws(StorageError) {
        try withOpen { (s: inout State) throws(StorageError) in
            for use in uses where s.records[use.id]?.session.generation == use.generation {
                s.records[use.id]!.session.lastUsed = max(s.records[use.id]!.session.lastUsed, use.time)
            }
        }
    }

    public func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        let idle = try withOpen { (s: inout State) throws(StorageError) -> [SessionKey] in
            let idle = s.records.values.filter { $0.session.lastUsed < time }
                .map { SessionKey(id: $0.session.id, generation: $0.session.generation) }
            for key in idle { s.records[key.id] = nil }
            return idle
        }
        for key in idle { tell(.deleted(id: key.id, generation: key.generation)) }
        return idle
    }

    public func load(id: String) throws(StorageError) -> StoredSession? {
        try withOpen { (s: inout State) throws(StorageError) -> StoredSession? in s.records[id]?.session }
    }

    public func count() throws(StorageError) -> Int {
        try withOpen { (s: inout State) throws(StorageError) -> Int in s.records.count }
    }

    public func ids(after: String?, limit: Int) throws(StorageError) -> [String] {
        // A sort of every id per page: fine for tests and `store: "memory"` (bounded by maxSessions).
        try withOpen { (s: inout State) throws(StorageError) -> [String] in
            let all = s.records.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let start = after.map { a in all.firstIndex { !$0.utf8.lexicographicallyPrecedes(a.utf8) && $0 != a } ?? all.endIndex } ?? 0
            return Array(all[start...].prefix(max(0, limit)))
        }
    }

    @discardableResult
    public func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport {
        let pending = try withOpen { (s: inout State) throws(StorageError) -> [StoredSession] in
            s.records.values.map(\.session).filter { !$0.patches.isEmpty }
        }
        var report = CompactionReport(sessionsFolded: 0, patchesFolded: 0, failures: [], fileBytesBefore: 0, fileBytesAfter: 0)
        for session in pending {
            do {
                let document = try replay(session.snapshot, session.patches)
                try saveSnapshot(id: session.id, generation: session.generation, revision: session.revision, document: document)
                report.sessionsFolded += 1
                report.patchesFolded += session.patches.count
            } catch StorageError.conflict {
                continue  // changed meanwhile: its next snapshot is the writer's business
            } catch {
                report.failures.append("session '\(session.id)': \(error)")
            }
        }
        return report
    }

    public func check() throws(StorageError) -> StorageCheck {
        try withOpen { (s: inout State) throws(StorageError) -> StorageCheck in
            var problems: [String] = []
            var patches = 0, snapshotBytes = 0
            for r in s.records.values {
                patches += r.session.patches.count
                snapshotBytes += r.session.snapshot.count
                let expected = Array(r.session.snapshotRevision + 1 ..< r.session.revision + 1)
                if r.session.patches.map(\.revision) != expected {
                    problems.append("session '\(r.session.id)': patches are not revisions \(expected)")
                }
            }
            return StorageCheck(problems: problems, sessions: s.records.count, patches: patches,
                                snapshotBytes: snapshotBytes, fileBytes: 0)
        }
    }

    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Nothing to write: the records are this process's memory; a closed store is unavailable.
    public func probe(write: Bool) throws(StorageError) {
        try withOpen { _ in }
    }
}

/// Seconds since 1970 from the system's real-time clock.
@Sendable public func wallClock() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_REALTIME, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
