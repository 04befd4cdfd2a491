import Foundation
import JSON
import SQLiteStorage
import Storage
import Testing

/// `layoutd store check|compact` on SQLite stores written by SQLiteStorage, and the compaction's
/// replay held to what the daemon itself answers for the same PATCHes.
@Suite("layoutd store")
struct StoreCommandTests {
    /// The document of `GET /v1/sessions/{id}` as the canonical bytes a store keeps.
    func canonical(_ c: RawHTTPConnection, _ id: String) throws -> [UInt8] {
        JSONWriter.serialize(try #require(try c.get("/v1/sessions/\(id)").json()["document"]))
    }

    @Test("compact folds patches into exactly the document the daemon answers; check counts and passes")
    func compactMatchesTheAPI() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/card", Documents.card).status == 201)
        let before = try canonical(c, "card")
        // A member edit (the daemon's fast lane) and a patch through the whole document.
        let patches = [#"{"constraints":{"card-height":{"constant":150}}}"#,
                       #"{"views":{"badge":{"parent":"card","intrinsicSize":{"width":20,"height":20}}},"constraints":{"card-top":null}}"#]
        for p in patches {
            #expect(try c.patch("/v1/sessions/card", p).status == 200)
        }
        let after = try canonical(c, "card")

        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("store.db").path
        let store = try SQLiteSessionStorage(path: path)
        let g = try store.create(id: "card", revision: 1, document: before, delegates: [:])
        for (i, p) in patches.enumerated() {
            try store.appendPatch(id: "card", generation: g, revision: 2 + i, patch: Array(p.utf8), delegates: nil)
        }
        store.close()

        let compact = try LayoutdBinary.run(["store", "compact", "--store", "sqlite:\(path)"])
        #expect(compact.status == 0, "\(compact.stdout) \(compact.stderr)")
        let report = try JSONParser.parse(compact.stdout)
        #expect(report["ok"] == .bool(true) && report["sessionsFolded"] == .number(1) && report["patchesFolded"] == .number(2))

        let reopened = try SQLiteSessionStorage(path: path)
        let stored = try #require(try reopened.load(id: "card"))
        reopened.close()
        #expect(stored.patches.isEmpty && stored.revision == 3)
        #expect(String(decoding: stored.snapshot, as: UTF8.self) == String(decoding: after, as: UTF8.self))

        let check = try LayoutdBinary.run(["store", "check", "--store", "sqlite:\(path)"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let checked = try JSONParser.parse(check.stdout)
        #expect(checked["ok"] == .bool(true) && checked["sessions"] == .number(1) && checked["patches"] == .number(0))
        #expect((checked["fileBytes"]?.numberValue ?? 0) > 0)
    }

    @Test("check exits 1 naming the file when it is not a database, and never creates a missing one (66)")
    func checkReportsDamage() throws {
        let dir = try TemporaryDirectory()
        let garbage = try dir.write("garbage.db", [UInt8](repeating: 0x5a, count: 4096))
        let bad = try LayoutdBinary.run(["store", "check", "--store", "sqlite:\(garbage)"])
        #expect(bad.status == 1)
        let answer = try JSONParser.parse(bad.stdout)
        #expect(answer["ok"] == .bool(false))
        #expect(answer["error"]?.stringValue?.contains(garbage) == true)

        let missing = dir.url.appendingPathComponent("absent.db").path
        #expect(try LayoutdBinary.run(["store", "check", "--store", "sqlite:\(missing)"]).status == 66)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(try LayoutdBinary.run(["store", "check", "--store", "postgres"]).status == 64)
    }
}
