import Primitives
import Storage

/// Any `SessionStorage`, timed: each call's latency and each failure's kind go to `APIMetrics`
/// (`layoutd_store_operation_duration_seconds`, `layoutd_store_errors_total`). `LayoutAPI` wraps
/// whatever store it is given, so every backend (memory, SQLite, the shared ones) is measured the
/// same way at the one seam the API writes through.
final class MeasuredSessionStorage: SessionStorage {
    let base: any SessionStorage
    /// Told of every failed call (the operation's label, the error, whether it was a write): the
    /// API's `StoreHealth`, which logs it and makes the node not ready after a failed write.
    let onFailure: (@Sendable (String, StorageError, Bool) -> Void)?

    init(_ base: any SessionStorage, onFailure: (@Sendable (String, StorageError, Bool) -> Void)? = nil) {
        self.base = base
        self.onFailure = onFailure
    }

    @inline(__always)
    private func timed<T>(_ operation: StoreOperation, _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        let started = MonotonicTime.now
        do {
            let value = try body()
            APIMetrics.recordStore(operation, nanoseconds: MonotonicTime.now - started, error: nil)
            return value
        } catch {
            APIMetrics.recordStore(operation, nanoseconds: MonotonicTime.now - started, error: error)
            onFailure?(operation.label, error, operation.isWrite)
            throw error
        }
    }

    func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        try timed(.create) { () throws(StorageError) in
            try base.create(id: id, revision: revision, document: document, delegates: delegates)
        }
    }

    func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                 delegates: [String: Bool], base fence: UInt64?) throws(StorageError) {
        try timed(.replace) { () throws(StorageError) in
            try base.replace(id: id, generation: generation, revision: revision, document: document, delegates: delegates,
                             base: fence)
        }
    }

    @discardableResult
    func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                     delegates: [String: Bool]?, base fence: UInt64?) throws(StorageError) -> AppendResult {
        try timed(.appendPatch) { () throws(StorageError) in
            try base.appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates,
                                 base: fence)
        }
    }

    func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base fence: UInt64?) throws(StorageError) {
        try timed(.saveSnapshot) { () throws(StorageError) in
            try base.saveSnapshot(id: id, generation: generation, revision: revision, document: document, base: fence)
        }
    }

    // The backends' batched forms (one statement each), not the protocol's read-everything defaults.
    func touch(_ uses: [SessionUse]) throws(StorageError) {
        try timed(.touch) { () throws(StorageError) in try base.touch(uses) }
    }

    func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        try timed(.delete) { () throws(StorageError) in try base.expire(before: time) }
    }

    func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        try timed(.delete) { () throws(StorageError) in try base.expire(id: id, generation: generation, before: time) }
    }

    func delete(id: String, generation: UInt64) throws(StorageError) {
        try timed(.delete) { () throws(StorageError) in try base.delete(id: id, generation: generation) }
    }

    func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        try timed(.touch) { () throws(StorageError) in try base.touch(id: id, generation: generation, at: time) }
    }

    func load(id: String) throws(StorageError) -> StoredSession? {
        try timed(.load) { () throws(StorageError) in try base.load(id: id) }
    }

    func count() throws(StorageError) -> Int {
        try timed(.count) { () throws(StorageError) in try base.count() }
    }

    func ids(after: String?, limit: Int) throws(StorageError) -> [String] {
        try timed(.ids) { () throws(StorageError) in try base.ids(after: after, limit: limit) }
    }

    // Maintenance runs from `layoutd store`, not through the API: passed through untimed.
    @discardableResult
    func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport { try base.compact(replay: replay) }
    func check() throws(StorageError) -> StorageCheck { try base.check() }
    func close() { base.close() }
    var isShared: Bool { base.isShared }
    func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) { base.observe(handler) }
    func follow(_ id: String) { base.follow(id) }
    func unfollow(_ id: String) { base.unfollow(id) }
    // Readiness's own call (`StoreHealth`), once a second at most: reported there, not timed.
    func probe(write: Bool) throws(StorageError) { try base.probe(write: write) }
}
