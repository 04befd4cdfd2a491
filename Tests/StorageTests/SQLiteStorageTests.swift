#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import CSQLite
import Storage
@testable import SQLiteStorage

/// What only the SQLite store does: files, durability, damage, group commit, disk use.
@Suite("SQLite session store")
struct SQLiteStorageTests {
    /// Stores a few sessions with patches, snapshots, delegate memory and a deleted one; answers
    /// what each loads as.
    func populate(_ store: SQLiteSessionStorage) throws -> [String: StoredSession] {
        for s in 0..<12 {
            let id = "s\(s)"
            let g = try store.create(id: id, revision: 1, document: document(views: 3 + s, seed: s),
                                     delegates: s % 3 == 0 ? ["d\(s)": s % 2 == 0] : [:])
            for r in 2..<(2 + s * 3) {
                let due = try store.appendPatch(id: id, generation: g, revision: r, patch: constantPatch(r % (3 + s), r),
                                                delegates: r % 5 == 0 ? ["d": r % 2 == 0] : nil).snapshotDue
                if due, let now = try store.load(id: id) {
                    try store.saveSnapshot(id: id, generation: g, revision: r, document: try now.document(replay: mergeReplay))
                }
            }
            if s == 7 { try store.delete(id: id, generation: g) }
        }
        var out: [String: StoredSession] = [:]
        for id in try store.ids(after: nil, limit: 100) { out[id] = try store.load(id: id) }
        return out
    }

    @Test("reopen after close restores every session byte for byte; the parent directory is made")
    func reopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/data/deeper/layoutd.db"
        let store = try SQLiteSessionStorage(path: path, sync: .everysec, policy: SnapshotPolicy(maxPatches: 8))
        let before = try populate(store)
        #expect(before.count == 11 && before["s7"] == nil)
        store.close()
        let again = try SQLiteSessionStorage(path: path)
        defer { again.close() }
        var after: [String: StoredSession] = [:]
        for id in try again.ids(after: nil, limit: 100) { after[id] = try again.load(id: id) }
        #expect(after == before)
        #expect(try again.check().isIntact)
    }

    /// The database and its log as the operating system holds them now, copied elsewhere: what a
    /// `kill -9` of this process would leave behind (the shared-memory index is rebuilt from the log).
    func crashImage(of path: String, into dir: String) -> String {
        let copy = dir + "/crashed.db"
        #expect(run("cp", path, copy) == 0)
        if access(path + "-wal", F_OK) == 0 { #expect(run("cp", path + "-wal", copy + "-wal") == 0) }
        return copy
    }

    @Test("abandoned without close (a crash of the process): every acknowledged change is there",
          arguments: [StorageSync.always, .everysec, .never])
    func crashLosesNothingAcknowledged(_ sync: StorageSync) throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: sync)
        let before = try populate(store)
        // No close, no checkpoint: the image is taken while the store is open and mid-life.
        let image = crashImage(of: store.path, into: dir.path)
        let recovered = try SQLiteSessionStorage(path: image)
        defer { recovered.close(); store.close() }
        for (id, session) in before { #expect(try recovered.load(id: id) == session, "\(id)") }
        #expect(try recovered.count() == before.count)
        #expect(try recovered.check().isIntact)
    }

    @Test("everysec fsyncs the log within about a second of a commit")
    func everysecSyncs() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .everysec)
        defer { store.close() }
        #expect(store.statistics.syncs == 0)
        _ = try store.create(id: "a", revision: 1, document: [1], delegates: [:])
        #expect(eventually(timeout: 3) { store.statistics.syncs >= 1 })
        let syncs = store.statistics.syncs
        // Nothing new committed: no more syncs (waiting past two periods).
        #expect(!eventually(timeout: 2.2) { store.statistics.syncs > syncs })
    }

    @Test("group commit: concurrent writers with sync always share far fewer fsyncs than writes")
    func groupCommit() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let writers = 16, each = 20
        let generations = try (0..<writers).map { try store.create(id: "w\($0)", revision: 1, document: document(views: 2), delegates: [:]) }
        let start = store.statistics
        concurrently(writers) { w in
            for r in 2..<(2 + each) {
                _ = try? store.appendPatch(id: "w\(w)", generation: generations[w], revision: r, patch: constantPatch(0, r), delegates: nil)
            }
        }
        let end = store.statistics
        let writes = end.writes - start.writes, syncs = end.syncs - start.syncs
        #expect(writes == writers * each)
        #expect(syncs * 2 <= writes, "\(writes) writes took \(syncs) syncs")
        #expect(end.largestBatch > 1)
        for w in 0..<writers { #expect(try store.load(id: "w\(w)")?.revision == 1 + each) }
    }

    @Test("a file that is not a SQLite database is reported at open with its name")
    func garbageFile() throws {
        let dir = TemporaryDirectory()
        for (name, bytes) in [("short.db", Array("not a database".utf8)),
                              ("garbage.db", [UInt8](repeating: 0x41, count: 8192))] {
            let path = dir.path + "/" + name
            let f = fopen(path, "w")!
            fwrite(bytes, 1, bytes.count, f)
            fclose(f)
            do {
                _ = try SQLiteSessionStorage(path: path)
                Issue.record("\(name) opened")
            } catch {
                guard case .corrupt(let p, _) = error else { Issue.record("\(name): \(error)"); continue }
                #expect(p == path && error.description.contains(path))
            }
        }
    }

    @Test("a truncated database is reported at open with what is missing")
    func truncatedFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/store.db"
        let store = try SQLiteSessionStorage(path: path)
        _ = try populate(store)
        store.close()
        var info = stat()
        stat(path, &info)
        #expect(truncate(path, info.st_size / 2) == 0)
        do {
            _ = try SQLiteSessionStorage(path: path)
            Issue.record("a truncated file opened")
        } catch {
            guard case .corrupt(let p, let detail) = error else { Issue.record("\(error)"); return }
            #expect(p == path && detail.contains("truncated"))
        }
    }

    @Test("a store of another program's tables is not taken for a session store")
    func foreignDatabase() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/other.db"
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "CREATE TABLE t(x)", nil, nil, nil)
        sqlite3_close(db)
        #expect(throws: StorageError.self) { try SQLiteSessionStorage(path: path) }
    }

    @Test("disk full: the write fails as an I/O error, changes nothing, and works again once there is room")
    func diskFull() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .always)
        defer { store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 5), delegates: [:])
        let before = try store.load(id: "a")
        // SQLite's own cap on the file: the same SQLITE_FULL a full disk gives.
        let pages = try store.writer.integer("PRAGMA page_count")
        try store.writer.execute("PRAGMA max_page_count = \(pages)")
        let big = document(views: 400)
        do {
            try store.replace(id: "a", generation: g, revision: 2, document: big, delegates: [:])
            Issue.record("a write past the cap succeeded")
        } catch {
            guard case .io(let path, let detail) = error else { Issue.record("\(error)"); return }
            #expect(path == store.path && detail.contains("full") && error.isRetryable)
        }
        #expect(try store.load(id: "a") == before)
        try store.writer.execute("PRAGMA max_page_count = 1073741823")
        try store.replace(id: "a", generation: g, revision: 2, document: big, delegates: [:])
        #expect(try store.load(id: "a")?.snapshot == big)
    }

    @Test("the file removed under a running store: writes fail as I/O errors, reads keep working")
    func fileRemoved() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .everysec)
        defer { store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 3), delegates: [:])
        let before = try store.load(id: "a")
        #expect(unlink(store.path) == 0)
        do {
            try store.appendPatch(id: "a", generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
            Issue.record("a write to a removed file succeeded")
        } catch {
            guard case .io = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(store.path))
        }
        #expect(try store.load(id: "a") == before)
    }

    @Test("a read-only database file: writes fail as I/O errors, the data stays", .enabled(if: getuid() != 0, "root writes read-only files"))
    func readOnlyFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/store.db"
        let store = try SQLiteSessionStorage(path: path)
        let g = try store.create(id: "a", revision: 1, document: document(views: 3), delegates: [:])
        store.close()
        chmod(path, 0o444)
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        let ro = try SQLiteSessionStorage(path: path)
        defer { ro.close() }
        #expect(throws: StorageError.self) {
            try ro.appendPatch(id: "a", generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        }
        #expect(try ro.load(id: "a")?.revision == 1)
    }

    @Test("disk stays within 3x the live documents after many patches, deletes and compact")
    func diskBounded() throws {
        let dir = TemporaryDirectory()
        let store = try SQLiteSessionStorage(path: dir.path + "/store.db", sync: .never)
        defer { store.close() }
        var generations: [UInt64] = []
        for s in 0..<20 { generations.append(try store.create(id: "s\(s)", revision: 1, document: document(views: 60, seed: s), delegates: [:])) }
        for r in 2...301 {
            for s in 0..<20 {
                let id = "s\(s)"
                if try store.appendPatch(id: id, generation: generations[s], revision: r, patch: constantPatch(r % 60, r * s),
                                         delegates: nil).snapshotDue {
                    let now = try #require(try store.load(id: id))
                    try store.saveSnapshot(id: id, generation: generations[s], revision: r, document: try now.document(replay: mergeReplay))
                }
            }
        }
        for s in 10..<20 { try store.delete(id: "s\(s)", generation: generations[s]) }
        let report = try store.compact(replay: mergeReplay)
        let check = try store.check()
        #expect(check.isIntact && check.sessions == 10 && check.patches == 0)
        #expect(report.fileBytesAfter < report.fileBytesBefore)
        #expect(check.fileBytes <= 3 * check.snapshotBytes, "\(check.fileBytes) bytes on disk for \(check.snapshotBytes) of documents")
    }
}
