/// Why a store could not do what it was asked. Every write either completes (and is durable as
/// the store's `sync` promises) or throws one of these and changes nothing.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store cannot be reached or is closed (a database server away, `close()` called).
    /// Retrying later may succeed.
    case unavailable(String)
    /// The operating system refused a read or write: disk full, file or directory read-only, file
    /// removed, permission lost. Retrying after the operator fixed it succeeds; the API answers 503.
    case io(path: String, detail: String)
    /// The store's content is not what the store wrote: not a database, truncated, a broken page,
    /// a record that does not decode. `path` names the file (or table and key); `detail` what is wrong.
    case corrupt(path: String, detail: String)
    /// A write was fenced off: the stored session is not the one the caller edited (see `Conflict`).
    case conflict(Conflict)

    /// Whether the caller should answer 503 with `Retry-After` (the store may work again by
    /// itself or after an operator's fix); a conflict or corruption is not retried blindly.
    public var isRetryable: Bool {
        switch self {
        case .unavailable, .io: return true
        case .corrupt, .conflict: return false
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let why): return "session store unavailable: \(why)"
        case .io(let path, let detail): return "session store I/O error on \(path): \(detail)"
        case .corrupt(let path, let detail): return "session store \(path) is corrupt: \(detail)"
        case .conflict(let c): return c.description
        }
    }
}

/// A fenced write that lost: what the caller expected of the stored session and what is stored.
///
/// The rule, the same in every backend (and the later PostgreSQL one's fencing between nodes):
/// a create needs the id absent; a write of revision R for (id, generation) needs the stored
/// session to have that generation, revision R - 1 and the write id the writer's copy has at
/// R - 1 (`WriteChain`: a revision the store lost and another node made again has another id);
/// a delete needs the generation.
public struct Conflict: Equatable, Sendable, CustomStringConvertible {
    public var id: String
    /// (generation, revision) the caller wrote against; generation 0 and revision 0 for a create.
    public var expectedGeneration: UInt64
    public var expectedRevision: Int
    /// What is stored; nil when the id is absent.
    public var storedGeneration: UInt64?
    public var storedRevision: Int?
    /// The write ids, when the write named one (`WriteChain`).
    public var expectedWriteID: UInt64?
    public var storedWriteID: UInt64?

    public init(id: String, expectedGeneration: UInt64, expectedRevision: Int,
                storedGeneration: UInt64?, storedRevision: Int?,
                expectedWriteID: UInt64? = nil, storedWriteID: UInt64? = nil) {
        self.expectedWriteID = expectedWriteID
        self.storedWriteID = storedWriteID
        self.id = id
        self.expectedGeneration = expectedGeneration
        self.expectedRevision = expectedRevision
        self.storedGeneration = storedGeneration
        self.storedRevision = storedRevision
    }

    public var description: String {
        let stored = storedGeneration.map { "generation \($0) revision \(storedRevision ?? 0)" } ?? "no such session"
        // Same numbers, other content: the store lost the writer's revision and another write took its number.
        let content = storedGeneration == expectedGeneration && storedRevision == expectedRevision
            && expectedWriteID != nil && expectedWriteID != storedWriteID ? " written by another change" : ""
        return "write to session '\(id)' fenced off: it expected generation \(expectedGeneration) "
            + "revision \(expectedRevision), the store holds \(stored)\(content)"
    }
}
