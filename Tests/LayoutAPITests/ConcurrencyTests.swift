import Dispatch
import Foundation
import Testing
import JSON
import LayoutAPI

@Suite("Concurrent requests")
struct ConcurrencyTests {
    @Test("many sessions patched from several threads: no crash, no lost update (all resident, or 2 of 8)",
          arguments: [0, 2])
    func manySessions(resident: Int) {
        let c = Client(APIConfiguration(maxResidentSessions: resident))
        let sessions = 8, perSession = 12
        for s in 0..<sessions { c.put("s\(s)", Docs.stack) }
        DispatchQueue.concurrentPerform(iterations: sessions * perSession) { i in
            let s = i % sessions
            let r = c.patch("/v1/sessions/s\(s)", #"{"flags": {"f\#(i)": true}, "constraints": {"h-height": {"constant": \#(40 + i % 7)}}}"#)
            #expect(r.status == 200)
            _ = c.send("GET", "/v1/sessions/s\((s + 1) % sessions)/frames")
            _ = c.send("POST", "/v1/solve", body: Docs.small)
        }
        for s in 0..<sessions {
            let body = T.json(c.send("GET", "/v1/sessions/s\(s)"))
            let flags = body["document"]?["flags"]?.objectValue?.keys ?? []
            let want = stride(from: s, to: sessions * perSession, by: sessions).map { "f\($0)" }
            #expect(Set(flags) == Set(want), "session s\(s)")
            // Every patch changed the document (a new flag), so each added one revision.
            #expect(body["revision"]?.numberValue == Double(1 + perSession))
            T.expectSameAsFresh(c, "s\(s)", "after concurrent patches")
        }
    }

    @Test("compare-and-swap with If-Match from several threads never loses an increment")
    func ifMatchCounter() {
        let c = Client()
        c.put("counter", #"{"views": {"r": {"frame": {"width": 0, "height": 10}}}}"#)
        let workers = 6, increments = 8
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var done = 0
            while done < increments {
                let got = c.send("GET", "/v1/sessions/counter")
                let width = T.json(got)["document"]?["views"]?["r"]?["frame"]?["width"]?.numberValue ?? -1
                let r = c.patch("/v1/sessions/counter", #"{"views": {"r": {"frame": {"width": \#(Int(width) + 1)}}}}"#,
                                headers: [("If-Match", got.header("ETag") ?? "")])
                if r.status == 200 { done += 1 } else { #expect(r.status == 412) }
            }
        }
        let final = T.json(c.send("GET", "/v1/sessions/counter"))
        #expect(final["document"]?["views"]?["r"]?["frame"]?["width"]?.numberValue == Double(workers * increments))
        #expect(final["revision"]?.numberValue == Double(1 + workers * increments))
        #expect(T.frames(final["frames"])["r"] == [0, 0, Double(workers * increments), 10])
    }

    @Test("creates, replaces, deletes and reads racing on the same ids never crash or answer 5xx")
    func churn() {
        let c = Client(APIConfiguration(maxSessions: 6, maxResidentSessions: 2))
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            let id = "k\(i % 5)"
            let r: APIResponse
            switch i % 6 {
            case 0: r = c.put(id, Docs.small)
            case 1: r = c.send("DELETE", "/v1/sessions/\(id)")
            case 2: r = c.patch("/v1/sessions/\(id)", #"{"views": {"root": {"frame": {"width": \#(50 + i)}}}}"#)
            case 3: r = c.send("GET", "/v1/sessions/\(id)")
            case 4: r = c.send("POST", "/v1/sessions", body: Docs.small)
            default: r = c.put(id, Docs.stack)
            }
            #expect(r.status < 500, "\(r.status) \(r.text)")
            #expect([200, 201, 204, 404, 429].contains(r.status), "\(r.status) \(r.text)")
        }
        #expect(c.api.sessionCount <= 6)
    }
}
