import Synchronization
import Testing
import Storage
import SQLiteStorage
import PostgresStorage

/// A clock the test moves by hand (seconds since 1970).
final class ManualClock: Sendable {
    private let value: Mutex<Double>
    init(_ start: Double = 1_000_000) { value = Mutex(start) }
    var now: Double { value.withLock { $0 } }
    func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
    var read: @Sendable () -> Double { { self.now } }
}

/// The stores the expiry scenarios run on: memory, SQLite, and the protocol's default
/// `touch(_:)` and `expire(before:)` (over the memory store's other methods), which a backend
/// without its own gets.
enum ExpiryBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite, protocolDefaults, postgres

    var testDescription: String { rawValue }

    /// PostgreSQL when `LAYOUTD_TEST_POSTGRES` names a server (scripts/test starts one).
    static var available: [ExpiryBackend] { testPostgresURL == nil ? [.memory, .sqlite, .protocolDefaults] : allCases }

    /// A new, empty store on `clock`; `reopen` opens it again (a restart: SQLite reads its file).
    func make(clock: ManualClock) throws -> (fixture: StoreFixture, reopen: () throws -> any SessionStorage) {
        switch self {
        case .memory, .protocolDefaults:
            let memory = MemorySessionStorage(clock: clock.read)
            let store: any SessionStorage = self == .memory ? memory : DefaultsOnly(memory)
            return (StoreFixture(store: store, directory: nil), { store })
        case .sqlite:
            let directory = TemporaryDirectory()
            let path = directory.path + "/store.db"
            let store = try SQLiteSessionStorage(path: path, sync: .never, clock: clock.read)
            return (StoreFixture(store: store, directory: directory), {
                store.close()
                return try SQLiteSessionStorage(path: path, sync: .never, clock: clock.read)
            })
        case .postgres:
            let database = try TestDatabase()
            let store = try PostgresSessionStorage(url: database.url, sync: .never, clock: clock.read)
            return (StoreFixture(store: store, directory: nil, database: database), {
                store.close()
                return try PostgresSessionStorage(url: database.url, sync: .never, clock: clock.read)
            })
        }
    }
}

/// A store with every method but `touch(_:)` and `expire(before:)`: those are the protocol's.
final class DefaultsOnly: SessionStorage {
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

/// Idle expiry across restarts at the store's level: batched touches and `expire(before:)`.
@Suite("Session storage: uses recorded in one write, idle sessions expired from the store")
struct StorageExpiryTests {
    @Test("a batch of touches moves last use forward only, and skips sessions deleted or made anew", arguments: ExpiryBackend.available)
    func batchedTouch(_ backend: ExpiryBackend) throws {
        let clock = ManualClock()
        let (fixture, _) = try backend.make(clock: clock)
        let store = fixture.store
        defer { store.close() }
        let t0 = clock.now
        let ga = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: [:])
        let gb = try store.create(id: "b", revision: 1, document: document(views: 2), delegates: [:])
        let gc = try store.create(id: "c", revision: 1, document: document(views: 2), delegates: [:])
        try store.delete(id: "c", generation: gc)
        let commitsBefore = (store as? SQLiteSessionStorage)?.statistics.commits

        try store.touch([SessionUse(id: "a", generation: ga, time: t0 + 50), SessionUse(id: "b", generation: gb + 1, time: t0 + 50),
                         SessionUse(id: "c", generation: gc, time: t0 + 50)])
        #expect(try store.load(id: "a")?.lastUsed == t0 + 50)
        #expect(try store.load(id: "b")?.lastUsed == t0)  // another generation: untouched
        #expect(try store.load(id: "c") == nil)  // deleted: not made again by a touch
        if let sqlite = store as? SQLiteSessionStorage, let commitsBefore {
            #expect(sqlite.statistics.commits == commitsBefore + 1)  // one write for the batch
        }
        try store.touch([SessionUse(id: "a", generation: ga, time: t0 + 10)])  // an older use: kept at +50
        #expect(try store.load(id: "a")?.lastUsed == t0 + 50)
        try store.touch([])  // nothing used: no write, no failure
    }

    @Test("expire(before:) deletes exactly the sessions last used before the time, also after a reopen", arguments: ExpiryBackend.available)
    func expireAcrossReopen(_ backend: ExpiryBackend) throws {
        let clock = ManualClock()
        let (fixture, reopen) = try backend.make(clock: clock)
        let idle = 100.0
        let ga = try fixture.store.create(id: "read-only", revision: 1, document: document(views: 3), delegates: [:])
        let gb = try fixture.store.create(id: "forgotten", revision: 1, document: document(views: 3), delegates: [:])
        clock.advance(30)
        let gc = try fixture.store.create(id: "written", revision: 1, document: document(views: 3), delegates: [:])
        clock.advance(30)
        try fixture.store.appendPatch(id: "written", generation: gc, revision: 2, patch: constantPatch(0, 5), delegates: nil)
        try fixture.store.touch([SessionUse(id: "read-only", generation: ga, time: clock.now)])  // a GET, recorded
        clock.advance(50)  // "forgotten" idle 110 s, the others 50 s

        let store = try reopen()
        defer { store.close() }
        #expect(try store.expire(before: clock.now - idle) == [SessionKey(id: "forgotten", generation: gb)])
        #expect(try store.load(id: "forgotten") == nil)
        #expect(try store.count() == 2)
        #expect(try store.check().isIntact)
        #expect(try store.expire(before: clock.now - idle).isEmpty)  // nothing more is idle yet

        clock.advance(51)  // every one of them idle more than 100 s now
        let expired = try store.expire(before: clock.now - idle)
        #expect(Set(expired) == [SessionKey(id: "read-only", generation: ga), SessionKey(id: "written", generation: gc)])
        #expect(try store.count() == 0)
        let check = try store.check()
        #expect(check.isIntact && check.patches == 0 && check.snapshotBytes == 0)
    }
}
