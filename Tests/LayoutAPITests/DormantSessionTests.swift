import TestSupport
import Testing
import JSON
import LayoutModel
@testable import LayoutAPI

/// Sessions beyond the resident budget sleep as their document text and wake on their next
/// request: what they answer must not show it.
@Suite("Resident and dormant sessions")
struct DormantSessionTests {
    static func client(resident: Int, clock: TestClock = TestClock()) -> Client {
        var configuration = clock.configuration(timeout: 0)
        configuration.maxResidentSessions = resident
        return Client(configuration)
    }

    static func isResident(_ c: Client, _ id: String) -> Bool? { c.api.registry.peek(id)?.isResident }

    @Test("beyond the budget the least recently used sessions sleep; a request wakes one")
    func leastRecentlyUsedSleep() {
        let clock = TestClock()
        let c = Self.client(resident: 2, clock: clock)
        for id in ["s1", "s2", "s3"] {
            #expect(c.put(id, Docs.small).status == 201)
            clock.advance(1)
        }
        #expect(Self.isResident(c, "s1") == false)
        #expect(Self.isResident(c, "s2") == true && Self.isResident(c, "s3") == true)
        #expect(c.api.registry.residentCount == 2)
        // s2 is now the least recently used: waking s1 puts it to sleep.
        #expect(c.send("GET", "/v1/sessions/s1/frames").status == 200)
        #expect(Self.isResident(c, "s1") == true)
        #expect(Self.isResident(c, "s2") == false && Self.isResident(c, "s3") == true)
        #expect(c.api.registry.residentCount == 2)
    }

    @Test("without a budget every session stays resident")
    func unlimited() {
        let c = Self.client(resident: 0)
        for i in 0..<20 { c.put("s\(i)", Docs.small) }
        #expect((0..<20).allSatisfy { Self.isResident(c, "s\($0)") == true })
    }

    @Test("a woken session answers GET byte for byte as before it slept (every conformance case)",
          arguments: T.conformanceCases())
    func sameAnswers(_ name: String) throws {
        let c = Self.client(resident: 1)
        guard let document = try T.conformance(name)["document"] else { return }
        let put = c.put("a", T.text(document))
        guard put.status == 201 else { return }   // a case whose document is meant to be refused
        let before = ["", "coordinates=absolute"].map { c.send("GET", "/v1/sessions/a", query: $0) }
        c.put("other", Docs.small)
        #expect(Self.isResident(c, "a") == false, "\(name): still resident")
        let after = ["", "coordinates=absolute"].map { c.send("GET", "/v1/sessions/a", query: $0) }
        for (b, a) in zip(before, after) {
            #expect(a.status == 200 && a.body == b.body, "\(name): \(a.text.prefix(300))")
            #expect(a.header("ETag") == b.header("ETag"))
        }
        #expect(Self.isResident(c, "a") == true)
    }

    @Test("edits on sessions that keep falling asleep answer what resident sessions answer")
    func editsAgree() throws {
        var rng = SeededGenerator(seed: 11)
        let resident = Self.client(resident: 0), sleepy = Self.client(resident: 1)
        let ids = ["x", "y", "z"]
        for c in [resident, sleepy] {
            for id in ids { #expect(c.put(id, Docs.stack).status == 201) }
        }
        let general = [
            #"{"constraints": {"extra": "a.width == 70"}}"#, #"{"constraints": {"extra": null}}"#,
            #"{"views": {"c": {"parent": "root", "frame": {"x": 1, "y": 2, "width": 3, "height": 4}}}}"#,
            #"{"views": {"c": null}}"#, #"{"flags": {"compact": true}}"#,
        ]
        for step in 0..<150 {
            let id = ids[step % ids.count]
            let patch: String
            if Int.random(in: 0..<5, using: &rng) == 0 {
                patch = general.randomElement(using: &rng)!
            } else {
                let (member, change): (String, String)
                let isView = Bool.random(using: &rng)
                if isView {
                    (member, change) = MemberPatchSequenceTests.viewChanges.randomElement(using: &rng)!
                } else {
                    (member, change) = MemberPatchSequenceTests.entryChanges.randomElement(using: &rng)!
                }
                let filled = change
                    .replacingOccurrences(of: "W", with: String(Int.random(in: 0...500, using: &rng)))
                    .replacingOccurrences(of: "C", with: String(Int.random(in: -40...40, using: &rng)))
                    .replacingOccurrences(of: "B", with: Bool.random(using: &rng) ? "true" : "false")
                patch = "{\"\(isView ? "views" : "constraints")\": {\"\(member)\": \(filled)}}"
            }
            // One resident session at most: the one edited in the step before.
            #expect(Self.isResident(sleepy, id) == false, "step \(step): \(id) should be asleep")
            let a = resident.patch("/v1/sessions/\(id)", patch), b = sleepy.patch("/v1/sessions/\(id)", patch)
            #expect(a.status == b.status, "step \(step): \(patch)")
            let ja = T.json(a), jb = T.json(b)
            for key in ["revision", "frames", "diagnostics", "errors"] {
                #expect(ja[key] == jb[key], "step \(step) \(key): \(patch)")
            }
            for key in ["added", "removed", "constantsChanged", "editsSuggested"] {
                #expect(ja["stats"]?[key] == jb["stats"]?[key], "step \(step) stats.\(key): \(patch)")
            }
            #expect(resident.send("GET", "/v1/sessions/\(id)").body == sleepy.send("GET", "/v1/sessions/\(id)").body,
                    "step \(step): \(patch)")
        }
    }

    @Test("a delegate constraint without a delegate entry keeps its last state across sleep")
    func delegateMemory() {
        let c = Self.client(resident: 1)
        c.put("a", Docs.stack)
        #expect(c.patch("/v1/sessions/a", #"{"delegate": {"b-wide": true}}"#).status == 200)
        #expect(c.patch("/v1/sessions/a", #"{"delegate": {"b-wide": null}}"#).status == 200)
        let before = c.send("GET", "/v1/sessions/a")
        #expect(T.frames(T.json(before)["frames"])["b"]?[2] == 200, "b-wide stays active in the session")
        // A fresh solve of the same document starts b-wide inactive: the session differs from it.
        let fresh = T.json(c.send("POST", "/v1/solve", body: T.text(T.json(before)["document"]!)))
        #expect(T.frames(fresh["frames"])["b"]?[2] == 60)
        c.put("other", Docs.small)
        #expect(Self.isResident(c, "a") == false)
        #expect(c.send("GET", "/v1/sessions/a").body == before.body)
        // And it is remembered by the woken solver, not only in the kept frames.
        let r = T.json(c.patch("/v1/sessions/a", #"{"constraints": {"b-top": {"constant": 9}}}"#))
        #expect(T.frames(r["frames"])["b"]?[2] == 200)
        #expect(r["diagnostics"]?["inactive"]?.arrayValue?.contains(.string("b-wide")) == false)
    }

    @Test("DELETE, If-Match and expiry of a dormant session do not wake it")
    func lifecycleWithoutWaking() {
        let clock = TestClock()
        var configuration = clock.configuration(timeout: 60)
        configuration.maxResidentSessions = 1
        let c = Client(configuration)
        c.put("a", Docs.small)
        c.patch("/v1/sessions/a", #"{"views": {"root": {"frame": {"width": 90}}}}"#)
        c.put("b", Docs.small)
        let a = c.api.registry.peek("a")!
        #expect(!a.isResident)
        T.expectProblem(c.send("DELETE", "/v1/sessions/a", headers: [("If-Match", "\"1\"")]), 412)
        T.expectProblem(c.send("PUT", "/v1/sessions/a", headers: [("If-None-Match", "*")], body: Docs.small), 412)
        #expect(!a.isResident)
        #expect(c.send("DELETE", "/v1/sessions/a", headers: [("If-Match", "\"2\"")]).status == 204)
        #expect(!a.isResident && a.liveRevision == nil)
        T.expectProblem(c.send("GET", "/v1/sessions/a"), 404)

        c.put("c", Docs.small)   // b sleeps
        let b = c.api.registry.peek("b")!
        #expect(!b.isResident)
        clock.advance(61)
        #expect(c.api.sweep() == 2)
        #expect(!b.isResident && b.liveRevision == nil)
    }

    @Test("PUT of another document replaces a dormant session without waking it; the same document wakes it")
    func putWithoutWaking() {
        let c = Self.client(resident: 1)
        c.put("a", Docs.small)
        c.put("b", Docs.small)   // a sleeps
        let a = c.api.registry.peek("a")!
        #expect(!a.isResident && a.wakes == 0)
        // Another document: answered from the new document's solve, the old one never solved again.
        let replaced = c.put("a", Docs.stack)
        #expect(replaced.status == 200)
        #expect(a.wakes == 0 && a.isResident)
        let r = T.json(replaced)
        #expect(r["revision"]?.numberValue == 2)
        let fresh = T.json(c.put("fresh", Docs.stack))
        #expect(T.frames(r["frames"]) == T.frames(fresh["frames"]))
        #expect(r["diagnostics"] == fresh["diagnostics"])
        // The same document again, asleep: it wakes to answer its state, and nothing changes.
        c.put("b", Docs.small)
        _ = c.send("GET", "/v1/sessions/b")   // a sleeps (fresh and b are used after it)
        #expect(!a.isResident)
        let same = T.json(c.put("a", Docs.stack))
        #expect(same["revision"]?.numberValue == 2)
        #expect(a.wakes == 1)
        #expect(T.frames(same["frames"]) == T.frames(fresh["frames"]))
    }
}
