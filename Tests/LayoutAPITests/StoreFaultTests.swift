import Foundation
import JSON
import LayoutAPI
import Storage
import Testing
import TestSupport

/// Two nodes on one shared store with one clock (the store's times move with the API's).
private struct ClockedCluster {
    let clock = TestClock()
    let store: MemorySessionStorage
    let aStorage: NodeStorage, bStorage: NodeStorage
    let a: Client, b: Client

    init(timeout: Double = 8) {
        let clock = self.clock
        let offset = wallClock() - clock.now
        store = MemorySessionStorage(clock: { clock.now + offset }, shared: true)
        aStorage = NodeStorage(store)
        bStorage = NodeStorage(store)
        a = Client(api: LayoutAPI(configuration: clock.configuration(timeout: timeout), storage: aStorage))
        b = Client(api: LayoutAPI(configuration: clock.configuration(timeout: timeout), storage: bStorage))
    }
}

/// A node's view of the shared store whose writes can be made to fail (a lost connection).
private final class FailingNode: NodeStorage, @unchecked Sendable {
    private let failures = NSLock()
    private var failNext = 0

    func failWrites(_ n: Int) { failures.withLock { failNext = n } }

    override func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                              delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        let fail: Bool = failures.withLock {
            guard failNext > 0 else { return false }
            failNext -= 1
            return true
        }
        if fail { throw .unavailable("connection lost before the answer") }
        return try super.appendPatch(id: id, generation: generation, revision: revision, patch: patch,
                                     delegates: delegates, base: base)
    }
}

private func revision(_ r: APIResponse) -> Int? { T.json(r)["revision"]?.numberValue.map { Int($0) } }
private func width(_ r: APIResponse) -> Double? {
    T.json(r)["document"]?["constraints"]?["a-width"]?["constant"]?.numberValue
}

@Suite("Store and cluster faults: expiry asks the store, a revision the store lost is never built on")
struct StoreFaultTests {
    static let doc = SharedStoreTests.doc
    static func widthPatch(_ w: Int) -> String { SharedStoreTests.widthPatch(w) }

    @Test("idle expiry on one node never deletes a session another node keeps editing or reading")
    func expiryAsksTheStore() throws {
        let c = ClockedCluster(timeout: 8)
        #expect(c.a.put("edited", Self.doc).status == 201)
        #expect(c.a.put("read", Self.doc).status == 201)
        #expect(c.b.send("GET", "/v1/sessions/read").status == 200)
        // 20 s of node b editing one session and reading the other every half second; node a,
        // which served both first, sweeps all the while.
        for step in 1...40 {
            c.clock.advance(0.5)
            #expect(c.b.patch("/v1/sessions/edited", Self.widthPatch(100 + step)).status == 200)
            #expect(c.b.send("GET", "/v1/sessions/read").status == 200)
            c.a.api.sweep()
            c.b.api.sweep()
        }
        #expect(try c.store.count() == 2)
        #expect(c.a.send("GET", "/v1/sessions/edited").status == 200)
        #expect(revision(c.a.send("GET", "/v1/sessions/edited")) == 41)
        // Nobody uses either any more: the store expires both, through whichever node sweeps.
        c.clock.advance(7)
        #expect(c.b.api.sweep() == 0 && c.a.api.sweep() == 0)
        c.clock.advance(2)
        #expect(c.a.api.sweep() == 2)
        #expect(try c.store.count() == 0)
        #expect(eventually { c.b.send("GET", "/v1/sessions/edited").status == 404 })
    }

    @Test("a copy at a revision the store lost is fenced off on its next write, catches up and builds on the store's")
    func lostRevisionIsNeverBuiltOn() throws {
        let c = ClockedCluster()
        c.a.put("s", Self.doc)
        #expect(revision(c.b.send("GET", "/v1/sessions/s")) == 1)
        let beforeLoss = try #require(try c.store.load(id: "s"))
        c.aStorage.deaf = true
        c.bStorage.deaf = true
        #expect(revision(c.a.patch("/v1/sessions/s", Self.widthPatch(120))) == 2)  // acknowledged, then lost:
        c.store.restore(beforeLoss)
        #expect(revision(c.b.patch("/v1/sessions/s", Self.widthPatch(130))) == 2)  // the store's revision 2
        // a still holds its lost revision 2: its next write names that revision's write id.
        let r = c.a.patch("/v1/sessions/s", #"{"constraints": {"from-a": "a.height >= 1"}}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(revision(r) == 3)
        let fromA = c.a.send("GET", "/v1/sessions/s")
        #expect(width(fromA) == 130)  // built on b's revision 2, not on the lost 120
        #expect(T.json(fromA)["document"]?["constraints"]?["from-a"] != nil)
        let stored = try #require(try c.store.load(id: "s"))
        #expect(stored.revision == 3)
        c.bStorage.deaf = false
        c.store.announceLostNotices()
        #expect(eventually { c.b.send("GET", "/v1/sessions/s").body == c.a.send("GET", "/v1/sessions/s").body })
        #expect(c.b.send("GET", "/v1/sessions/s").header("ETag") == fromA.header("ETag"))
    }

    @Test("a node that hears of the store's revision N with other content than its own N answers the store's")
    func sameRevisionOtherContentIsBehind() throws {
        let c = ClockedCluster()
        c.a.put("s", Self.doc)
        c.b.send("GET", "/v1/sessions/s")
        let beforeLoss = try #require(try c.store.load(id: "s"))
        c.aStorage.deaf = true
        #expect(revision(c.a.patch("/v1/sessions/s", Self.widthPatch(120))) == 2)
        c.store.restore(beforeLoss)
        c.aStorage.deaf = false
        // b's revision 2 is noticed by a: same number, other write id.
        #expect(revision(c.b.patch("/v1/sessions/s", Self.widthPatch(130))) == 2)
        #expect(eventually { width(c.a.send("GET", "/v1/sessions/s")) == 130 })
        #expect(c.a.send("GET", "/v1/sessions/s").body == c.b.send("GET", "/v1/sessions/s").body)
    }

    @Test("after a write whose outcome is unknown, every copy on that node is checked against the store before its next use")
    func failedWriteRechecksEveryCopy() throws {
        let clock = TestClock()
        let store = MemorySessionStorage(shared: true)
        let aStorage = FailingNode(store), bStorage = NodeStorage(store)
        let a = Client(api: LayoutAPI(configuration: clock.configuration(), storage: aStorage))
        let b = Client(api: LayoutAPI(configuration: clock.configuration(), storage: bStorage))
        a.put("s", Self.doc)
        a.put("t", Self.doc)
        #expect(revision(b.send("GET", "/v1/sessions/t")) == 1)
        aStorage.deaf = true  // a misses b's notice, as over a broken connection
        #expect(revision(b.patch("/v1/sessions/t", Self.widthPatch(140))) == 2)
        #expect(revision(a.send("GET", "/v1/sessions/t")) == 1)  // stale: nothing told a yet
        aStorage.failWrites(1)
        #expect(a.patch("/v1/sessions/s", Self.widthPatch(150)).status == 503)
        // The failed write moved the node's epoch: t is checked against the store on its next use.
        #expect(revision(a.send("GET", "/v1/sessions/t")) == 2)
        #expect(width(a.send("GET", "/v1/sessions/t")) == 140)
    }
}
