import Foundation
import JSON
import LayoutModel
import Storage
import Testing
import TestSupport
@testable import LayoutAPI

/// A memory store whose reads can be made to fail, as an unreachable database would.
final class UnreadableStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var failing = false

    init() { super.init(MemorySessionStorage()) }

    func fail(_ on: Bool) { lock.withLock { failing = on } }

    override func load(id: String) throws(StorageError) -> StoredSession? {
        if lock.withLock({ failing }) { throw .unavailable("connection refused") }
        return try super.load(id: id)
    }
}

/// Issue 27 item 5: sessions padded with text cost memory and disk without bound. A dormant
/// session keeps no text when a store holds it, a byte budget puts sessions to sleep by size,
/// `$schema` is bounded, and a PATCH cannot grow a document past what a PUT may send.
@Suite("Memory and disk budgets")
struct MemoryBudgetTests {
    static func client(storage: (any SessionStorage)? = MemorySessionStorage(), resident: Int = 0, bytes: Int = 0,
                       maxBody: Int = 1_048_576) -> Client {
        var configuration = APIConfiguration(maxBodyBytes: maxBody, maxResidentSessions: resident)
        configuration.maxResidentBytes = bytes
        return Client(api: LayoutAPI(configuration: configuration, storage: storage))
    }

    /// `Docs.small` with a constraint label of `padding` characters: text that costs its length
    /// in memory and in the store but nothing to solve.
    static func padded(_ padding: Int) -> String {
        #"{"views": {"root": {"frame": {"width": 100, "height": 50}}, "a": {"parent": "root"}},"#
            + #" "constraints": {"c1": {"first": "a.edges", "second": "root.edges", "constant": 5, "identifier": ""#
            + String(repeating: "x", count: padding) + #""}}}"#
    }

    static func session(_ c: Client, _ id: String) -> Session { c.api.registry.peek(id)! }

    @Test("with a store a dormant session holds no document text, and its wake answers the same document, frames and ETag")
    func dormantWithoutText() throws {
        let c = Self.client(resident: 1)
        #expect(c.put("a", Docs.stack).status == 201)
        #expect(c.patch("/v1/sessions/a", #"{"delegate": {"b-wide": true}}"#).status == 200)
        #expect(c.patch("/v1/sessions/a", #"{"delegate": {"b-wide": null}}"#).status == 200)
        let before = ["", "coordinates=absolute"].map { c.send("GET", "/v1/sessions/a", query: $0) }
        #expect(Self.session(c, "a").heldTextBytes > 0)
        #expect(c.put("b", Docs.small).status == 201)   // a sleeps
        let a = Self.session(c, "a")
        #expect(!a.isResident)
        #expect(a.heldTextBytes == 0, "a dormant session kept \(a.heldTextBytes) bytes of text")
        let after = ["", "coordinates=absolute"].map { c.send("GET", "/v1/sessions/a", query: $0) }
        for (b, w) in zip(before, after) {
            #expect(w.status == 200 && w.body == b.body, "\(w.text.prefix(300))")
            #expect(w.header("ETag") == b.header("ETag"))
        }
        #expect(a.isResident && a.wakes == 1)
        // The delegate memory came back too (b-wide stays on without its entry): the next PATCH
        // answers what a session that never slept answers.
        let twin = Self.client(resident: 0)
        twin.put("a", Docs.stack)
        twin.patch("/v1/sessions/a", #"{"delegate": {"b-wide": true}}"#)
        twin.patch("/v1/sessions/a", #"{"delegate": {"b-wide": null}}"#)
        c.put("b", Docs.stack)   // a sleeps again
        #expect(Self.session(c, "a").heldTextBytes == 0)
        let edit = #"{"constraints": {"b-top": {"constant": 9}}}"#
        let slept = c.patch("/v1/sessions/a", edit), awake = twin.patch("/v1/sessions/a", edit)
        #expect(slept.status == 200 && awake.status == 200)
        #expect(T.json(slept)["frames"] == T.json(awake)["frames"])
        #expect(slept.header("ETag")?.hasPrefix("\"4-") == true)
        let mine = T.json(c.send("GET", "/v1/sessions/a")), theirs = T.json(twin.send("GET", "/v1/sessions/a"))
        #expect(mine["document"] == theirs["document"] && mine["frames"] == theirs["frames"])
    }

    @Test("a session read from the store by a request that does not wake it gives its text back when the budget asks")
    func loadedButNotWokenDropsText() {
        let storage = MemorySessionStorage()
        #expect(Self.client(storage: storage).put("a", Self.padded(30_000)).status == 201)
        // After a restart: a PATCH refused before the session's state is touched (415) reads it
        // from the store, asleep with its text, and never wakes it.
        let c = Self.client(storage: storage, resident: 1)
        T.expectProblem(c.send("PATCH", "/v1/sessions/a", headers: [("Content-Type", "text/plain")], body: "{}"), 415)
        let a = Self.session(c, "a")
        #expect(!a.isResident && a.heldTextBytes > 30_000)
        #expect(c.put("b", Docs.small).status == 201)   // over the count: a is chosen
        #expect(!a.isResident && a.heldTextBytes == 0 && a.wakes == 0)
        #expect(T.json(c.send("GET", "/v1/sessions/a"))["revision"]?.numberValue == 1)
    }

    @Test("without a store a dormant session keeps its text (the only copy), counted in the bytes held")
    func memoryModeKeepsText() {
        let c = Self.client(storage: nil, resident: 1)
        c.put("a", Self.padded(10_000))
        c.put("b", Docs.small)
        let a = Self.session(c, "a")
        #expect(!a.isResident)
        #expect(a.heldTextBytes > 10_000)
        #expect(c.api.registry.memory.bytes >= a.heldTextBytes + Self.session(c, "b").heldTextBytes)
        #expect(c.send("GET", "/v1/sessions/a").status == 200)
    }

    @Test("a wake the store cannot serve answers 503 and leaves the session asleep; the next request wakes it")
    func unreadableStoreAtWake() {
        let storage = UnreadableStorage()
        let c = Self.client(storage: storage, resident: 1)
        c.put("a", Docs.stack)
        let before = c.send("GET", "/v1/sessions/a")
        c.put("b", Docs.small)
        storage.fail(true)
        T.expectProblem(c.send("GET", "/v1/sessions/a"), 503, type: "store-unavailable")
        T.expectProblem(c.patch("/v1/sessions/a", #"{"constraints": {"b-top": {"constant": 9}}}"#), 503)
        T.expectProblem(c.put("a", Docs.stack), 503)
        #expect(!Self.session(c, "a").isResident)
        storage.fail(false)
        let after = c.send("GET", "/v1/sessions/a")
        #expect(after.status == 200 && after.body == before.body && after.header("ETag") == before.header("ETag"))
    }

    @Test("the byte budget puts the least recently used sessions to sleep, and keeps the total near the budget")
    func byteBudgetEvictsLeastRecentlyUsed() {
        // Each session about 100 KB of text: a budget of 350 KB holds three.
        let c = Self.client(bytes: 350_000)
        for i in 0..<6 {
            #expect(c.put("s\(i)", Self.padded(100_000)).status == 201)
            // Counted after the hand-out: at most one session over the budget at any time.
            #expect(c.api.registry.memory.bytes <= 350_000 + 110_000, "after s\(i): \(c.api.registry.memory.bytes)")
        }
        let resident = (0..<6).filter { Self.session(c, "s\($0)").isResident }
        #expect(resident.count >= 2 && resident.count <= 4, "resident: \(resident)")
        #expect(resident.contains(5) && !resident.contains(0) && !resident.contains(1))
        // Using s0 again makes it the most recent: the oldest resident goes instead.
        let oldest = resident.min()!
        #expect(c.send("GET", "/v1/sessions/s0").status == 200)
        #expect(Self.session(c, "s0").isResident)
        #expect(!Self.session(c, "s\(oldest)").isResident)
        // Small sessions (about 10 KB each, estimated) fit many to the budget: sizes decide, not counts.
        let small = Self.client(bytes: 350_000)
        for i in 0..<25 { small.put("t\(i)", Docs.small) }
        #expect((0..<25).allSatisfy { Self.session(small, "t\($0)").isResident })
    }

    @Test("the bytes held follow wakes, sleeps, edits and deletes, and /metrics shows them")
    func bytesHeldFollowSessions() {
        let c = Self.client(resident: 1)
        #expect(c.api.registry.memory.bytes == 0)
        c.put("a", Self.padded(50_000))
        let resident = c.api.registry.memory.bytes
        #expect(resident > 50_000)
        c.put("b", Docs.small)   // a sleeps without its text
        let withB = c.api.registry.memory.bytes
        #expect(withB < resident - 40_000, "\(withB) after a slept, \(resident) before")
        #expect(c.patch("/v1/sessions/b", #"{"constraints": {"c1": {"identifier": "\#(String(repeating: "y", count: 20_000))"}}}"#).status == 200)
        #expect(c.api.registry.memory.bytes >= withB + 20_000)
        #expect(c.send("DELETE", "/v1/sessions/b").status == 204)
        #expect(c.send("DELETE", "/v1/sessions/a").status == 204)
        #expect(c.api.registry.memory.bytes == 0)
        let metrics = c.send("GET", "/metrics").text
        #expect(metrics.contains("# TYPE layoutd_resident_bytes gauge"))
        #expect(metrics.contains("layoutd_resident_bytes 0\n"))
    }

    @Test("$schema longer than 2,048 characters is a 422 too_long at /$schema, on PUT and on PATCH; 2,048 is kept")
    func schemaBounded() {
        let c = Self.client()
        let longest = String(repeating: "s", count: DocumentParser.maxSchemaLength)
        let document = #"{"$schema": "\#(longest)", "views": {"root": {"frame": {"width": 10, "height": 10}}}}"#
        #expect(c.put("a", document).status == 201)
        #expect(T.json(c.send("GET", "/v1/sessions/a"))["document"]?["$schema"]?.stringValue == longest)
        let tooLong = #"{"$schema": "\#(longest)é", "views": {"root": {"frame": {"width": 10, "height": 10}}}}"#
        for r in [c.put("b", tooLong), c.patch("/v1/sessions/a", #"{"$schema": "\#(longest)é"}"#)] {
            T.expectProblem(r, 422)
            let error = T.json(r)["errors"]?.arrayValue?.first
            #expect(error?["pointer"]?.stringValue == "/$schema")
            #expect(error?["code"]?.stringValue == "too_long")
            #expect(error?["detail"]?.stringValue?.contains("2049 characters") == true)
        }
        #expect(c.send("GET", "/v1/sessions/b").status == 404)
        #expect(T.json(c.send("GET", "/v1/sessions/a"))["revision"]?.numberValue == 1)
    }

    @Test("a PATCH that would grow the document past maxBodyBytes is a 413 naming the limit and changes nothing")
    func patchCappedByBodyLimit() throws {
        let storage = MemorySessionStorage()
        let c = Self.client(storage: storage, maxBody: 20_000)
        #expect(c.put("a", Self.padded(15_000)).status == 201)
        let before = c.send("GET", "/v1/sessions/a")
        // Each body is small; the document they would make is not. A member patch (one entry) and
        // a general one (a new entry) both count.
        let grown = [#"{"constraints": {"c1": {"group": "\#(String(repeating: "z", count: 6_000))"}}}"#,
                     #"{"constraints": {"c2": {"first": "a.width", "constant": 1, "group": "\#(String(repeating: "g", count: 6_000))"}}}"#]
        for patch in grown {
            let r = c.patch("/v1/sessions/a", patch)
            T.expectProblem(r, 413, type: "body-too-large")
            #expect(T.json(r)["detail"]?.stringValue?.contains("maxBodyBytes (20000)") == true)
            let now = c.send("GET", "/v1/sessions/a")
            #expect(now.body == before.body && now.header("ETag") == before.header("ETag"))
        }
        #expect(try storage.load(id: "a")?.revision == 1)
        // A patch that does not grow it, or shrinks it, goes through; then the same growth fits.
        #expect(c.patch("/v1/sessions/a", #"{"constraints": {"c1": {"constant": 6}}}"#).status == 200)
        #expect(c.patch("/v1/sessions/a", #"{"constraints": {"c1": {"identifier": "short"}}}"#).status == 200)
        for patch in grown { #expect(c.patch("/v1/sessions/a", patch).status == 200) }
        #expect(try storage.load(id: "a")?.revision == 5)
    }

    @Test("byteCount follows the text through member replacements and folds")
    func byteCountFollowsText() throws {
        let json = try JSONParser.parse(Array(Docs.stack.utf8))
        var canonical = CanonicalDocument(DocumentParser.canonicalize(json))
        #expect(canonical.byteCount == canonical.bytes.count)
        for i in 0..<30 {
            let position = i % canonical.count(.constraints)
            let text = Array(#"{"first":"a.width","constant":\#(i * 1000)}"#.utf8)
            let predicted = canonical.byteCount(replacing: [(group: .constraints, position: position, text: text)])
            canonical.replace(.constraints, at: position, text: text)
            #expect(canonical.byteCount == predicted && canonical.byteCount == canonical.bytes.count, "step \(i)")
        }
        canonical.fold()
        #expect(canonical.byteCount == canonical.bytes.count)
    }
}
