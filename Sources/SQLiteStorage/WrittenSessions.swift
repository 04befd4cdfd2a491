import Storage

/// What the leader knows of a stored session (`SQLiteSessionStorage.stored`). The store is this
/// process's alone (`isShared` is false; `layoutd store compact` from another process folds
/// patches but never changes a revision), so the generation and revision its own writes made stay
/// true until its next write: the fence needs no read of the file, and an append writes only its
/// patch. (After another process's compaction the patch counts are high: a snapshot comes early.)
struct WrittenSession {
    var key: Int
    var generation: UInt64
    var revision: Int
    var snapshotBytes: Int
    var patchCount: Int
    var patchBytes: Int
    /// The `last_used` in the session's row, and the time of its last write (may be later).
    var rowWritten: Double
    var lastWrite: Double
    /// The write id of `revision` (`WriteChain`).
    var writeID: UInt64

    /// What the fence compares.
    var fenced: Fence.Stored { (generation, revision, writeID) }
}

/// The sessions the leader wrote or read for a fence, used only by the leader. Bounded: past
/// `capacity` it starts again empty (a miss costs one read of the file).
final class WrittenSessions {
    private(set) var sessions: [String: WrittenSession] = [:]
    let capacity: Int

    init(capacity: Int = 16_384) { self.capacity = capacity }

    func remember(_ id: String, _ session: WrittenSession) {
        if sessions.count >= capacity && sessions[id] == nil { sessions.removeAll() }
        sessions[id] = session
    }

    func forget(_ id: String) { sessions[id] = nil }
    func forgetAll() { sessions.removeAll() }
}
