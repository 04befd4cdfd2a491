#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
import CSQLite
import Storage
@testable import SQLiteStorage

/// The SQLite store's group commit: concurrent writes of different sessions share one
/// transaction (and, with `sync: always`, one fsync), each with its own answer.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    /// Runs `writes` as one batch: the write connection is held (as maintenance holds it) until
    /// every write has queued, so the first to wake leads them all in one transaction. Answers
    /// each write's outcome, in order.
    func batch(_ store: SQLiteSessionStorage,
               _ writes: [@Sendable () throws -> Void]) throws -> [Result<Void, StorageError>] {
        let outcomes = Outcomes(count: writes.count)
        let group = DispatchGroup()
        try store.exclusive { _ in
            for (i, write) in writes.enumerated() {
                DispatchQueue.global().async(group: group) {
                    // Untyped throws: closures with typed throws crash Swift 6.3's IR generation here.
                    do {
                        try write()
                        outcomes.set(i, .success(()))
                    } catch let error as StorageError {
                        outcomes.set(i, .failure(error))
                    } catch {
                        outcomes.set(i, .failure(.unavailable("not a StorageError: \(error)")))
                    }
                }
            }
            #expect(eventually(timeout: 10) { store.queuedWrites == writes.count }, "the writes never all queued")
        }
        group.wait()
        return outcomes.all
    }

    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Result<Void, StorageError>?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: Result<Void, StorageError>) { lock.withLock { values[i] = r } }
        var all: [Result<Void, StorageError>] { lock.withLock { values.map { $0! } } }
    }

    /// Sessions s0…s(n-1), each created at revision 1: answers their generations.
    func sessions(_ n: Int, in store: SQLiteSessionStorage) throws -> [UInt64] {
        try (0..<n).map { try store.create(id: "s\($0)", revision: 1, document: document(views: 3, seed: $0), delegates: [:]) }
    }

    func append(_ store: SQLiteSessionStorage, _ s: Int, _ generation: UInt64, revision: Int = 2)
        -> @Sendable () throws -> Void {
        {
            try store.appendPatch(id: "s\(s)", generation: generation, revision: revision, patch: constantPatch(0, 100 + s),
                                  delegates: nil)
        }
    }

    @Test("writes of eight sessions that arrive together commit in one transaction and one fsync, each durable after reopening")
    func concurrentWritesShareOneTransaction() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/store.db"
        let store = try SQLiteSessionStorage(path: path, sync: .always)
        let n = 8
        let generations = try sessions(n, in: store)
        let before = store.statistics
        let outcomes = try batch(store, (0..<n).map { append(store, $0, generations[$0]) })
        let after = store.statistics
        for (s, outcome) in outcomes.enumerated() { #expect((try? outcome.get()) != nil, "s\(s): \(outcome)") }
        #expect(after.commits - before.commits == 1)
        #expect(after.syncs - before.syncs == 1)
        #expect(after.writes - before.writes == n)
        #expect(after.largestBatch == n)
        store.close()

        let reopened = try SQLiteSessionStorage(path: path)
        defer { reopened.close() }
        for s in 0..<n {
            let loaded = try #require(try reopened.load(id: "s\(s)"))
            #expect(loaded.revision == 2 && loaded.patches.map(\.bytes) == [constantPatch(0, 100 + s)], "s\(s)")
        }
    }

    @Test("sixteen threads writing freely with sync always end in fewer transactions than writes, every write stored")
    func freeRunningWritersBatch() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let writers = 16, each = 10
        let generations = try sessions(writers, in: store)
        let before = store.statistics
        concurrently(writers) { w in
            for r in 2..<(2 + each) {
                _ = try? store.appendPatch(id: "s\(w)", generation: generations[w], revision: r, patch: constantPatch(0, r),
                                           delegates: nil)
            }
        }
        let after = store.statistics
        let writes = after.writes - before.writes, commits = after.commits - before.commits
        #expect(writes == writers * each)
        #expect(commits < writes, "\(writes) writes took \(commits) transactions")
        for w in 0..<writers { #expect(try store.load(id: "s\(w)")?.revision == 1 + each) }
    }

    @Test("a write alone is its own leader: one transaction per write, no batch")
    func uncontendedWriteIsItsOwnBatch() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .everysec)
        defer { store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 3), delegates: [:])
        for r in 2...6 { try store.appendPatch(id: "a", generation: g, revision: r, patch: constantPatch(0, r), delegates: nil) }
        let s = store.statistics
        #expect(s.commits == 6 && s.writes == 6 && s.largestBatch == 1)
    }

    @Test("a fenced-off write inside a batch fails alone with its conflict; the others commit")
    func fencedWriteFailsAlone() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let generations = try sessions(4, in: store)
        let before = store.statistics
        // s2's writer believes it is at revision 4: the store holds 1.
        let outcomes = try batch(store, [append(store, 0, generations[0]), append(store, 1, generations[1]),
                                         append(store, 2, generations[2], revision: 5), append(store, 3, generations[3])])
        guard case .failure(.conflict(let conflict)) = outcomes[2] else {
            Issue.record("the fenced write answered \(outcomes[2])")
            return
        }
        #expect(conflict.id == "s2" && conflict.expectedRevision == 4 && conflict.storedRevision == 1)
        for s in [0, 1, 3] { #expect((try? outcomes[s].get()) != nil, "s\(s): \(outcomes[s])") }
        let after = store.statistics
        #expect(after.commits - before.commits == 1)
        #expect(after.writes - before.writes == 3 && after.refusedWrites - before.refusedWrites == 1)
        for s in [0, 1, 3] { #expect(try store.load(id: "s\(s)")?.revision == 2, "s\(s)") }
        #expect(try store.load(id: "s2")?.revision == 1)
        // s2 goes on from what is stored.
        try append(store, 2, generations[2])()
        #expect(try store.load(id: "s2")?.revision == 2)
    }

    @Test("a write that fails on its own inside a batch, after some of its statements, is undone alone; the others commit")
    func failingWriteIsUndoneAlone() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let generations = try sessions(3, in: store)
        let s1Before = try store.load(id: "s1")
        // A statement-level failure in the middle of s1's replace (its row already updated, its
        // snapshot refused), as a constraint gives: SQLite keeps the transaction open.
        try store.writer.execute("""
            CREATE TEMP TRIGGER refuse_large BEFORE INSERT ON snapshots WHEN length(NEW.document) > 50000
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
        let big = document(views: 400)
        let before = store.statistics
        let outcomes = try batch(store, [
            append(store, 0, generations[0]),
            { try store.replace(id: "s1", generation: generations[1], revision: 2, document: big, delegates: [:], base: nil) },
            append(store, 2, generations[2]),
        ])
        try store.writer.execute("DROP TRIGGER refuse_large")
        guard case .failure(.io(_, let detail)) = outcomes[1] else {
            Issue.record("the refused write answered \(outcomes[1])")
            return
        }
        #expect(detail.contains("refused by the test"), "\(detail)")
        for s in [0, 2] { #expect((try? outcomes[s].get()) != nil, "s\(s): \(outcomes[s])") }
        let after = store.statistics
        #expect(after.commits - before.commits == 1)
        #expect(after.writes - before.writes == 2 && after.refusedWrites - before.refusedWrites == 1)
        for s in [0, 2] { #expect(try store.load(id: "s\(s)")?.revision == 2, "s\(s)") }
        // Nothing of s1's write stayed (its row's update was undone with it), and it goes on from there.
        #expect(try store.load(id: "s1") == s1Before)
        try store.replace(id: "s1", generation: generations[1], revision: 2, document: big, delegates: [:], base: nil)
        #expect(try store.load(id: "s1")?.snapshot == big)
        #expect(try store.check().isIntact)
    }

    @Test("a write that fills the disk inside a batch fails the whole batch (SQLite rolls the transaction back); the writes succeed once there is room")
    func diskFullFailsTheBatch() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let generations = try sessions(3, in: store)
        let stored = try (0..<3).map { try store.load(id: "s\($0)") }
        // SQLite's own cap on the file: the same SQLITE_FULL a full disk gives, for s1's 400-view
        // document (the small appends fit in pages the file has).
        let pages = try store.writer.integer("PRAGMA page_count")
        try store.writer.execute("PRAGMA max_page_count = \(pages)")
        let big = document(views: 400)
        let writes: [@Sendable () throws -> Void] = [
            append(store, 0, generations[0]),
            { try store.replace(id: "s1", generation: generations[1], revision: 2, document: big, delegates: [:], base: nil) },
            append(store, 2, generations[2]),
        ]
        let before = store.statistics
        let outcomes = try batch(store, writes)
        for (s, outcome) in outcomes.enumerated() {
            guard case .failure(.io(_, let detail)) = outcome else { Issue.record("s\(s) answered \(outcome)"); continue }
            #expect(detail.contains("full"), "s\(s): \(detail)")
        }
        #expect(store.statistics.failedCommits - before.failedCommits == 1)
        #expect(store.statistics.commits == before.commits)
        for s in 0..<3 { #expect(try store.load(id: "s\(s)") == stored[s], "s\(s)") }
        try store.writer.execute("PRAGMA max_page_count = 1073741823")
        for (s, outcome) in try batch(store, writes).enumerated() { #expect((try? outcome.get()) != nil, "s\(s): \(outcome)") }
        #expect(try store.load(id: "s1")?.snapshot == big)
    }

    @Test("a batch whose COMMIT fails fails every write in it, stores none of them, and the same writes succeed afterwards")
    func failedCommitFailsEveryWrite() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let n = 4
        let generations = try sessions(n, in: store)
        let stored = try (0..<n).map { try store.load(id: "s\($0)") }
        // A commit hook that refuses turns COMMIT into a rollback with an error, as a disk that
        // fails the log's write or fsync at COMMIT does; the statements before it all succeeded.
        sqlite3_commit_hook(store.writer.handle, { _ in 1 }, nil)
        let before = store.statistics
        let outcomes = try batch(store, (0..<n).map { append(store, $0, generations[$0]) })
        sqlite3_commit_hook(store.writer.handle, nil, nil)
        for (s, outcome) in outcomes.enumerated() {
            guard case .failure(let error) = outcome else { Issue.record("s\(s) was acknowledged"); continue }
            #expect(error.isRetryable, "s\(s): \(error)")
        }
        let after = store.statistics
        #expect(after.failedCommits - before.failedCommits == 1)
        #expect(after.commits == before.commits && after.writes == before.writes)
        for s in 0..<n { #expect(try store.load(id: "s\(s)") == stored[s], "s\(s)") }
        // The leader forgot what the failed batch told it: the same revisions are accepted now.
        let retried = try batch(store, (0..<n).map { append(store, $0, generations[$0]) })
        for (s, outcome) in retried.enumerated() { #expect((try? outcome.get()) != nil, "s\(s): \(outcome)") }
        for s in 0..<n { #expect(try store.load(id: "s\(s)")?.revision == 2, "s\(s)") }
    }
}
