import JSON
import LayoutEngine
import LayoutModel
import Primitives
import Storage

/// The one component that changes what the session store holds (issue 28): a session's create,
/// the commit of each revision (`SessionState.commit` writes here at its durability seam), its
/// snapshots, its delete, its expiry and the uses recorded for expiry, and the readiness probe's
/// write. Nothing else in the API writes to `SessionStorage`; session reads (`load`) go through
/// here too. It also maps a failed call to an answer. Nil in `LayoutAPI` with `store: memory`.
struct SessionRepository: Sendable {
    private let storage: any SessionStorage
    /// The store's time (seconds since 1970) less the API's clock, taken when the API was made
    /// (`LayoutAPI.storeTime`).
    let storeClockOffset: Double
    /// The API's clock reading up to which sessions' uses are recorded in the store (`recordUses`).
    let usesRecorded = Locked(0.0)
    /// The API's `noticeEpoch`: moved on by every write that failed other than by a conflict.
    /// A failed write may have been committed (a connection lost before the answer) or may come
    /// with a store that lost acknowledged writes (a server restarted): every copy is checked
    /// against the store before its next use.
    let noticeEpoch: Locked<Int>

    init(storage: any SessionStorage, storeClockOffset: Double, noticeEpoch: Locked<Int>) {
        self.storage = storage
        self.storeClockOffset = storeClockOffset
        self.noticeEpoch = noticeEpoch
    }

    // MARK: reads

    /// The stored session `id`, nil when there is none.
    func load(id: String) throws(StorageError) -> StoredSession? { try storage.load(id: id) }

    /// Whether other nodes write the store too.
    var isShared: Bool { storage.isShared }

    /// Starts (`follow`) or stops (`unfollow`) hearing the store's notices of `id`'s writes
    /// (targeted notices: a node listens to the sessions it holds copies of).
    func follow(_ id: String) { storage.follow(id) }
    func unfollow(_ id: String) { storage.unfollow(id) }

    /// The store's readiness probe (`SessionStorage.probe`): a read, or a one-row write.
    func probe(write: Bool) throws(StorageError) { try storage.probe(write: write) }

    // MARK: writes

    /// Stores a new session: its generation (see `SessionStorage.create`).
    func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        try counted { () throws(StorageError) in
            try storage.create(id: id, revision: revision, document: document, delegates: delegates)
        }
    }

    /// Removes (id, generation) from the store (DELETE, a create undone).
    func delete(id: String, generation: UInt64) throws(StorageError) {
        try counted { () throws(StorageError) in try storage.delete(id: id, generation: generation) }
    }

    /// Idle expiry of one session, decided by the store on its own record of the last use.
    func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        try counted { () throws(StorageError) in try storage.expire(id: id, generation: generation, before: time) }
    }

    /// Idle expiry of every stored session last used before `time` (one statement).
    func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        try counted { () throws(StorageError) in try storage.expire(before: time) }
    }

    /// Records the uses since the last sweep (one write).
    func touch(_ uses: [SessionUse]) throws(StorageError) {
        try counted { () throws(StorageError) in try storage.touch(uses) }
    }

    /// `body`, with a failure other than a conflict counted (`storeFailed`).
    private func counted<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        do throws(StorageError) {
            return try body()
        } catch {
            if case .conflict = error {} else { storeFailed() }
            throw error
        }
    }

    /// Makes `record` durable for (id, generation): a merge patch is appended (a record of the
    /// patch's size), a document replaces the stored one. `delegatesBefore` is the memory the
    /// stored session already has: an unchanged one is not written again. Answers whether the
    /// store wants a snapshot of the new document (`AppendResult.snapshotDue`).
    /// `base`: the write id of the revision the change builds on (the copy's).
    func write(_ record: CommitRecord, id: String, generation: UInt64, base: UInt64,
               delegatesBefore: [String: Bool]?) throws(StorageError) -> Bool {
        try counted { () throws(StorageError) in
            try unfencedWrite(record, id: id, generation: generation, base: base, delegatesBefore: delegatesBefore)
        }
    }

    /// A write failed other than by a conflict (see `noticeEpoch`).
    func storeFailed() { noticeEpoch.withLock { $0 += 1 } }

    private func unfencedWrite(_ record: CommitRecord, id: String, generation: UInt64, base: UInt64,
                               delegatesBefore: [String: Bool]?) throws(StorageError) -> Bool {
        switch record.change {
        case .mergePatch(let bytes):
            let delegates = record.delegates == delegatesBefore ? nil : record.delegates
            return try storage.appendPatch(id: id, generation: generation, revision: record.revision, patch: bytes,
                                           delegates: delegates, base: base).snapshotDue
        case .document(let document):
            try storage.replace(id: id, generation: generation, revision: record.revision, document: document.bytes,
                                delegates: record.delegates, base: base)
            return false
        }
    }

    /// Folds the session's patches into a snapshot of its document at `revision`, after the
    /// commit installed it. A failure is not reported: the patch itself is already durable, a
    /// missing snapshot only makes the next load replay more patches, and the store asks again at
    /// the next PATCH (`snapshotDue` stays true until one is saved).
    func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], writeID: UInt64) {
        try? storage.saveSnapshot(id: id, generation: generation, revision: revision, document: document, base: writeID)
    }

    /// The API's rule for a PATCH, for replaying stored patches (`DocumentParser.replay`).
    static let replay: PatchReplay = { document, patches in
        try DocumentParser.replay(document, patches: patches.map(\.bytes))
    }

    /// The answer to a store failure: 503 with `Retry-After` when the store may work again (I/O,
    /// unavailable; also corruption found at run time, which an operator must see to but which the
    /// client can do nothing about); 409 for a fenced write (`Problems.staleSession`), which also
    /// tells the caller to drop its copy of the session.
    static func failure(_ error: StorageError, id: String) -> LayoutAPI.Failure {
        switch error {
        case .conflict(let conflict):
            var f = LayoutAPI.Failure(Problems.staleSession(id, conflict.description))
            f.staleSession = true
            return f
        // The store's own description names files on the server: the client gets the kind only.
        case .unavailable:
            return LayoutAPI.Failure(Problems.storeUnavailable("the session store is unavailable"))
        case .io:
            return LayoutAPI.Failure(Problems.storeUnavailable("the session store could not write it"))
        case .corrupt:
            return LayoutAPI.Failure(Problems.storeUnavailable("the session store found damage"))
        }
    }

    /// Stored sessions whose ids start with `prefix`, up to `limit` (tenant quotas).
    func count(prefix: String, upTo limit: Int) throws(StorageError) -> Int {
        try storage.count(prefix: prefix, upTo: limit)
    }
}

extension SessionState {
    /// Undoes step 1 of `commit` after the store refused the change: the system is solved again
    /// from `canonical` (still the previous document) with the delegate states it had before the
    /// edit, as a dormant session wakes; diagnostics and frames were not touched yet. A document
    /// that does not read back (it validated when stored, so never) leaves the session dead (404)
    /// rather than answering frames of a change that was not stored.
    mutating func rollBack(delegates: [String: Bool], limits: DocumentLimits) {
        memberContext = nil
        guard let json = try? JSONParser.parse(canonical.bytes, maxDepth: 1024),
              case .success(let document) = DocumentParser.parse(json, limits: limits) else {
            alive = false
            return
        }
        system = SessionState.solve(document, delegateMemory: delegates).system
    }
}
