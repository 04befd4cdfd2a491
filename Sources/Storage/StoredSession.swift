import JSON

/// A session as the store holds it: enough to rebuild exactly what it answered.
///
/// The document at `revision` is `snapshot` with `patches` applied in order (each a JSON merge
/// patch, as the API received it, followed by canonicalisation: `replay`). Snapshots bound the
/// replay: a store writes a new one after `SnapshotPolicy` patches (see `appendPatch`).
public struct StoredSession: Equatable, Sendable {
    public var id: String
    /// New for each create of `id` (never reused, even after the id was deleted): the API puts it in
    /// the `ETag` so that a re-created session never answers a tag a client holds from the old one.
    public var generation: UInt64
    public var revision: Int
    /// The canonical document's bytes at `snapshotRevision`.
    public var snapshot: [UInt8]
    public var snapshotRevision: Int
    /// The merge patches after the snapshot, revisions `snapshotRevision + 1 ... revision` in order.
    public var patches: [StoredPatch]
    /// The last state of the session's `delegate` constraints (`LayoutSystem.rememberedDelegates`):
    /// the one thing a session remembers beyond its document.
    public var delegates: [String: Bool]
    /// Seconds since 1970 of the last write (or `touch`), for idle expiry across restarts.
    public var lastUsed: Double
    /// The write id of `revision` (`WriteChain`): what the next write must name as its base.
    /// 0 for sessions stored before write ids existed (the chain goes on from 0 on every node).
    public var writeID: UInt64

    public init(id: String, generation: UInt64, revision: Int, snapshot: [UInt8], snapshotRevision: Int,
                patches: [StoredPatch], delegates: [String: Bool], lastUsed: Double, writeID: UInt64 = 0) {
        self.writeID = writeID
        self.id = id
        self.generation = generation
        self.revision = revision
        self.snapshot = snapshot
        self.snapshotRevision = snapshotRevision
        self.patches = patches
        self.delegates = delegates
        self.lastUsed = lastUsed
    }

    /// The document at `revision`: the snapshot with the patches replayed by `replay`.
    public func document(replay: PatchReplay) throws -> [UInt8] {
        patches.isEmpty ? snapshot : try replay(snapshot, patches)
    }
}

/// One PATCH after a snapshot: the revision it made and the merge patch's bytes.
public struct StoredPatch: Equatable, Sendable {
    public var revision: Int
    public var bytes: [UInt8]

    public init(revision: Int, bytes: [UInt8]) {
        self.revision = revision
        self.bytes = bytes
    }
}

/// Applies merge patches to a canonical document and answers the canonical document they make
/// (the API's own rule: `DocumentParser.canonicalize` of each patched document). The store itself
/// knows nothing of documents: `compact` and readers are handed this.
public typealias PatchReplay = @Sendable (_ document: [UInt8], _ patches: [StoredPatch]) throws -> [UInt8]

/// The delegate memory as stored: a compact JSON object of booleans, readable with `sqlite3`.
public enum DelegateCoding {
    public static func encode(_ delegates: [String: Bool]) -> [UInt8] {
        if delegates.isEmpty { return Array("{}".utf8) }
        // Sorted keys: the same memory always writes the same bytes.
        let pairs = delegates.keys.sorted().map { ($0, JSONValue.bool(delegates[$0]!)) }
        return JSONWriter.serialize(.object(JSONObject(pairs)))
    }

    /// nil when `bytes` is not an object of booleans (the caller reports a corrupt record).
    public static func decode(_ bytes: [UInt8]) -> [String: Bool]? {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else { return nil }
        var out: [String: Bool] = [:]
        for (key, value) in object.entries {
            guard case .bool(let b) = value else { return nil }
            out[key] = b
        }
        return out
    }
}
