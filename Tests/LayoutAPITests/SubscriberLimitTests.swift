import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI

@Suite("Event streams: limits per session and overall, events encoded once")
struct SubscriberLimitTests {
    @Test("beyond maxSubscribersPerSession: 429, beyond maxSubscribers: 503, both with Retry-After; a closed stream frees its slot")
    func limits() {
        let c = Client(APIConfiguration(maxSubscribersPerSession: 2, maxSubscribers: 3))
        c.put("a", Docs.small)
        c.put("b", Docs.small)
        let a1 = c.subscribe("a"), _ = c.subscribe("a")
        let perSession = c.send("GET", "/v1/sessions/a/events")
        T.expectProblem(perSession, 429, type: "too-many-subscribers")
        #expect(perSession.header("Retry-After") == "10")
        #expect(perSession.stream == nil)
        _ = c.subscribe("b")
        #expect(c.api.subscriberCount == 3)
        let overall = c.send("GET", "/v1/sessions/b/events")
        T.expectProblem(overall, 503, type: "too-many-subscribers")
        #expect(overall.header("Retry-After") == "10")
        // HEAD opens no stream and is not limited.
        #expect(c.send("HEAD", "/v1/sessions/b/events").status == 200)
        a1.close()
        #expect(c.api.subscriberCount == 2)
        _ = c.subscribe("a")
        #expect(c.api.subscriberCount(session: "a") == 2)
    }

    @Test("deleting a session frees its subscribers' slots")
    func deleteFrees() {
        let c = Client(APIConfiguration(maxSubscribers: 2))
        c.put("a", Docs.small)
        _ = c.subscribe("a"); _ = c.subscribe("a")
        #expect(c.send("DELETE", "/v1/sessions/a").status == 204)
        #expect(c.api.subscriberCount == 0)
    }

    @Test("a revision is encoded once: subscribers of one kind get the same bytes, on the wire as SSE")
    func sharedBytes() throws {
        let c = Client()
        c.put("s", Docs.small)
        let sinks = (0..<3).map { _ in c.subscribe("s") }
        let absolute = c.subscribe("s", query: "coordinates=absolute")
        #expect(c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 300}}}}"#).status == 200)
        let events = try sinks.map { try #require($0.sent.last) }
        #expect(events.allSatisfy { $0 === events[0] })
        let other = try #require(absolute.sent.last)
        #expect(other !== events[0])
        let text = String(decoding: events[0].bytes, as: UTF8.self)
        #expect(text == "event: revision\nid: 2\ndata: \(events[0].data)\n\n")
        #expect(!events[0].data.contains("\n"))
    }

    @Test("SSE encoding: one data line per line, CR LF as LF, no line breaks in event or id")
    func encoding() {
        let e = SSEEvent(data: "a\r\nb\nc", event: "x\ny", id: "1\r")
        #expect(String(decoding: e.bytes, as: UTF8.self) == "event: x y\nid: 1 \ndata: a\ndata: b\ndata: c\n\n")
        #expect(String(decoding: SSEEvent(data: "").bytes, as: UTF8.self) == "data: \n\n")
    }
}
