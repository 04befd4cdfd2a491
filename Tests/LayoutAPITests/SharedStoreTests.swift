import Foundation
import Synchronization
import JSON
import LayoutAPI
import Storage
import Testing
import TestSupport

/// One node's view of a store several nodes share: everything goes to `inner`; its notices reach
/// this node only while it is not `deaf` (a notice still on its way, or lost).
class NodeStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var isDeaf = false

    var deaf: Bool {
        get { lock.withLock { isDeaf } }
        set { lock.withLock { isDeaf = newValue } }
    }

    override var isShared: Bool { true }
    override func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        inner.observe { [weak self] notice in
            guard let self, !self.deaf else { return }
            handler(notice)
        }
    }
}

/// Two nodes (two `LayoutAPI`s) in one process on one shared store.
private struct Cluster {
    let store: MemorySessionStorage
    let a: Client, b: Client
    let aStorage: NodeStorage, bStorage: NodeStorage

    init(policy: SnapshotPolicy = SnapshotPolicy()) {
        store = MemorySessionStorage(policy: policy, shared: true)
        aStorage = NodeStorage(store)
        bStorage = NodeStorage(store)
        a = Client(api: LayoutAPI(storage: aStorage))
        b = Client(api: LayoutAPI(storage: bStorage))
    }
}

private func revision(_ r: APIResponse) -> Int? { T.json(r)["revision"]?.numberValue.map { Int($0) } }

@Suite("Several nodes on one shared store: any node serves any session, no lost update, streams follow every node")
struct SharedStoreTests {
    static let doc = #"""
        {"views": {"root": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "root", "frame": {"x": 0, "y": 0, "height": 10}}},
         "constraints": {"a-width": {"first": "a.width", "constant": 100}}}
        """#

    static func widthPatch(_ w: Int) -> String { #"{"constraints": {"a-width": {"constant": \#(w)}}}"# }

    @Test("a session created through one node answers identically through the other: document, frames, ETag")
    func anyNodeServesAnySession() {
        let c = Cluster()
        #expect(c.a.put("s", Self.doc).status == 201)
        #expect(c.a.patch("/v1/sessions/s", Self.widthPatch(120)).status == 200)
        let fromA = c.a.send("GET", "/v1/sessions/s"), fromB = c.b.send("GET", "/v1/sessions/s")
        #expect(fromB.status == 200)
        #expect(fromA.body == fromB.body)
        #expect(fromA.header("ETag") == fromB.header("ETag"))
    }

    @Test("a change made on one node is answered by the other once its notice arrives, without a request to the first")
    func noticesEndStaleReads() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        #expect(revision(c.b.send("GET", "/v1/sessions/s")) == 1)  // b holds a copy now
        #expect(revision(c.a.patch("/v1/sessions/s", Self.widthPatch(150))) == 2)
        #expect(eventually { revision(c.b.send("GET", "/v1/sessions/s")) == 2 })
        #expect(c.a.send("GET", "/v1/sessions/s").body == c.b.send("GET", "/v1/sessions/s").body)
    }

    @Test("a node that has not heard of a change yet loses no update: its write is fenced, it catches up and applies on top")
    func fencedWriteCatchesUp() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        c.b.send("GET", "/v1/sessions/s")
        c.bStorage.deaf = true
        #expect(revision(c.a.patch("/v1/sessions/s", #"{"constraints": {"from-a": "a.height >= 1"}}"#)) == 2)
        let r = c.b.patch("/v1/sessions/s", #"{"constraints": {"from-b": "a.height >= 2"}}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(revision(r) == 3)
        // a has its copy at revision 2: it answers revision 3 once it hears of it.
        #expect(eventually { revision(c.a.send("GET", "/v1/sessions/s")) == 3 })
        let document = T.json(c.a.send("GET", "/v1/sessions/s"))["document"]?["constraints"]
        #expect(document?["from-a"] != nil && document?["from-b"] != nil)
        #expect(eventually { c.a.send("GET", "/v1/sessions/s").body == c.b.send("GET", "/v1/sessions/s").body })
    }

    @Test("If-Match of the revision a stale node held: 412 naming the stored revision, nothing written")
    func staleIfMatchIsPreconditionFailed() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        let tag = c.b.send("GET", "/v1/sessions/s").header("ETag")!
        c.bStorage.deaf = true
        c.a.patch("/v1/sessions/s", Self.widthPatch(130))
        let r = c.b.patch("/v1/sessions/s", Self.widthPatch(140), headers: [("If-Match", tag)])
        T.expectProblem(r, 412)
        #expect(revision(c.a.send("GET", "/v1/sessions/s")) == 2)
        #expect(T.json(c.a.send("GET", "/v1/sessions/s"))["document"]?["constraints"]?["a-width"]?["constant"]?.numberValue == 130)
    }

    @Test("two nodes patching one session concurrently acknowledge each revision once; the document holds exactly the acknowledged changes")
    func concurrentWritersNeverShareARevision() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        let acknowledged = Mutex<[Int: String]>([:])
        let refused = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { node in
            let client = node == 0 ? c.a : c.b
            for i in 0..<60 {
                let name = "n\(node)-\(i)"
                let r = client.patch("/v1/sessions/s", #"{"constraints": {"\#(name)": "a.height >= \#(i)"}}"#)
                if r.status == 200, let rev = revision(r) {
                    acknowledged.withLock { acks in
                        #expect(acks[rev] == nil, "revision \(rev) acknowledged twice")
                        acks[rev] = name
                    }
                } else {
                    #expect(r.status == 409, "\(r.status) \(r.text)")
                    refused.withLock { $0 += 1 }
                }
            }
        }
        let acks = acknowledged.withLock { $0 }
        #expect(acks.count + refused.withLock { $0 } == 120)
        #expect(acks.count >= 100, "only \(acks.count) of 120 acknowledged")
        #expect(Set(acks.keys) == Set(2...(acks.count + 1)), "revisions are not contiguous")
        let final = T.json(c.b.send("GET", "/v1/sessions/s"))
        #expect(revision(c.b.send("GET", "/v1/sessions/s")) == acks.count + 1)
        let ids = Set(final["document"]?["constraints"]?.objectValue?.entries.map(\.0) ?? [])
        #expect(ids == Set(acks.values).union(["a-width"]))
    }

    @Test("an event stream on one node gets every revision made on the other, in order")
    func streamsFollowOtherNodes() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        let sink = c.b.subscribe("s")
        for w in 1...20 { #expect(c.a.patch("/v1/sessions/s", Self.widthPatch(100 + w)).status == 200) }
        #expect(eventually { sink.events.count == 21 })
        #expect(sink.events.map(\.id) == (1...21).map { String($0) })
        #expect(sink.events.last?.data.contains("\"revision\":21") == true)
    }

    @Test("a stream whose missed patches were folded into a snapshot gets the stored frames as one revision")
    func streamsCatchUpAcrossSnapshots() {
        let c = Cluster(policy: SnapshotPolicy(maxPatches: 2))
        c.a.put("s", Self.doc)
        let sink = c.b.subscribe("s")
        c.bStorage.deaf = true
        for w in 1...5 { c.a.patch("/v1/sessions/s", Self.widthPatch(200 + w)) }
        c.bStorage.deaf = false
        c.a.patch("/v1/sessions/s", Self.widthPatch(300))
        #expect(eventually { sink.events.last?.id == "7" })
        #expect(sink.events.map(\.id).map { Int($0 ?? "") ?? 0 } == sink.events.map(\.id).map { Int($0 ?? "") ?? 0 }.sorted())
        #expect(T.json(c.b.send("GET", "/v1/sessions/s"))["frames"]?["a"] == T.json(c.a.send("GET", "/v1/sessions/s"))["frames"]?["a"])
    }

    @Test("a delete on one node: the other answers 404 once it hears of it and ends its streams with deleted")
    func deletesReachOtherNodes() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        let sink = c.b.subscribe("s")
        #expect(c.a.send("DELETE", "/v1/sessions/s").status == 204)
        #expect(eventually { sink.finished })
        #expect(sink.events.last?.event == "deleted")
        #expect(c.b.send("GET", "/v1/sessions/s").status == 404)
    }

    @Test("an id deleted and created again elsewhere: the stale node answers the new session, not its copy")
    func recreatedIdsAreNotConfused() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        c.b.send("GET", "/v1/sessions/s")
        c.bStorage.deaf = true
        c.a.send("DELETE", "/v1/sessions/s")
        c.a.put("s", Docs.small)
        c.bStorage.deaf = false
        let r = c.b.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 90}}}}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(T.json(c.a.send("GET", "/v1/sessions/s"))["document"]?["constraints"]?["c1"] != nil)
        #expect(eventually { c.a.send("GET", "/v1/sessions/s").body == c.b.send("GET", "/v1/sessions/s").body })
    }

    @Test("notices lost while a node was not listening: every copy is checked against the store on its next use")
    func lostNoticesCheckEveryCopy() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        c.b.send("GET", "/v1/sessions/s")
        // A notice (the create's) heard while b read the session marks its copy to be checked once
        // more: that check is made here, before b stops hearing.
        c.b.send("GET", "/v1/sessions/s")
        c.bStorage.deaf = true
        c.a.patch("/v1/sessions/s", Self.widthPatch(170))
        #expect(revision(c.b.send("GET", "/v1/sessions/s")) == 1)  // nothing heard: the copy answers
        c.bStorage.deaf = false
        c.store.announceLostNotices()
        #expect(eventually { revision(c.b.send("GET", "/v1/sessions/s")) == 2 })
    }

    @Test("a stream reconnecting with Last-Event-ID ahead of a node's copy never goes back: the node catches up first")
    func lastEventIDAheadCatchesUp() {
        let c = Cluster()
        c.a.put("s", Self.doc)
        c.b.send("GET", "/v1/sessions/s")
        c.bStorage.deaf = true
        c.a.patch("/v1/sessions/s", Self.widthPatch(111))
        let r = c.b.send("GET", "/v1/sessions/s/events", headers: [("Last-Event-ID", "2")])
        #expect(r.status == 200)
        let sink = FakeSink()
        r.stream?.open(sink)
        #expect(sink.events.first?.id == "2")
    }
}
