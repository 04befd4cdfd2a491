import Storage

/// A store that hands every call to `inner`: test doubles subclass it and override only what they
/// change (`FlakyStorage` refuses writes, `NodeStorage` plays one node of a shared store).
/// `touch(_:)` and `expire(before:)` are the protocol's, built on the calls below, so an override
/// of those calls governs them too.
class ForwardingStorage: SessionStorage, @unchecked Sendable {
    let inner: MemorySessionStorage

    init(_ inner: MemorySessionStorage) { self.inner = inner }

    func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        try inner.create(id: id, revision: revision, document: document, delegates: delegates)
    }
    func replace(id: String, generation: UInt64, revision: Int, document: [UInt8], delegates: [String: Bool],
                 base: UInt64?) throws(StorageError) {
        try inner.replace(id: id, generation: generation, revision: revision, document: document, delegates: delegates, base: base)
    }
    func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                     delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        try inner.appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates, base: base)
    }
    func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError) {
        try inner.saveSnapshot(id: id, generation: generation, revision: revision, document: document, base: base)
    }
    func delete(id: String, generation: UInt64) throws(StorageError) { try inner.delete(id: id, generation: generation) }
    func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        try inner.expire(id: id, generation: generation, before: time)
    }
    func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        try inner.touch(id: id, generation: generation, at: time)
    }
    func load(id: String) throws(StorageError) -> StoredSession? { try inner.load(id: id) }
    func count() throws(StorageError) -> Int { try inner.count() }
    func ids(after: String?, limit: Int) throws(StorageError) -> [String] { try inner.ids(after: after, limit: limit) }
    func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport { try inner.compact(replay: replay) }
    func check() throws(StorageError) -> StorageCheck { try inner.check() }
    func close() { inner.close() }
    var isShared: Bool { inner.isShared }
    func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) { inner.observe(handler) }
    func follow(_ id: String) { inner.follow(id) }
    func unfollow(_ id: String) { inner.unfollow(id) }
    func probe(write: Bool) throws(StorageError) { try inner.probe(write: write) }
}
