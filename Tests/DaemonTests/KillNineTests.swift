import Foundation
import JSON
import LayoutModel
import Testing
import TestSupport

/// `kill -9` in the middle of a PATCH load (issue 21): after a restart every session's document
/// is the replay of the PATCHes that were acknowledged (and at most the one in flight), never
/// less and never half of one.
@Suite("kill -9 under load")
struct KillNineTests {
    /// What one client saw of its session: each acknowledged PATCH (in order) and the one in flight.
    final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private var acked: [(revision: Int, patch: String)] = []
        private var inFlight: String?

        func start(_ patch: String) { lock.withLock { inFlight = patch } }
        func ack(_ revision: Int, _ patch: String) {
            lock.withLock {
                acked.append((revision, patch))
                inFlight = nil
            }
        }
        var snapshot: (acked: [(revision: Int, patch: String)], inFlight: String?) { lock.withLock { (acked, inFlight) } }
        var count: Int { lock.withLock { acked.count } }
    }

    /// The i-th PATCH of a client: mostly one constant (the fast lane), every fifth a view's size
    /// (a member edit), every thirteenth a change through the whole document. Values never repeat,
    /// so every PATCH makes a new revision.
    static func patch(_ i: Int) -> String {
        if i % 13 == 12 { return #"{"constraints":{"extra":\#(i % 26 == 12 ? #""card.bottom <= root.bottom - \#(i)""# : "null")}}"# }
        if i % 5 == 4 { return #"{"views":{"title":{"intrinsicSize":{"width":\#(100 + i),"height":21}}}}"# }
        return #"{"constraints":{"card-height":{"constant":\#(100 + i)}}}"#
    }

    @Test("no acknowledged PATCH is lost", arguments: ["everysec", "always"])
    func killDuringPatchLoad(_ sync: String) throws {
        let dir = try TemporaryDirectory()
        let sessions = 4
        var created: [String: [UInt8]] = [:]
        let records = (0..<sessions).map { _ in Record() }
        do {
            let daemon = try DurableSessionTests.daemon(dir, ["--sync", sync])
            let c = try daemon.connect()
            for s in 0..<sessions {
                #expect(try c.put("/v1/sessions/k\(s)", Documents.card).status == 201)
                created["k\(s)"] = JSONWriter.serialize(try #require(try c.get("/v1/sessions/k\(s)").json()["document"]))
            }
            let port = daemon.port
            for s in 0..<sessions {
                let record = records[s]
                Thread.detachNewThread {
                    guard let conn = try? RawHTTPConnection(port: port, timeoutSeconds: 5) else { return }
                    for i in 0..<100_000 {
                        let p = Self.patch(i)
                        record.start(p)
                        guard let r = try? conn.patch("/v1/sessions/k\(s)", p), r.status == 200,
                              let revision = r.header("ETag").etagRevision else { return }
                        record.ack(revision, p)
                    }
                }
            }
            // Killed in the middle of the load, once every client has had PATCHes acknowledged.
            _ = eventually(timeout: 20, pollEvery: 0.002) { !records.contains(where: { $0.count < 40 }) }
            usleep(UInt32.random(in: 0..<50_000))  // a random moment of the load to kill at, not a wait for a condition
            daemon.signal(SIGKILL)
            _ = daemon.waitForExit(timeout: 10)
        }
        #expect(records.allSatisfy { $0.count >= 40 })
        let daemon = try DurableSessionTests.daemon(dir, ["--sync", sync])
        let c = try daemon.connect()
        for s in 0..<sessions {
            let id = "k\(s)"
            let (acked, inFlight) = records[s].snapshot
            let got = try c.get("/v1/sessions/\(id)")
            let revision = try #require(got.header("ETag").etagRevision)
            let document = JSONWriter.serialize(try #require(try got.json()["document"]))
            let base = try #require(created[id])
            let lastAcked = acked.last?.revision ?? 1
            #expect(acked.map(\.revision) == Array(2..<(2 + acked.count)), "\(id): acknowledged revisions")
            var expected = acked.map { Array($0.patch.utf8) }
            if revision == lastAcked + 1, let inFlight { expected.append(Array(inFlight.utf8)) }
            #expect(revision == lastAcked || (revision == lastAcked + 1 && inFlight != nil),
                    "\(id): revision \(revision) after \(lastAcked) acknowledged")
            #expect(document == (try DocumentParser.replay(base, patches: expected)), "\(id) at revision \(revision)")
        }
    }
}
