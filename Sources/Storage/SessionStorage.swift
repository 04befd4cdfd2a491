/// Where sessions are kept between requests and across restarts: one record per session (its
/// snapshot, the merge patches after it, its revision, generation and delegate memory).
///
/// Every write is fenced (see `Conflict`): it names the generation, revision and write id
/// (`WriteChain`) it builds on and fails with `StorageError.conflict`, changing nothing, when the
/// store holds something else. A
/// write that returns is as durable as the store's `StorageSync` promises; one that throws changed
/// nothing. Methods may be called from any thread; writes to one session are serialised by the
/// caller (the session's lock), writes to different sessions may share a commit.
public protocol SessionStorage: AnyObject, Sendable {
    /// Stores a new session (POST, or PUT of an absent id) at `revision` with its whole canonical
    /// document, write id `WriteChain.created(document)`. Answers its generation, new to this id
    /// (greater than any the id had before). A conflict when the id is stored already.
    func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64

    /// Replaces the document of (id, generation) with a whole canonical document at `revision`
    /// (PUT of another document), which must be the stored revision + 1 and build on the stored
    /// write id `base` (nil: on whatever is stored at revision - 1, for tools that are the only
    /// writer); drops its patches. The new write id is `WriteChain.replaced(after:_:)`.
    func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                 delegates: [String: Bool], base: UInt64?) throws(StorageError)

    /// Appends the merge patch that made `revision` (a PATCH): a record of the patch's size,
    /// whatever the document's. `delegates` nil: unchanged. Answers whether a snapshot is due
    /// (`SnapshotPolicy`): the caller then hands the document at `revision` to `saveSnapshot`,
    /// which bounds what a load replays. Not saving one is safe, only slower to load. Fenced on
    /// the write id `base` as `replace`; the new write id is `WriteChain.patched(after:_:)`.
    @discardableResult
    func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                     delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult

    /// Makes `document` (the canonical document at `revision`, the stored revision, of write id
    /// `base`: nil for any) the session's snapshot and drops the patches it folds in.
    func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError)

    /// Removes the session from the store (DELETE, expiry); its records leave the disk.
    func delete(id: String, generation: UInt64) throws(StorageError)

    /// Deletes (id, generation) only when its last use (written or touched, by any process) is
    /// before `time`, in one conditional step; answers whether it did. Idle expiry of one session:
    /// no node deletes a session another node used since.
    func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool

    /// Records that the session was used at `time` (seconds since 1970) without a change, for idle
    /// expiry across restarts. Not fenced on the revision; cheap, and may be batched by the caller.
    func touch(id: String, generation: UInt64, at time: Double) throws(StorageError)

    /// Records each of `uses` (the reads the API batched since its last call) in one write: a
    /// session's last use becomes the use's time unless a later one is stored. A session no longer
    /// stored under that generation is skipped, not a conflict: it was deleted or made anew.
    func touch(_ uses: [SessionUse]) throws(StorageError)

    /// Deletes every stored session last used (written or touched) before `time`, as `delete`
    /// does, and answers which: idle expiry of the sessions nobody asked for since a restart.
    /// (Both have slow defaults, `SessionStorage+Expiry.swift`, for a backend without its own.)
    func expire(before time: Double) throws(StorageError) -> [SessionKey]

    /// The stored session, nil when there is none.
    func load(id: String) throws(StorageError) -> StoredSession?

    /// How many sessions are stored.
    func count() throws(StorageError) -> Int

    /// Up to `limit` stored ids greater than `after` (nil: from the first), in ascending byte order:
    /// pages over every session without holding them all.
    func ids(after: String?, limit: Int) throws(StorageError) -> [String]

    /// Folds every session's patches into a new snapshot (with `replay`, the API's own rule) and
    /// gives free space back to the file system.
    @discardableResult
    func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport

    /// Checks the store's integrity and its records' consistency, and counts what it holds.
    func check() throws(StorageError) -> StorageCheck

    /// Makes every acknowledged change durable and releases the store; later calls answer
    /// `StorageError.unavailable`.
    func close()

    /// Whether other processes write this store too (PostgreSQL shared by several nodes): then a
    /// session held in memory may fall behind the stored one, and `observe` says when.
    var isShared: Bool { get }

    /// Calls `handler` with every `StoreNotice` from now on, on a thread of the store's (it must
    /// not block for long). A store nobody else writes never calls it.
    func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void)

    /// This node holds, or is about to read, a copy of session `id`: a shared store tells it of
    /// writes to `id` from now on (`observe`; PostgreSQL: a `LISTEN` on the id's bucket), and
    /// returns once that is in place, so that a read of the session made after the call misses no
    /// write. Balanced by one `unfollow` when the copy is dropped. Stores nobody else writes, and
    /// the in-memory store (it tells every observer of every write), do nothing.
    func follow(_ id: String)

    /// The copy `follow` was called for is dropped.
    func unfollow(_ id: String)

    /// Checks cheaply that the store answers now, for readiness (`GET /readyz`, asked at most once
    /// a second): `write` false reads one small row; `write` true writes one (a probe row, never a
    /// session) and commits it, as durable as any write, so that it fails where a session's write
    /// would (disk full, file removed or replaced, database read-only or away). The API probes
    /// with a write only after a write failed, until one succeeds. Throws what that read or write
    /// would; the memory store only says whether it is closed.
    func probe(write: Bool) throws(StorageError)
}

extension SessionStorage {
    public func follow(_ id: String) {}
    public func unfollow(_ id: String) {}

    /// `replace` fenced on the revision alone: for tools and tests that are the store's only writer.
    public func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                        delegates: [String: Bool]) throws(StorageError) {
        try replace(id: id, generation: generation, revision: revision, document: document, delegates: delegates, base: nil)
    }

    /// `appendPatch` fenced on the revision alone: for tools and tests that are the only writer.
    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?) throws(StorageError) -> AppendResult {
        try appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates, base: nil)
    }

    /// `saveSnapshot` of whatever is stored at `revision`: for tools and tests.
    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8]) throws(StorageError) {
        try saveSnapshot(id: id, generation: generation, revision: revision, document: document, base: nil)
    }
}

/// What `appendPatch` answers.
public struct AppendResult: Equatable, Sendable {
    /// The caller should `saveSnapshot` the document at this revision.
    public var snapshotDue: Bool
    public init(snapshotDue: Bool) { self.snapshotDue = snapshotDue }
}

/// When durability is bought with an fsync: Redis's `appendfsync` words and promises.
public enum StorageSync: String, CaseIterable, Sendable {
    /// Each acknowledged change is on disk (fsynced) before its call returns; concurrent changes
    /// share one fsync (group commit). A crash of the machine loses nothing acknowledged.
    case always
    /// Each change is written to the operating system before its call returns (a crash of the
    /// process loses nothing) and fsynced within about a second (a crash of the machine or a power
    /// loss may lose the last second).
    case everysec
    /// Written to the operating system, never fsynced by the store: the kernel writes it back when
    /// it chooses (typically within 30 s on Linux); a crash of the process loses nothing.
    case never
}

/// What `check` found.
public struct StorageCheck: Equatable, Sendable {
    /// Everything wrong, one sentence each (which file or record, what is wrong); empty: intact.
    public var problems: [String]
    public var sessions: Int
    public var patches: Int
    /// The snapshots' total size (about the live canonical documents).
    public var snapshotBytes: Int
    /// The store's files on disk (the database and its journal), 0 in memory.
    public var fileBytes: Int

    public init(problems: [String], sessions: Int, patches: Int, snapshotBytes: Int, fileBytes: Int) {
        self.problems = problems
        self.sessions = sessions
        self.patches = patches
        self.snapshotBytes = snapshotBytes
        self.fileBytes = fileBytes
    }

    public var isIntact: Bool { problems.isEmpty }
}

/// What `compact` did.
public struct CompactionReport: Equatable, Sendable {
    /// Sessions whose patches were folded into a new snapshot, and how many patches that was.
    public var sessionsFolded: Int
    public var patchesFolded: Int
    /// Sessions whose patches could not be replayed (left as they were), with why.
    public var failures: [String]
    /// The store's files before and after.
    public var fileBytesBefore: Int
    public var fileBytesAfter: Int

    public init(sessionsFolded: Int, patchesFolded: Int, failures: [String], fileBytesBefore: Int, fileBytesAfter: Int) {
        self.sessionsFolded = sessionsFolded
        self.patchesFolded = patchesFolded
        self.failures = failures
        self.fileBytesBefore = fileBytesBefore
        self.fileBytesAfter = fileBytesAfter
    }
}
