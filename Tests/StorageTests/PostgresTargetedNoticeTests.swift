import Primitives
import Testing
import TestSupport
import Storage
@testable import PostgresStorage

/// Targeted notices (issue 28): a node hears of writes only to the sessions it follows (their
/// buckets' channels), hears every one of those, and hears them again after its listening
/// connection came back.
@Suite("PostgreSQL targeted notices", .enabled(if: testPostgresURL != nil, "LAYOUTD_TEST_POSTGRES names no server"))
struct PostgresTargetedNoticeTests {
    func twoNodes() throws -> (TestDatabase, PostgresSessionStorage, PostgresSessionStorage) {
        let database = try TestDatabase()
        return (database, try PostgresSessionStorage(url: database.url, sync: .always),
                try PostgresSessionStorage(url: database.url, sync: .always))
    }

    /// Ids whose buckets differ from each other's and from `others`'.
    func ids(_ count: Int, prefix: String, avoiding others: [String] = []) -> [String] {
        var taken = Set(others.map(NoticeBuckets.bucket(of:)))
        var out: [String] = []
        var i = 0
        while out.count < count {
            let id = "\(prefix)\(i)"
            i += 1
            if taken.insert(NoticeBuckets.bucket(of: id)).inserted { out.append(id) }
        }
        return out
    }

    @Test("the bucket of an id is FNV-1a of its bytes modulo 1,024: every node and version computes the same")
    func bucketsAreStable() {
        // FNV-1a (32 bits): "" is the offset basis 0x811c9dc5, "a" is 0xe40c292c.
        #expect(NoticeBuckets.bucket(of: "") == 0x811c9dc5 % 1_024)
        #expect(NoticeBuckets.bucket(of: "a") == 0xe40c292c % 1_024)
        #expect(NoticeBuckets.channel(of: "a") == "layoutd_sessions_300")
        let spread = Set((0..<4_096).map { NoticeBuckets.bucket(of: "session-\($0)") })
        #expect(spread.count > 900, "4,096 ids fall in \(spread.count) of 1,024 buckets")
    }

    @Test("a node hears the writes to the sessions it follows, and none of the writes to the others")
    func onlyFollowedSessionsAreHeard() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        let followed = ids(1, prefix: "mine")[0]
        let other = ids(1, prefix: "theirs", avoiding: [followed])[0]
        b.follow(followed)
        let go = try a.create(id: other, revision: 1, document: [1], delegates: [:])
        try a.appendPatch(id: other, generation: go, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        try a.delete(id: other, generation: go)
        // Notices arrive in commit order: once the followed session's arrives, the others' would have.
        let g = try a.create(id: followed, revision: 1, document: [1], delegates: [:])
        try a.appendPatch(id: followed, generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        try a.delete(id: followed, generation: g)
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 3 })
        let w1 = WriteChain.created([1])
        #expect(seen.withLock { $0 } == [.changed(id: followed, generation: g, revision: 1, writeID: w1),
                                         .changed(id: followed, generation: g, revision: 2,
                                                  writeID: WriteChain.patched(after: w1, constantPatch(0, 1)),
                                                  patch: constantPatch(0, 1)),
                                         .deleted(id: followed, generation: g)])
    }

    @Test("follow returns with its bucket listened on: a write committed right after it is heard, in 20 new buckets")
    func followWaitsForItsListen() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        var expected: [StoreNotice] = []
        for id in ids(20, prefix: "new") {
            b.follow(id)
            #expect(b.listenedBuckets.contains(NoticeBuckets.bucket(of: id)))
            let g = try a.create(id: id, revision: 1, document: [2], delegates: [:])
            expected.append(.changed(id: id, generation: g, revision: 1, writeID: WriteChain.created([2])))
        }
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 20 })
        #expect(seen.withLock { $0 } == expected)
    }

    @Test("a bucket no copy needs any more is left: its writes are no longer sent to the node")
    func unfollowedBucketsAreLeft() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        let pair = ids(2, prefix: "s")
        let (dropped, kept) = (pair[0], pair[1])
        // Two copies in one bucket: it stays until the last is dropped.
        b.follow(dropped)
        b.follow(dropped)
        b.follow(kept)
        b.unfollow(dropped)
        try a.create(id: dropped, revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 1 })
        b.unfollow(dropped)
        let bucket = NoticeBuckets.bucket(of: dropped)
        #expect(eventually(timeout: 10) { !b.listenedBuckets.contains(bucket) })
        let g = try #require(try a.load(id: dropped)).generation
        try a.appendPatch(id: dropped, generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        let gk = try a.create(id: kept, revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 2 })
        #expect(seen.withLock { $0 } == [.changed(id: dropped, generation: g, revision: 1, writeID: WriteChain.created([1])),
                                         .changed(id: kept, generation: gk, revision: 1, writeID: WriteChain.created([1]))])
    }

    @Test("idle expiry of many sessions tells each follower of its session's delete, on that session's bucket")
    func expiryReachesFollowers() throws {
        let database = try TestDatabase()
        let now = Locked(1_000.0)
        let a = try PostgresSessionStorage(url: database.url, sync: .always, clock: { now.withLock { $0 } })
        let b = try PostgresSessionStorage(url: database.url, sync: .always)
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        let sessions = ids(3, prefix: "idle")
        var generations: [String: UInt64] = [:]
        for id in sessions {
            b.follow(id)
            generations[id] = try a.create(id: id, revision: 1, document: [1], delegates: [:])
        }
        let unfollowed = ids(1, prefix: "quiet", avoiding: sessions)[0]
        try a.create(id: unfollowed, revision: 1, document: [1], delegates: [:])
        let expired = try a.expire(before: 2_000)
        #expect(Set(expired.map(\.id)) == Set(sessions + [unfollowed]))
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 6 })
        let deletes = seen.withLock { $0 }.dropFirst(3)
        #expect(Set(deletes.map { "\($0)" }) == Set(sessions.map { "\(StoreNotice.deleted(id: $0, generation: generations[$0]!))" }))
        #expect(try a.count() == 0)
    }

    @Test("the listening connection killed: it listens again on every bucket followed, and owes nothing more than .lost")
    func bucketsSurviveReconnection() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        let followed = ids(5, prefix: "kept")
        for id in followed { b.follow(id) }
        let first = b.listenerBackendPID
        try database.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                         + "AND application_name LIKE 'layoutd listener %'")
        #expect(eventually(timeout: 10) {
            b.listenerBackendPID != 0 && b.listenerBackendPID != first && b.listenedBuckets == Set(followed.map(NoticeBuckets.bucket(of:)))
        })
        #expect(eventually(timeout: 10) { seen.withLock { $0 }.count >= 2 })
        #expect(seen.withLock { $0 }.allSatisfy { $0 == .lost })
        let before = seen.withLock { $0.count }
        for id in followed { try a.create(id: id, revision: 1, document: [1], delegates: [:]) }
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= before + 5 })
        #expect(seen.withLock { $0 }.dropFirst(before).map { if case .changed(let id, _, _, _, _) = $0 { id } else { "" } } == followed)
    }
}
