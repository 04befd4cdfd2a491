#if canImport(Glibc)
import Glibc
#endif
import Primitives
import Testing
import TestSupport
import Storage
@testable import PostgresStorage

/// What only a store shared by several processes does: fencing between two stores ("nodes") on
/// one database, notices to the other node, a listener that survives its connection, connections
/// lost and made again. Each test has a database of its own on the test server.
@Suite("PostgreSQL session store", .enabled(if: testPostgresURL != nil, "LAYOUTD_TEST_POSTGRES names no server"))
struct PostgresStorageTests {
    /// Two stores on one new database, as two nodes would have.
    func twoNodes() throws -> (TestDatabase, PostgresSessionStorage, PostgresSessionStorage) {
        let database = try TestDatabase()
        return (database, try PostgresSessionStorage(url: database.url, sync: .always),
                try PostgresSessionStorage(url: database.url, sync: .always))
    }

    @Test("two nodes append the same revision at once: exactly one wins, the other is told what is stored")
    func concurrentAppendsAreFenced() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let g = try a.create(id: "s", revision: 1, document: document(views: 3), delegates: [:])
        for revision in 2...40 {
            let outcomes = Locked<[Result<Void, StorageError>]>([])
            concurrently(2) { node in
                let store = node == 0 ? a : b
                do throws(StorageError) {
                    try store.appendPatch(id: "s", generation: g, revision: revision,
                                          patch: constantPatch(node, revision), delegates: nil)
                    outcomes.withLock { $0.append(.success(())) }
                } catch {
                    outcomes.withLock { $0.append(.failure(error)) }
                }
            }
            let all = outcomes.withLock { $0 }
            let wins = all.filter { if case .success = $0 { return true } else { return false } }.count
            #expect(wins == 1, "revision \(revision): \(all)")
            for case .failure(let error) in all {
                guard case .conflict(let c) = error else { Issue.record("revision \(revision): \(error)"); continue }
                #expect(c.storedGeneration == g && c.storedRevision == revision && c.expectedRevision == revision - 1)
            }
        }
        let stored = try #require(try b.load(id: "s"))
        #expect(stored.revision == 40 && stored.patches.map(\.revision) == Array(2...40))
        #expect(try a.check().isIntact)
    }

    @Test("the other node is told of every create, patch, replace and delete, in order")
    func noticesReachTheOtherNode() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        #expect(b.isShared)
        b.observe { notice in seen.withLock { $0.append(notice) } }
        // The listener is up once a notice of a write made after observe arrives.
        #expect(eventually(timeout: 10) { listeners(database) == 1 })
        b.follow("n")  // b holds a copy of "n": it hears of its writes (targeted notices)
        let g = try a.create(id: "n", revision: 1, document: document(views: 2), delegates: [:])
        try a.appendPatch(id: "n", generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        try a.replace(id: "n", generation: g, revision: 3, document: document(views: 3), delegates: [:])
        try a.delete(id: "n", generation: g)
        // A patch's notice carries the patch (nodes following the session apply it without a read),
        // and every change notice the write id of its revision (the chain over the content).
        let w1 = WriteChain.created(document(views: 2))
        let w2 = WriteChain.patched(after: w1, constantPatch(0, 1))
        let w3 = WriteChain.replaced(after: w2, document(views: 3))
        let expected: [StoreNotice] = [.changed(id: "n", generation: g, revision: 1, writeID: w1),
                                       .changed(id: "n", generation: g, revision: 2, writeID: w2, patch: constantPatch(0, 1)),
                                       .changed(id: "n", generation: g, revision: 3, writeID: w3),
                                       .deleted(id: "n", generation: g)]
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 4 })
        #expect(seen.withLock { $0 } == expected)
        // A fenced-off write tells nobody anything.
        #expect(throws: StorageError.self) { try a.appendPatch(id: "n", generation: g, revision: 4, patch: [1], delegates: nil) }
        let g2 = try a.create(id: "n", revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 5 })
        #expect(seen.withLock { $0 }.dropFirst(4) == [.changed(id: "n", generation: g2, revision: 1,
                                                                writeID: WriteChain.created([1]))])
        // A patch too large for a notification's payload: the notice without it.
        let large = Array("{\"views\":{\"v0\":{\"frame\":{\"width\":1}}},\"x\":\"\(String(repeating: "y", count: 5_000))\"}".utf8)
        try a.appendPatch(id: "n", generation: g2, revision: 2, patch: large, delegates: nil)
        #expect(eventually(timeout: 10) { seen.withLock { $0.count } >= 6 })
        #expect(seen.withLock { $0 }.last == .changed(id: "n", generation: g2, revision: 2,
                                                        writeID: WriteChain.patched(after: WriteChain.created([1]), large)))
    }

    @Test("the listening connection killed: the listener connects again, sends .lost, and notices flow again")
    func listenerRecoversAndSaysLost() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { listeners(database) == 1 })
        #expect(seen.withLock { $0 }.isEmpty)  // a first connection that worked lost nothing
        b.follow("after")
        let first = b.listenerBackendPID
        try database.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                         + "AND application_name LIKE 'layoutd listener %'")
        // .lost when the connection breaks, and again once it listens anew.
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 && b.listenerBackendPID != first })
        #expect(eventually(timeout: 10) { seen.withLock { $0 }.count >= 2 })
        #expect(seen.withLock { $0 }.allSatisfy { $0 == .lost })
        let g = try a.create(id: "after", revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 10) { seen.withLock { $0.last } == .changed(id: "after", generation: g, revision: 1, writeID: WriteChain.created([1])) })
    }

    @Test("the listening connection hangs (its server process stopped): .lost within 3 s, and notices flow again on a new connection")
    func hungListenerIsNoticed() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        b.follow("after")
        let hung = b.listenerBackendPID
        // Stopped, not killed: its socket stays open and silent, which keepalives take ~15 s to see.
        #expect(kill(hung, SIGSTOP) == 0)
        // Runs before the database is dropped (a stopped process cannot be terminated).
        defer { kill(hung, SIGCONT) }
        let stopped = MonotonicTime.now
        #expect(eventually(timeout: 6) { seen.withLock { $0 }.contains(.lost) })
        let noticedAfter = Double(MonotonicTime.now - stopped) / 1e9
        #expect(noticedAfter < 3.5, "the hang was noticed after \(noticedAfter) s")
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 && b.listenerBackendPID != hung })
        let g = try a.create(id: "after", revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 10) { seen.withLock { $0 }.contains(.changed(id: "after", generation: g, revision: 1, writeID: WriteChain.created([1]))) })
    }

    @Test("a listener hears its own heartbeat: a quiet store is not taken for a hung one")
    func quietListenerStays() throws {
        let (database, a, b) = try twoNodes()
        defer { a.close(); b.close(); _ = database }
        let seen = Locked<[StoreNotice]>([])
        b.observe { notice in seen.withLock { $0.append(notice) } }
        #expect(eventually(timeout: 10) { b.listenerBackendPID != 0 })
        let pid = b.listenerBackendPID
        // Three silence bounds without a write from anyone. Not a wait for a condition: the quiet
        // time itself is what is tested (nothing must happen in it).
        usleep(UInt32(3 * PostgresListener.silenceSeconds * 1e6))
        #expect(b.listenerBackendPID == pid)
        #expect(seen.withLock { $0 }.isEmpty)
    }

    @Test("the server closes every connection of a node: the next calls reconnect by themselves")
    func poolReconnects() throws {
        let database = try TestDatabase()
        let store = try PostgresSessionStorage(url: database.url, poolSize: 3)
        defer { store.close(); _ = database }
        let g = try store.create(id: "r", revision: 1, document: document(views: 2), delegates: [:])
        func others() -> Int {
            let rows = try? database.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                         + "AND pid != pg_backend_pid()")
            return Int(rows?.first?.first.flatMap { $0 } ?? "-1") ?? -1
        }
        func killAll() throws {
            concurrently(3) { _ in _ = try? store.load(id: "r") }  // several pooled connections
            try database.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             + "WHERE datname = current_database() AND pid != pg_backend_pid()")
        }
        // A read right after the kill (the server may not have closed them yet) is made again on a
        // new connection when its pooled one breaks under it.
        try killAll()
        #expect(try store.load(id: "r")?.revision == 1)
        // Connections the server closed while they were idle are noticed before use: even a write
        // (never repeated) succeeds.
        try killAll()
        #expect(eventually(timeout: 10) { others() == 0 })
        try store.appendPatch(id: "r", generation: g, revision: 2, patch: constantPatch(0, 2), delegates: nil)
        #expect(try store.load(id: "r")?.revision == 2)
    }

    @Test("a database with a newer schema is refused with a clear error; generations outlive deletes across nodes")
    func newerSchemaRefused() throws {
        let (database, a, b) = try twoNodes()
        let g1 = try a.create(id: "x", revision: 1, document: [1], delegates: [:])
        try a.delete(id: "x", generation: g1)
        let g2 = try b.create(id: "x", revision: 1, document: [1], delegates: [:])
        #expect(g2 > g1)
        a.close(); b.close()
        try database.sql("UPDATE layoutd_schema SET version = 99")
        do {
            _ = try PostgresSessionStorage(url: database.url)
            Issue.record("a newer schema was accepted")
        } catch {
            #expect(error.description.contains("schema version 99") && error.description.contains("newer layoutd"))
        }
    }

    @Test("check reports a patch left without its session and a count that does not match")
    func checkFindsInconsistencies() throws {
        let database = try TestDatabase()
        let store = try PostgresSessionStorage(url: database.url)
        defer { store.close(); _ = database }
        let g = try store.create(id: "c", revision: 1, document: document(views: 2), delegates: [:])
        try store.appendPatch(id: "c", generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        #expect(try store.check().isIntact)
        try database.sql("INSERT INTO layoutd_patches VALUES ('gone', 1, 2, '\\x7b7d'); "
                         + "UPDATE layoutd_sessions SET patch_count = 5, delegates = 'nope' WHERE id = 'c'")
        let problems = try store.check().problems.joined(separator: "\n")
        #expect(problems.contains("session 'c' has 1 patches"))
        #expect(problems.contains("1 patches of no stored session"))
        #expect(problems.contains("session 'c': its delegate memory"))
        #expect(throws: StorageError.self) { try store.load(id: "c") }
    }
}

/// How many connections of `database` listen for notices (a listener sends its first heartbeat
/// once its LISTENs are answered).
func listeners(_ database: TestDatabase) -> Int {
    let rows = try? database.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                 + "AND query LIKE 'NOTIFY layoutd\\_hb\\_%'")
    return Int(rows?.first?.first.flatMap { $0 } ?? "0") ?? 0
}

@Suite("PostgreSQL session store without a server")
struct PostgresUnreachableTests {
    @Test("a server that cannot be reached at start: the store is made, says why, and answers unavailable")
    func unreachableAtStart() throws {
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let store = try PostgresSessionStorage(url: "postgres://layoutd@127.0.0.1:1/layoutd")
        defer { store.close() }
        #expect(store.startupProblem?.contains("cannot connect to PostgreSQL") == true)
        do {
            _ = try store.load(id: "a")
            Issue.record("a store without a server answered")
        } catch {
            guard case .unavailable = error else { Issue.record("expected unavailable, got \(error)"); return }
        }
        #expect(PostgresSessionStorage.problem(url: "postgres://x/y?nonsense=1") != nil)
        #expect(throws: StorageError.self) { _ = try PostgresSessionStorage(url: "postgresql://h/db?bogus_option=2") }
    }
}
