import Foundation
import Synchronization
import LayoutAPI
import Storage
import Testing
import TestSupport

/// One node of a shared store that hears only the writes to the sessions it follows, as
/// PostgreSQL's bucket channels deliver them (here one "bucket" per id: stricter than the real
/// store, where other ids of a followed bucket are heard too). Records the calls that matter for
/// the order follow → read.
final class FollowingNodeStorage: ForwardingStorage, @unchecked Sendable {
    let calls = Mutex<[String]>([])
    let followed = Mutex<[String: Int]>([:])
    /// Notices handed to the node.
    let delivered = Mutex(0)
    /// Runs once after the next `load`, before it answers.
    let afterLoad = Mutex<(@Sendable () -> Void)?>(nil)

    override var isShared: Bool { true }

    override func observe(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        inner.observe { [weak self] notice in
            guard let self else { return }
            switch notice {
            case .changed(let id, _, _, _, _), .deleted(let id, _):
                guard self.followed.withLock({ $0[id, default: 0] > 0 }) else { return }
            case .lost:
                break
            }
            handler(notice)
            self.delivered.withLock { $0 += 1 }
        }
    }

    override func follow(_ id: String) {
        followed.withLock { $0[id, default: 0] += 1 }
        calls.withLock { $0.append("follow \(id)") }
    }

    override func unfollow(_ id: String) {
        followed.withLock { f in
            f[id, default: 0] -= 1
            if f[id] == 0 { f[id] = nil }
        }
        calls.withLock { $0.append("unfollow \(id)") }
    }

    override func load(id: String) throws(StorageError) -> StoredSession? {
        calls.withLock { $0.append("load \(id)") }
        let stored = try super.load(id: id)
        afterLoad.withLock { f in defer { f = nil }; return f }?()
        return stored
    }

    override func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        calls.withLock { $0.append("create \(id)") }
        return try super.create(id: id, revision: revision, document: document, delegates: delegates)
    }

    /// How many copies of `id` this node follows (negative: more unfollows than follows).
    func following(_ id: String) -> Int { followed.withLock { $0[id, default: 0] } }
}

private func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

private func revision(_ r: APIResponse) -> Int? { T.json(r)["revision"]?.numberValue.map { Int($0) } }

@Suite("Targeted notices: a node follows exactly the sessions it holds a copy of")
struct TargetedNoticeTests {
    static let doc = #"{"views": {"root": {"frame": {"width": 400, "height": 300}}}}"#

    let store = MemorySessionStorage(shared: true)
    let aStorage: FollowingNodeStorage, bStorage: FollowingNodeStorage
    let a: Client, b: Client

    init() {
        aStorage = FollowingNodeStorage(store)
        bStorage = FollowingNodeStorage(store)
        a = Client(api: LayoutAPI(storage: aStorage))
        b = Client(api: LayoutAPI(storage: bStorage))
    }

    @Test("a node reading a session it does not hold follows it before the read, and then hears the other node's writes")
    func followBeforeRead() {
        #expect(a.put("s", Self.doc).status == 201)
        #expect(revision(b.send("GET", "/v1/sessions/s")) == 1)
        #expect(bStorage.calls.withLock { $0 }.filter { $0.hasSuffix(" s") }.prefix(2) == ["follow s", "load s"])
        #expect(bStorage.following("s") == 1)
        #expect(revision(a.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 500}}}}"#)) == 2)
        #expect(eventually { revision(b.send("GET", "/v1/sessions/s")) == 2 })
    }

    @Test("a node creating a session follows it before it is stored, so that another node's first write is heard")
    func followBeforeCreate() {
        #expect(b.put("n", Self.doc).status == 201)
        // (A PUT looks for a stored session first: follow, load, nothing, unfollow; then creates.)
        #expect(bStorage.calls.withLock { $0 }.suffix(2) == ["follow n", "create n"])
        #expect(bStorage.following("n") == 1)
        #expect(revision(a.patch("/v1/sessions/n", #"{"views": {"root": {"frame": {"width": 500}}}}"#)) == 2)
        #expect(eventually { revision(b.send("GET", "/v1/sessions/n")) == 2 })
    }

    @Test("a write made while a node reads the session, heard before the copy is in its registry: the copy is checked on its next use")
    func noticeBeforeInsertIsNotLost() {
        a.put("r", Self.doc)
        let (a, bStorage) = (a, bStorage)
        bStorage.afterLoad.withLock { $0 = {
            // Another node's write after b's read, whose notice reaches b before b holds the copy.
            let before = bStorage.delivered.withLock { $0 }
            _ = a.patch("/v1/sessions/r", #"{"views": {"root": {"frame": {"width": 500}}}}"#)
            _ = eventually { bStorage.delivered.withLock { $0 } > before }
        } }
        #expect(revision(b.send("GET", "/v1/sessions/r")) == 1)  // the read, from before the write
        #expect(revision(b.send("GET", "/v1/sessions/r")) == 2)
    }

    @Test("follows and unfollows balance: a read of a missing id, a copy deleted elsewhere, a session deleted here")
    func followsBalance() {
        #expect(b.send("GET", "/v1/sessions/missing").status == 404)
        #expect(bStorage.following("missing") == 0)
        #expect(bStorage.calls.withLock { $0 } == ["follow missing", "load missing", "unfollow missing"])

        a.put("gone", Self.doc)
        #expect(b.send("GET", "/v1/sessions/gone").status == 200)
        #expect(a.send("DELETE", "/v1/sessions/gone").status == 204)
        // b hears the delete (it follows "gone") and drops its copy at its next use.
        #expect(eventually { b.send("GET", "/v1/sessions/gone").status == 404 })
        #expect(bStorage.following("gone") == 0)

        b.put("mine", Self.doc)
        #expect(b.send("DELETE", "/v1/sessions/mine").status == 204)
        #expect(bStorage.following("mine") == 0)
        // a created "gone" and deleted it: nothing is followed any more on either node.
        #expect(aStorage.followed.withLock { $0 }.isEmpty)
        #expect(bStorage.followed.withLock { $0 }.isEmpty)
    }
}
