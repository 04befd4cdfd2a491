import Foundation
import PostgresStorage
import SQLiteStorage
import Storage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `probe(write:)`, what `/readyz` asks (issue 27, item 7): it succeeds on a store that works and
/// fails where a session's write would, naming what happened (for the log).
@Suite("Session storage: readiness probes")
struct StoreProbeTests {
    static func document() -> [UInt8] { Array(#"{"views":{"root":{"frame":{"width":10,"height":10}}}}"#.utf8) }

    static func expectIO(_ body: () throws(StorageError) -> Void, naming path: String, saying words: String,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(StorageError) {
            try body()
            Issue.record("no error: expected one saying '\(words)'", sourceLocation: sourceLocation)
        } catch {
            guard case .io(let p, let detail) = error else {
                Issue.record("\(error): expected an I/O error", sourceLocation: sourceLocation)
                return
            }
            #expect(p == path && detail.contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("SQLite: a read and a write probe succeed on a working file; writes leave the sessions alone")
    func sqliteProbesSucceed() throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: directory.path + "/s.db", sync: .never)
        defer { store.close() }
        _ = try store.create(id: "a", revision: 1, document: Self.document(), delegates: [:])
        try store.probe(write: false)
        try store.probe(write: true)
        try store.probe(write: true)
        #expect(try store.count() == 1)
        #expect(try store.check().isIntact)
    }

    @Test("SQLite: a deleted file fails both probes, saying it was deleted")
    func sqliteDeletedFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/s.db"
        let store = try SQLiteSessionStorage(path: path, sync: .never)
        defer { store.close() }
        _ = try store.create(id: "a", revision: 1, document: Self.document(), delegates: [:])
        #expect(unlink(path) == 0)
        Self.expectIO({ () throws(StorageError) in try store.probe(write: false) }, naming: path, saying: "was deleted")
        Self.expectIO({ () throws(StorageError) in try store.probe(write: true) }, naming: path, saying: "was deleted")
    }

    @Test("SQLite: a file replaced by another database fails both probes, saying it was replaced")
    func sqliteReplacedFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/s.db", other = directory.path + "/other.db"
        let store = try SQLiteSessionStorage(path: path, sync: .never)
        defer { store.close() }
        try SQLiteSessionStorage(path: other, sync: .never).close()
        #expect(rename(other, path) == 0)
        Self.expectIO({ () throws(StorageError) in try store.probe(write: false) }, naming: path, saying: "was replaced by another file")
        Self.expectIO({ () throws(StorageError) in try store.probe(write: true) }, naming: path, saying: "was replaced by another file")
    }

    @Test("a closed store fails its probes as unavailable (memory, SQLite)")
    func closedStoreIsUnavailable() throws {
        let directory = TemporaryDirectory()
        let stores: [any SessionStorage] = [MemorySessionStorage(), try SQLiteSessionStorage(path: directory.path + "/s.db")]
        for store in stores {
            try store.probe(write: true)
            store.close()
            for write in [false, true] {
                #expect(throws: StorageError.self, "\(type(of: store)) write: \(write)") { try store.probe(write: write) }
            }
        }
    }

    @Test("PostgreSQL: a read and a write probe succeed and change no session",
          .enabled(if: testPostgresURL != nil, "LAYOUTD_TEST_POSTGRES names no server"))
    func postgresProbesSucceed() throws {
        let database = try TestDatabase()
        let store = try PostgresSessionStorage(url: database.url, sync: .never, poolSize: 1)
        defer { store.close() }
        _ = try store.create(id: "a", revision: 1, document: Self.document(), delegates: [:])
        try store.probe(write: false)
        try store.probe(write: true)
        #expect(try store.count() == 1)
        #expect(try store.check().isIntact)
        store.close()
        #expect(throws: StorageError.self) { try store.probe(write: true) }
    }
}
