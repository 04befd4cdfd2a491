/// When a session's patches are folded into a new snapshot, so that a load replays a bounded
/// number of patches and the stored patches never outweigh the document.
///
/// Due after `maxPatches` patches (replay time), or once the patches' total size exceeds the
/// snapshot's (disk: a session then takes at most about twice its document). Writing a snapshot
/// costs the document's size once per due point, so a PATCH costs its own size plus, amortised,
/// the document's size over `maxPatches`: for a 5,000-view document about 1/100 of it.
public struct SnapshotPolicy: Equatable, Sendable {
    public var maxPatches: Int

    public init(maxPatches: Int = 100) {
        precondition(maxPatches >= 1, "maxPatches must be at least 1")
        self.maxPatches = maxPatches
    }

    public func isDue(patchCount: Int, patchBytes: Int, snapshotBytes: Int) -> Bool {
        patchCount >= maxPatches || patchBytes > snapshotBytes
    }
}

/// The fencing rule every backend applies before a write (see `Conflict`). `stored` is what the
/// store holds for the id now: (generation, revision), nil when absent.
public enum Fence {
    public typealias Stored = (generation: UInt64, revision: Int, writeID: UInt64)

    /// A create: the id must be absent.
    public static func create(_ id: String, stored: Stored?) throws(StorageError) {
        if let stored { throw conflict(id, 0, 0, nil, stored) }
    }

    /// A write that makes `revision`: the stored session must be (generation, revision - 1) with
    /// the write id `base` (nil: any, see `SessionStorage.replace`).
    public static func next(_ id: String, generation: UInt64, revision: Int, base: UInt64?,
                            stored: Stored?) throws(StorageError) {
        guard let stored, stored.generation == generation, stored.revision == revision - 1,
              base == nil || base == stored.writeID else {
            throw conflict(id, generation, revision - 1, base, stored)
        }
    }

    /// A write about the stored revision itself (a snapshot): the stored session must be
    /// (generation, revision) with the write id `base` (nil: any).
    public static func current(_ id: String, generation: UInt64, revision: Int, base: UInt64?,
                               stored: Stored?) throws(StorageError) {
        guard let stored, stored.generation == generation, stored.revision == revision,
              base == nil || base == stored.writeID else {
            throw conflict(id, generation, revision, base, stored)
        }
    }

    /// A delete or touch: the stored session must have `generation`.
    public static func generation(_ id: String, _ generation: UInt64, stored: Stored?) throws(StorageError) {
        guard let stored, stored.generation == generation else {
            throw conflict(id, generation, stored?.revision ?? 0, nil, stored)
        }
    }

    private static func conflict(_ id: String, _ generation: UInt64, _ revision: Int, _ base: UInt64?,
                                 _ stored: Stored?) -> StorageError {
        .conflict(Conflict(id: id, expectedGeneration: generation, expectedRevision: revision,
                           storedGeneration: stored?.generation, storedRevision: stored?.revision,
                           expectedWriteID: base, storedWriteID: stored?.writeID))
    }
}

/// The first generation a new store hands out: the wall clock in microseconds, so that a store
/// made anew (the memory store after a restart, a deleted database file) does not hand out a
/// generation, and so an `ETag`, that a client may still hold from the one before.
public func initialGeneration(now: Double) -> UInt64 {
    UInt64(max(1, now * 1_000_000))
}
