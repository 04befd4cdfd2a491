import Foundation
import JSON
import LayoutAPI
import Storage
import Testing
import TestSupport

/// A memory store whose writes can be made to fail, as a full disk or a removed file would.
final class FlakyStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var failing = false

    init() { super.init(MemorySessionStorage()) }

    func fail(_ on: Bool) { lock.withLock { failing = on } }
    private func refuseIfFailing() throws(StorageError) {
        if lock.withLock({ failing }) { throw .io(path: "flaky.db", detail: "disk full") }
    }

    override func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        try refuseIfFailing()
        return try super.create(id: id, revision: revision, document: document, delegates: delegates)
    }
    override func replace(id: String, generation: UInt64, revision: Int, document: [UInt8], delegates: [String: Bool],
                 base: UInt64?) throws(StorageError) {
        try refuseIfFailing()
        try super.replace(id: id, generation: generation, revision: revision, document: document, delegates: delegates, base: base)
    }
    override func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                              delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        try refuseIfFailing()
        return try super.appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates, base: base)
    }
    override func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError) {
        try refuseIfFailing()
        try super.saveSnapshot(id: id, generation: generation, revision: revision, document: document, base: base)
    }
    override func delete(id: String, generation: UInt64) throws(StorageError) {
        try refuseIfFailing()
        try super.delete(id: id, generation: generation)
    }
}

@Suite("Sessions in a session store: stored before answered, rolled back on failure, woken after a restart")
struct StoredSessionTests {
    static let delegated = #"""
        {"views": {"root": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "root", "frame": {"x": 0, "y": 0, "height": 10}}},
         "constraints": {"a-fallback": {"first": "a.width", "constant": 10, "priority": 250},
                         "a-del": {"first": "a.width", "constant": 100, "activation": "delegate"}},
         "delegate": {"a-del": true}}
        """#

    static func client(_ storage: any SessionStorage, _ configuration: APIConfiguration = APIConfiguration()) -> Client {
        Client(api: LayoutAPI(configuration: configuration, storage: storage))
    }

    @Test("a write the store refuses answers 503 with Retry-After and leaves the session exactly as stored, delegate memory included")
    func refusedWritesRollBack() {
        let storage = FlakyStorage()
        let c = Self.client(storage)
        #expect(c.put("s", Self.delegated).status == 201)
        #expect(c.patch("/v1/sessions/s", #"{"delegate":null}"#).status == 200)  // a-del remembered on
        let before = c.send("GET", "/v1/sessions/s")
        storage.fail(true)
        for (name, r) in [("delegate off", c.patch("/v1/sessions/s", #"{"delegate":{"a-del":false}}"#)),
                          ("strict", c.patch("/v1/sessions/s", #"{"constraints":{"a-fallback":{"constant":20}}}"#, query: "strict=true")),
                          ("PUT", c.put("s", Docs.small)), ("DELETE", c.send("DELETE", "/v1/sessions/s")),
                          ("POST", c.send("POST", "/v1/sessions", body: Docs.small)), ("PUT new", c.put("t", Docs.small))] {
            T.expectProblem(r, 503, type: "store-unavailable")
            #expect(r.header("Retry-After") == "1", "\(name)")
            // The store's own message names its files: the client is told the kind only.
            #expect(!String(decoding: r.body, as: UTF8.self).contains("flaky.db"), "\(name)")
            let now = c.send("GET", "/v1/sessions/s")
            #expect(now.body == before.body && now.header("ETag") == before.header("ETag"), "\(name)")
        }
        #expect(c.send("GET", "/v1/sessions/t").status == 404)
        #expect(c.api.sessionCount == 1)
        storage.fail(false)
        // The next edit starts from the stored state: a-del still on (the refused PATCH turned it
        // off in the solver before the store refused it), as in a session that never saw it.
        let next = "{\"constraints\":{\"a-fallback\":{\"constant\":20}}}"
        #expect(c.patch("/v1/sessions/s", next).status == 200)
        let reference = Client()
        reference.put("s", Self.delegated)
        reference.patch("/v1/sessions/s", #"{"delegate":null}"#)
        reference.patch("/v1/sessions/s", next)
        #expect(c.send("GET", "/v1/sessions/s").body == reference.send("GET", "/v1/sessions/s").body)
    }

    @Test("a new API on the same store (a restart) answers what the old one did, and deleted sessions stay deleted")
    func restartOnTheSameStore() {
        let storage = MemorySessionStorage(policy: SnapshotPolicy(maxPatches: 3))
        let before: [String: APIResponse]
        do {
            let c = Self.client(storage)
            c.put("a", Docs.stack)
            for w in 0..<7 { c.patch("/v1/sessions/a", #"{"views":{"root":{"frame":{"width":\#(300 + w)}}}}"#) }
            c.put("b", Self.delegated)
            c.patch("/v1/sessions/b", #"{"delegate":null}"#)
            c.put("c", Docs.small)
            c.send("DELETE", "/v1/sessions/c")
            // One request id throughout: the 404 of the deleted session names it.
            before = Dictionary(uniqueKeysWithValues: ["a", "b", "c"].map {
                ($0, c.send("GET", "/v1/sessions/\($0)", headers: [("X-Request-Id", "same")]))
            })
        }
        let c = Self.client(storage)
        #expect(c.api.sessionCount == 2)
        for (id, r) in before {
            let now = c.send("GET", "/v1/sessions/\(id)", headers: [("X-Request-Id", "same")])
            #expect(now.status == r.status && now.body == r.body && now.header("ETag") == r.header("ETag"), "\(id)")
        }
        #expect(c.patch("/v1/sessions/a", #"{"views":{"root":{"frame":{"width":250}}}}"#).header("ETag").etagRevision == 9)
    }

    @Test("a write fenced off by the store (another writer) is decided again on the stored session: both changes kept, in order")
    func fencedWrite() throws {
        let storage = MemorySessionStorage()
        let c = Self.client(storage)
        c.put("s", Docs.stack)
        let stored = try #require(try storage.load(id: "s"))
        try storage.appendPatch(id: "s", generation: stored.generation, revision: 2,
                                patch: Array(#"{"views":{"root":{"frame":{"width":333, "height":77}}}}"#.utf8), delegates: nil)
        let r = c.patch("/v1/sessions/s", #"{"views":{"root":{"frame":{"width":444}}}}"#)
        #expect(r.status == 200 && r.header("ETag").etagRevision == 3, "\(r.text)")
        let now = c.send("GET", "/v1/sessions/s")
        #expect(now.header("ETag").etagRevision == 3)
        #expect(T.json(now)["document"]?["views"]?["root"]?["frame"]?["width"]?.numberValue == 444)
        #expect(T.json(now)["document"]?["views"]?["root"]?["frame"]?["height"]?.numberValue == 77)
        #expect(try storage.load(id: "s")?.patches.map(\.revision) == [2, 3])
    }

    @Test("a write fenced off with If-Match of the revision the copy had: 412 after catching up, nothing written")
    func fencedWriteWithIfMatch() throws {
        let storage = MemorySessionStorage()
        let c = Self.client(storage)
        let tag = try #require(c.put("s", Docs.stack).header("ETag"))
        let stored = try #require(try storage.load(id: "s"))
        try storage.appendPatch(id: "s", generation: stored.generation, revision: 2,
                                patch: Array(#"{"views":{"root":{"frame":{"width":333}}}}"#.utf8), delegates: nil)
        T.expectProblem(c.patch("/v1/sessions/s", #"{"views":{"root":{"frame":{"width":444}}}}"#,
                                headers: [("If-Match", tag)]), 412)
        #expect(try storage.load(id: "s")?.revision == 2)
        #expect(T.json(c.send("GET", "/v1/sessions/s"))["document"]?["views"]?["root"]?["frame"]?["width"]?.numberValue == 333)
    }

    @Test("maxSessions counts the stored sessions; idle expiry deletes from the store, woken or not")
    func limitAndExpiry() throws {
        let storage = MemorySessionStorage()
        let clock = TestClock()
        let first = Self.client(storage, clock.configuration(timeout: 60, maxSessions: 2))
        first.put("a", Docs.small)
        first.put("b", Docs.small)
        let c = Self.client(storage, clock.configuration(timeout: 60, maxSessions: 2))
        T.expectProblem(c.send("POST", "/v1/sessions", body: Docs.small), 429)
        #expect(c.send("GET", "/v1/sessions/a").status == 200)  // woken: now in memory too
        clock.advance(61)
        // "a" from memory and the store; "b", which this API never woke (stored before its start,
        // as after a restart), from the store.
        #expect(c.api.sweep() == 2)
        #expect(try storage.load(id: "a") == nil && storage.load(id: "b") == nil && storage.count() == 0)
        #expect(c.put("n", Docs.small).status == 201)
        #expect(c.put("m", Docs.small).status == 201)
        T.expectProblem(c.put("o", Docs.small), 429)
    }
}
