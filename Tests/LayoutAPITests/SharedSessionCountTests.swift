import Foundation
import LayoutAPI
import Storage
import Testing
import TestSupport

/// A node of a shared store that cannot count (`count()` throws) while `countFails` is set.
private final class CountFailingStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var fails = false

    var countFails: Bool {
        get { lock.withLock { fails } }
        set { lock.withLock { fails = newValue } }
    }

    override func count() throws(StorageError) -> Int {
        if countFails { throw StorageError.unavailable("count refused by the test") }
        return try inner.count()
    }
}

/// `/healthz`'s `sessions`.
private func sessions(_ c: Client) -> Int? {
    T.json(c.send("GET", "/healthz"))["sessions"]?.numberValue.map { Int($0) }
}

/// `POST /v1/sessions`: the new id, or nil with the status.
private func create(_ c: Client) -> (id: String?, status: Int) {
    let r = c.send("POST", "/v1/sessions", body: SharedStoreTests.doc)
    return (r.header("Location")?.split(separator: "/").last.map(String.init), r.status)
}

@Suite("maxSessions on a shared store follows the store's count, not one node's tally (issue 27)")
struct SharedSessionCountTests {
    /// Two nodes with `maxSessions` 3 on one shared store, on a clock the test moves.
    private static func nodes(_ clock: TestClock) -> (MemorySessionStorage, Client, Client, CountFailingStorage) {
        let store = MemorySessionStorage(shared: true)
        let aStorage = CountFailingStorage(store)
        let a = Client(api: LayoutAPI(configuration: clock.configuration(maxSessions: 3), storage: aStorage))
        let b = Client(api: LayoutAPI(configuration: clock.configuration(maxSessions: 3), storage: NodeStorage(store)))
        return (store, a, b, aStorage)
    }

    @Test("sessions created on one node and deleted on another: the first creates again once its count is a second old; no count goes negative")
    func createdHereDeletedThere() throws {
        let clock = TestClock()
        let (store, a, b, _) = Self.nodes(clock)
        let ids = (0..<3).compactMap { _ in create(a).id }
        #expect(ids.count == 3)
        #expect(create(a).status == 429)
        for id in ids {
            #expect(b.send("DELETE", "/v1/sessions/\(id)").status == 204)
            // b counted none of them (it read 0 at its start): it stays at 0, never below.
            #expect(sessions(b) == 0)
        }
        #expect(try store.count() == 0)
        // Within the second, a goes by its last reading: the limit is still reached.
        clock.advance(0.5)
        #expect(create(a).status == 429)
        // Past it, a counts the store again: room for three more, and no more.
        clock.advance(0.6)
        #expect((0..<3).map { _ in create(a).status } == [201, 201, 201])
        #expect(create(a).status == 429)
        #expect(sessions(a) == 3)
        // b's /healthz reads the store in the background: it shows a's sessions soon after.
        clock.advance(1.1)
        #expect(eventually { sessions(b) == 3 })
        #expect(create(b).status == 429)
    }

    @Test("a count the store refuses keeps the last one: the limit still holds")
    func failedCountKeepsTheLastValue() throws {
        let clock = TestClock()
        let (store, a, _, aStorage) = Self.nodes(clock)
        #expect((0..<3).map { _ in create(a).status } == [201, 201, 201])
        aStorage.countFails = true
        clock.advance(1.1)
        #expect(create(a).status == 429)
        #expect(sessions(a) == 3)
        #expect(try store.count() == 3)
        // Counted again once the store answers (a second after the failed attempt).
        aStorage.countFails = false
        let id = try #require(try store.ids(after: nil, limit: 1).first)
        try store.delete(id: id, generation: #require(try store.load(id: id)).generation)
        clock.advance(1.1)
        #expect(create(a).status == 201)
    }
}
