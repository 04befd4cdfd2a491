import Testing
import JSON
import Storage

/// What every backend must do the same way, run against the memory, the SQLite and (given a server) the PostgreSQL store.
@Suite("Session storage scenarios")
struct StorageScenarioTests {
    @Test("create, patch, load: the stored session replays to the patched document", arguments: Backend.available)
    func createPatchLoad(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let doc = document(views: 5)
        let g = try store.create(id: "a", revision: 1, document: doc, delegates: ["d1": true])
        #expect(g > 0)
        var expected = doc
        for r in 2...4 {
            let patch = constantPatch(r, r * 10)
            try store.appendPatch(id: "a", generation: g, revision: r, patch: patch, delegates: r == 3 ? ["d1": false, "d2": true] : nil)
            expected = try mergeReplay(expected, [StoredPatch(revision: r, bytes: patch)])
        }
        let loaded = try #require(try store.load(id: "a"))
        #expect(loaded.generation == g && loaded.revision == 4 && loaded.snapshotRevision == 1)
        #expect(loaded.snapshot == doc)
        #expect(loaded.patches == (2...4).map { StoredPatch(revision: $0, bytes: constantPatch($0, $0 * 10)) })
        #expect(loaded.delegates == ["d1": false, "d2": true])  // the last state given; nil kept it
        #expect(try loaded.document(replay: mergeReplay) == expected)
        #expect(try store.load(id: "absent") == nil)
        #expect(abs(loaded.lastUsed - wallClock()) < 60)  // stamped by the writes
        try store.touch(id: "a", generation: g, at: 1_234.5)
        #expect(try store.load(id: "a")?.lastUsed == 1_234.5)
        #expect(try store.load(id: "a")?.revision == 4)
    }

    @Test("fenced writes: wrong revision, wrong generation, existing id, absent id", arguments: Backend.available)
    func fencing(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: [:])
        try store.appendPatch(id: "a", generation: g, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        let before = try store.load(id: "a")

        func expectConflict(_ storedRevision: Int?, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("expected a conflict")
            } catch StorageError.conflict(let c) {
                #expect(c.storedRevision == storedRevision)
            } catch {
                Issue.record("expected a conflict, got \(error)")
            }
        }
        expectConflict(2) { try store.appendPatch(id: "a", generation: g, revision: 2, patch: [1], delegates: nil) }  // replayed
        expectConflict(2) { try store.appendPatch(id: "a", generation: g, revision: 4, patch: [1], delegates: nil) }  // gap
        expectConflict(2) { try store.appendPatch(id: "a", generation: g + 1, revision: 3, patch: [1], delegates: nil) }
        expectConflict(2) { try store.replace(id: "a", generation: g, revision: 2, document: [1], delegates: [:]) }
        expectConflict(2) { try store.saveSnapshot(id: "a", generation: g, revision: 1, document: [1]) }
        expectConflict(2) { _ = try store.create(id: "a", revision: 1, document: [1], delegates: [:]) }
        expectConflict(2) { try store.delete(id: "a", generation: g + 1) }
        expectConflict(2) { try store.touch(id: "a", generation: g + 1, at: 1) }
        expectConflict(nil) { try store.appendPatch(id: "b", generation: g, revision: 2, patch: [1], delegates: nil) }
        #expect(try store.load(id: "a") == before)
        let message = StorageError.conflict(Conflict(id: "a", expectedGeneration: 7, expectedRevision: 3,
                                                     storedGeneration: 7, storedRevision: 5)).description
        #expect(message.contains("'a'") && message.contains("revision 3") && message.contains("revision 5"))
    }

    @Test("delete, then create again: gone from the store, a greater generation, old writes fenced", arguments: Backend.available)
    func deleteRecreate(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let g1 = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: [:])
        try store.appendPatch(id: "a", generation: g1, revision: 2, patch: constantPatch(0, 1), delegates: nil)
        try store.delete(id: "a", generation: g1)
        #expect(try store.load(id: "a") == nil)
        #expect(try store.count() == 0)
        #expect(try store.check().patches == 0)
        let g2 = try store.create(id: "a", revision: 1, document: document(views: 3), delegates: [:])
        #expect(g2 > g1)
        #expect(throws: StorageError.self) { try store.appendPatch(id: "a", generation: g1, revision: 2, patch: [1], delegates: nil) }
        #expect(throws: StorageError.self) { try store.delete(id: "a", generation: g1) }
        let loaded = try #require(try store.load(id: "a"))
        #expect(loaded.generation == g2 && loaded.revision == 1 && loaded.patches.isEmpty && loaded.snapshot == document(views: 3))
    }

    @Test("snapshots bound the replay: due after maxPatches, or when patches outweigh the document", arguments: Backend.available)
    func snapshots(_ backend: Backend) throws {
        let fixture = try backend.make(policy: SnapshotPolicy(maxPatches: 4))
        let store = fixture.store
        defer { fixture.store.close() }
        let doc = document(views: 10)
        let g = try store.create(id: "a", revision: 1, document: doc, delegates: [:])
        var current = doc
        var due: [Bool] = []
        for r in 2...5 {
            let patch = constantPatch(r, r)
            due.append(try store.appendPatch(id: "a", generation: g, revision: r, patch: patch, delegates: nil).snapshotDue)
            current = try mergeReplay(current, [StoredPatch(revision: r, bytes: patch)])
        }
        #expect(due == [false, false, false, true])
        try store.saveSnapshot(id: "a", generation: g, revision: 5, document: current)
        let folded = try #require(try store.load(id: "a"))
        #expect(folded.patches.isEmpty && folded.snapshotRevision == 5 && folded.snapshot == current && folded.revision == 5)

        // One patch bigger than the document: due at once.
        let big = Array("{\"note\":\"\(String(repeating: "x", count: doc.count))\"}".utf8)
        #expect(try store.appendPatch(id: "a", generation: g, revision: 6, patch: big, delegates: nil).snapshotDue)
        #expect(try store.load(id: "a")?.patches.count == 1)
    }

    @Test("replace drops the patches and fences on the revision", arguments: Backend.available)
    func replace(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let g = try store.create(id: "a", revision: 1, document: document(views: 2), delegates: ["x": true])
        try store.appendPatch(id: "a", generation: g, revision: 2, patch: constantPatch(0, 5), delegates: nil)
        try store.replace(id: "a", generation: g, revision: 3, document: document(views: 4), delegates: [:])
        let loaded = try #require(try store.load(id: "a"))
        #expect(loaded.revision == 3 && loaded.snapshotRevision == 3 && loaded.patches.isEmpty)
        #expect(loaded.snapshot == document(views: 4) && loaded.delegates == [:])
        try store.appendPatch(id: "a", generation: g, revision: 4, patch: constantPatch(1, 5), delegates: nil)
        #expect(try store.check().isIntact)
    }

    @Test("count and paging list every id once, in byte order", arguments: Backend.available)
    func paging(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let ids = (0..<23).map { "s-\(($0 * 7) % 23)" } + ["Z", "a#b", "é"]
        for id in ids { _ = try store.create(id: id, revision: 1, document: Array("{}".utf8), delegates: [:]) }
        #expect(try store.count() == ids.count)
        var seen: [String] = []
        var after: String? = nil
        while true {
            let page = try store.ids(after: after, limit: 5)
            #expect(page.count <= 5)
            guard let last = page.last else { break }
            seen += page
            after = last
        }
        #expect(seen == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try store.ids(after: nil, limit: 0).isEmpty)
    }

    @Test("compact folds every session's patches; check counts what is stored", arguments: Backend.available)
    func compact(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        var expected: [String: [UInt8]] = [:]
        for s in 0..<5 {
            let id = "s\(s)"
            var doc = document(views: 4, seed: s)
            let g = try store.create(id: id, revision: 1, document: doc, delegates: [:])
            for r in 2..<(2 + s) {
                let patch = constantPatch(r % 4, r * s)
                try store.appendPatch(id: id, generation: g, revision: r, patch: patch, delegates: nil)
                doc = try mergeReplay(doc, [StoredPatch(revision: r, bytes: patch)])
            }
            expected[id] = doc
        }
        let before = try store.check()
        #expect(before.isIntact && before.sessions == 5 && before.patches == 0 + 1 + 2 + 3 + 4)
        let report = try store.compact(replay: mergeReplay)
        #expect(report.sessionsFolded == 4 && report.patchesFolded == 10 && report.failures.isEmpty)
        for (id, doc) in expected {
            let s = try #require(try store.load(id: id))
            #expect(s.patches.isEmpty && s.snapshot == doc)
        }
        let after = try store.check()
        #expect(after.isIntact && after.patches == 0 && after.snapshotBytes == expected.values.map(\.count).reduce(0, +))
    }

    @Test("writes from many threads to different sessions all land", arguments: Backend.available)
    func concurrentWriters(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        defer { fixture.store.close() }
        let generations = try (0..<8).map { try store.create(id: "t\($0)", revision: 1, document: document(views: 3), delegates: [:]) }
        concurrently(8) { t in
            for r in 2...26 {
                _ = try? store.appendPatch(id: "t\(t)", generation: generations[t], revision: r, patch: constantPatch(r % 3, r), delegates: nil)
            }
        }
        for t in 0..<8 {
            let s = try #require(try store.load(id: "t\(t)"))
            #expect(s.revision == 26 && s.patches.count == 25)
        }
    }

    @Test("a closed store answers unavailable", arguments: Backend.available)
    func closed(_ backend: Backend) throws {
        let fixture = try backend.make()
        let store = fixture.store
        _ = try store.create(id: "a", revision: 1, document: [1], delegates: [:])
        store.close()
        #expect(throws: StorageError.self) { try fixture.store.load(id: "a") }
        do {
            _ = try store.create(id: "b", revision: 1, document: [1], delegates: [:])
            Issue.record("a closed store accepted a write")
        } catch {
            guard case .unavailable = error else { Issue.record("expected unavailable, got \(error)"); return }
            #expect(error.isRetryable)
        }
    }
}
