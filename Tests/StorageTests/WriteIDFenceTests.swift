import Testing
import JSON
import Storage
@testable import SQLiteStorage

/// The write id in the fence (issue 27): a revision number can repeat with other content when a
/// store loses an acknowledged write, so every backend also fences on the content chain, and
/// expires one session only on its own record of the last use.
@Suite("Session storage: write ids fence revisions a store lost; expiry of one session asks the store")
struct WriteIDFenceTests {
    @Test("every write answers the chain's next id, the same in every backend; load reports it, snapshots keep it",
          arguments: Backend.available)
    func chainIsTheSameEverywhere(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { store.close() }
        let doc = document(views: 3)
        let g = try store.create(id: "a", revision: 1, document: doc, delegates: [:])
        var expected = WriteChain.created(doc)
        #expect(try store.load(id: "a")?.writeID == expected)
        for r in 2...4 {
            let patch = constantPatch(r, r)
            try store.appendPatch(id: "a", generation: g, revision: r, patch: patch, delegates: nil, base: expected)
            expected = WriteChain.patched(after: expected, patch)
            #expect(try store.load(id: "a")?.writeID == expected)
        }
        let folded = try #require(try store.load(id: "a")).document(replay: mergeReplay)
        try store.saveSnapshot(id: "a", generation: g, revision: 4, document: folded, base: expected)
        let loaded = try #require(try store.load(id: "a"))
        #expect(loaded.patches.isEmpty && loaded.writeID == expected)
        let replacement = document(views: 4)
        try store.replace(id: "a", generation: g, revision: 5, document: replacement, delegates: [:], base: expected)
        #expect(try store.load(id: "a")?.writeID == WriteChain.replaced(after: expected, replacement))
    }

    @Test("a write built on a revision of the right number but other content is fenced off and changes nothing",
          arguments: Backend.available)
    func sameRevisionOtherContentIsFenced(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: [:])
        let w1 = WriteChain.created(document(views: 2))
        // The store holds revision 2 made by one change; a node holds a revision 2 made by another
        // (the one the store lost).
        try store.appendPatch(id: "a", generation: g, revision: 2, patch: constantPatch(0, 7), delegates: nil, base: w1)
        let lost = WriteChain.patched(after: w1, constantPatch(0, 9))
        let before = try store.load(id: "a")
        func expectFenced(_ what: String, _ body: () throws(StorageError) -> Void) {
            do throws(StorageError) {
                try body()
                Issue.record("\(what) built on a lost revision was accepted")
            } catch {
                guard case .conflict(let c) = error else { Issue.record("\(what): \(error)"); return }
                #expect(c.storedRevision == 2 && c.storedWriteID == before?.writeID && c.expectedWriteID == lost)
            }
        }
        expectFenced("append") { () throws(StorageError) in
            try store.appendPatch(id: "a", generation: g, revision: 3, patch: constantPatch(1, 1), delegates: nil, base: lost)
        }
        expectFenced("replace") { () throws(StorageError) in
            try store.replace(id: "a", generation: g, revision: 3, document: [1], delegates: [:], base: lost)
        }
        expectFenced("snapshot") { () throws(StorageError) in
            try store.saveSnapshot(id: "a", generation: g, revision: 2, document: [1], base: lost)
        }
        #expect(try store.load(id: "a") == before)
    }

    @Test("expire(id:generation:before:) deletes only a session last used before the time, of that generation",
          arguments: Backend.available)
    func conditionalExpiry(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: [:])
        let used = wallClock() + 1_000  // later than the create's own stamp
        try store.touch(id: "a", generation: g, at: used)
        #expect(try store.expire(id: "a", generation: g, before: used - 1) == false)    // used since
        #expect(try store.expire(id: "a", generation: g + 1, before: used + 1) == false)  // another generation
        #expect(try store.load(id: "a") != nil)
        #expect(try store.expire(id: "a", generation: g, before: used + 1) == true)
        #expect(try store.load(id: "a") == nil)
        #expect(try store.expire(id: "a", generation: g, before: used + 1) == false)  // already gone
    }
}

/// A store file of schema version 1 (before write ids) opens, migrated: its sessions load with
/// write id 0 and the chain goes on from there.
@Suite("SQLite session store: schema 1 files are migrated")
struct SQLiteSchemaMigrationTests {
    @Test("a version-1 file opens as version 2; its sessions keep their content and chain on from write id 0")
    func versionOneMigrates() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/v1.db"
        do {
            let c = try SQLiteConnection(path: path)
            try c.execute("""
                CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE sessions (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, generation INTEGER NOT NULL,
                    revision INTEGER NOT NULL, snapshot_revision INTEGER NOT NULL, snapshot_bytes INTEGER NOT NULL,
                    patch_count INTEGER NOT NULL, patch_bytes INTEGER NOT NULL, delegates BLOB NOT NULL, last_used REAL NOT NULL);
                CREATE TABLE snapshots (key INTEGER PRIMARY KEY, document BLOB NOT NULL);
                CREATE TABLE patches (key INTEGER NOT NULL, revision INTEGER NOT NULL, patch BLOB NOT NULL,
                    PRIMARY KEY (key, revision)) WITHOUT ROWID;
                INSERT INTO meta VALUES ('last_generation', 41);
                INSERT INTO sessions VALUES (1, 'old', 41, 2, 1, 2, 1, 1, '{}', 1000.0);
                INSERT INTO snapshots VALUES (1, x'7b7d');
                INSERT INTO patches VALUES (1, 2, x'7b7d');
                PRAGMA user_version = 1;
                """)
        }
        let store = try SQLiteSessionStorage(path: path, sync: .never)
        defer { store.close() }
        let old = try #require(try store.load(id: "old"))
        #expect(old.revision == 2 && old.writeID == 0 && old.patches.count == 1)
        try store.appendPatch(id: "old", generation: 41, revision: 3, patch: Array("{}".utf8), delegates: nil, base: 0)
        #expect(try store.load(id: "old")?.writeID == WriteChain.patched(after: 0, Array("{}".utf8)))
        #expect(try store.check().isIntact)
    }
}
