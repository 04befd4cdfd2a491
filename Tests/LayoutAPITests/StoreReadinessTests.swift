import Foundation
import LayoutAPI
import Storage
import Testing

/// A store whose writes, probe writes and reads fail on demand, each with its own error text, and
/// that counts the probes it is asked for.
final class FailingStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var writeError: StorageError?
    private var readError: StorageError?
    private var probes: [Bool] = []

    init() { super.init(MemorySessionStorage()) }

    func failWrites(_ error: StorageError?) { lock.withLock { writeError = error } }
    func failReads(_ error: StorageError?) { lock.withLock { readError = error } }
    /// The probes asked so far (true: a probe write).
    var probesAsked: [Bool] { lock.withLock { probes } }

    private func refuseWrite() throws(StorageError) { if let e = lock.withLock({ writeError }) { throw e } }
    private func refuseRead() throws(StorageError) { if let e = lock.withLock({ readError }) { throw e } }

    override func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                              delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        try refuseWrite()
        return try super.appendPatch(id: id, generation: generation, revision: revision, patch: patch, delegates: delegates,
                                     base: base)
    }
    override func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        try refuseWrite()
        return try super.create(id: id, revision: revision, document: document, delegates: delegates)
    }
    override func load(id: String) throws(StorageError) -> StoredSession? {
        try refuseRead()
        return try super.load(id: id)
    }
    override func probe(write: Bool) throws(StorageError) {
        lock.withLock { probes.append(write) }
        if write { try refuseWrite() } else { try refuseRead() }
        try super.probe(write: write)
    }
}

/// The events an API reported, in order.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [StoreEvent] = []
    func append(_ event: StoreEvent) { lock.withLock { stored.append(event) } }
    var events: [StoreEvent] { lock.withLock { stored } }
}

/// Readiness follows the store (issue 27, item 7): a failed write makes `/readyz` answer 503 until
/// a probe write succeeds, and every store failure is reported, once per distinct error per 10 s.
@Suite("LayoutAPI: readiness follows the store, store failures reported once per cause")
struct StoreReadinessTests {
    static let diskFull = StorageError.io(path: "/srv/layoutd/s.db", detail: "database or disk is full")
    static let away = StorageError.unavailable("connection refused")

    /// An API on `storage` with a clock the test moves and its events collected.
    static func api(_ storage: FailingStorage, _ clock: TestClock, _ log: EventLog) -> Client {
        var configuration = clock.configuration()
        configuration.onStoreEvent = { log.append($0) }
        return Client(api: LayoutAPI(configuration: configuration, storage: storage))
    }

    /// A PATCH of session `s` to `constant` (Docs.small's is 5: another value, or nothing is written).
    static func edit(_ c: Client, _ constant: Int) -> Int {
        c.patch("/v1/sessions/s", #"{"constraints": {"c1": {"constant": \#(constant)}}}"#).status
    }

    @Test("a failed write makes /readyz 503 at once; it stays so while probe writes fail, and turns 200 when one succeeds")
    func failedWriteUntilProbeWriteSucceeds() throws {
        let storage = FailingStorage(), clock = TestClock(), log = EventLog()
        let c = Self.api(storage, clock, log)
        #expect(c.put("s", Docs.small).status == 201)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(storage.probesAsked == [false])

        storage.failWrites(Self.diskFull)
        #expect(Self.edit(c, 7) == 503)
        // Within the second after the last probe: not ready at once, without asking the store.
        let refused = c.send("GET", "/readyz")
        T.expectProblem(refused, 503, type: "not-ready")
        #expect(refused.header("Retry-After") == "1")
        #expect(!refused.text.contains("s.db"), "the body must not name server files: \(refused.text)")
        #expect(storage.probesAsked == [false])
        // A second later the store is probed with a write, which fails: still not ready.
        clock.advance(1.5)
        #expect(c.send("GET", "/readyz").status == 503)
        #expect(storage.probesAsked == [false, true])
        // The disk has room again, but the last probe is recent: not asked, still 503.
        storage.failWrites(nil)
        #expect(c.send("GET", "/readyz").status == 503)
        #expect(storage.probesAsked == [false, true])
        clock.advance(1.5)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(storage.probesAsked == [false, true, true])
        // Ready again: the next probes are reads, and writes work.
        clock.advance(1.5)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(storage.probesAsked.last == false)
        #expect(Self.edit(c, 8) == 200)
        #expect(log.events.last == .recovered)
        #expect(log.events.first == .failed(operation: "append_patch", error: Self.diskFull.description, notReady: true, repeats: 0))
    }

    @Test("a failed read is reported but leaves the node ready; a read probe that fails makes it not ready while it fails")
    func failedReadIsReportedOnly() throws {
        let storage = FailingStorage(), clock = TestClock(), log = EventLog()
        let c = Self.api(storage, clock, log)
        storage.failReads(Self.away)
        #expect(c.send("GET", "/v1/sessions/dormant").status == 503)
        #expect(log.events == [.failed(operation: "load", error: Self.away.description, notReady: false, repeats: 0)])
        // The read probe fails too: not ready, and that failure is the same error (not reported again).
        #expect(c.send("GET", "/readyz").status == 503)
        #expect(storage.probesAsked == [false])
        #expect(log.events.count == 1)
        storage.failReads(nil)
        clock.advance(1.5)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(!log.events.contains(.recovered), "no write failed: nothing recovered")
    }

    @Test("each distinct error is reported once per 10 s, then again with the count held back")
    func failuresAreRateLimitedPerCause() throws {
        let storage = FailingStorage(), clock = TestClock(), log = EventLog()
        let c = Self.api(storage, clock, log)
        #expect(c.put("s", Docs.small).status == 201)
        storage.failWrites(Self.diskFull)
        for i in 0..<5 { #expect(Self.edit(c, 10 + i) == 503) }
        #expect(log.events == [.failed(operation: "append_patch", error: Self.diskFull.description, notReady: true, repeats: 0)])
        // Another cause within the same window is reported at once.
        storage.failWrites(Self.away)
        #expect(c.put("t", Docs.small).status == 503)
        #expect(log.events.count == 2)
        #expect(log.events.last == .failed(operation: "create", error: Self.away.description, notReady: true, repeats: 0))
        // Just before the window ends: still held back.
        storage.failWrites(Self.diskFull)
        clock.advance(9.9)
        #expect(Self.edit(c, 15) == 503)
        #expect(log.events.count == 2)
        clock.advance(0.2)
        #expect(Self.edit(c, 16) == 503)
        #expect(log.events.count == 3)
        #expect(log.events.last == .failed(operation: "append_patch", error: Self.diskFull.description, notReady: true, repeats: 5))
    }

    @Test("a long outage is reported less and less often (10, 20, 40 s ... at most 10 min apart), and anew after recovery")
    func longOutageBacksOff() throws {
        let storage = FailingStorage(), clock = TestClock(), log = EventLog()
        var configuration = clock.configuration()
        configuration.onStoreEvent = { log.append($0) }
        // The test's clock runs for 20 minutes: the session must not expire meanwhile.
        configuration.sessionIdleTimeoutSeconds = 0
        let c = Client(api: LayoutAPI(configuration: configuration, storage: storage))
        #expect(c.put("s", Docs.small).status == 201)
        storage.failWrites(Self.diskFull)
        var revision = 10
        /// Fails one edit a second for `seconds` seconds; the reports it made.
        func failFor(_ seconds: Int) -> Int {
            let before = log.events.count
            for _ in 0..<seconds {
                #expect(Self.edit(c, revision) == 503)
                revision += 1
                clock.advance(1)
            }
            return log.events.count - before
        }
        // t = 0 (reported), 10, 30, 70, 150, 310, 630, then every 600 s: 7 reports in the first 631 s.
        #expect(failFor(631) == 7)
        #expect(failFor(600) == 1, "at most one report per cause per 10 minutes once backed off")
        // The store recovers (a probe write succeeds): the next failure is said at once.
        storage.failWrites(nil)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(log.events.last == .recovered)
        storage.failWrites(Self.diskFull)
        #expect(Self.edit(c, revision) == 503)
        #expect(log.events.last == .failed(operation: "append_patch", error: Self.diskFull.description, notReady: true, repeats: 0))
    }

    @Test("an API without a store is always ready and reports nothing")
    func noStoreIsReady() {
        let log = EventLog()
        var configuration = APIConfiguration()
        configuration.onStoreEvent = { log.append($0) }
        let c = Client(configuration)
        #expect(c.send("GET", "/readyz").status == 200)
        #expect(c.put("s", Docs.small).status == 201)
        #expect(log.events.isEmpty)
    }
}
