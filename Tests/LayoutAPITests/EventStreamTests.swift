import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI

/// An in-memory event stream: records what the API sends, runs jobs at once (or on a serial
/// queue, like a worker loop), and can be closed by "the client".
final class FakeSink: SSESink, @unchecked Sendable {
    struct Event: Equatable {
        var event: String?
        var id: String?
        var data: String
    }

    private let lock = NSLock()
    private var recorded: [Event] = []
    private var sentEvents: [SSEEvent] = []
    private var closed = false
    private var finishedByServer = false
    private var handlers: [@Sendable () -> Void] = []
    private let queue: DispatchQueue?

    /// `queue`: run jobs there asynchronously (in order) instead of at once.
    init(queue: DispatchQueue? = nil) { self.queue = queue }

    var events: [Event] { lock.withLock { recorded } }
    /// The events as the API handed them over (shared objects, their wire bytes).
    var sent: [SSEEvent] { lock.withLock { sentEvents } }
    var isClosed: Bool { lock.withLock { closed } }
    var finished: Bool { lock.withLock { finishedByServer } }

    func send(_ event: SSEEvent) {
        lock.withLock {
            if !closed {
                recorded.append(Event(event: event.event, id: event.id, data: event.data))
                sentEvents.append(event)
            }
        }
    }

    func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        if let queue { queue.async(execute: job) } else { job() }
        return true
    }

    func finish() {
        lock.withLock { finishedByServer = true }
        close()
    }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if closed { return true }
            handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// The client leaves (or the server finished): the close handlers run once.
    func close() {
        let run = lock.withLock { () -> [@Sendable () -> Void] in
            guard !closed else { return [] }
            closed = true
            defer { handlers = [] }
            return handlers
        }
        for h in run { h() }
    }

    /// Data of the events called `name`, parsed.
    func data(_ name: String) -> [JSONValue] {
        events.filter { $0.event == name }.compactMap { try? JSONParser.parse($0.data) }
    }
}

extension Client {
    /// `GET /v1/sessions/{id}/events` opened on a new fake sink.
    func subscribe(_ id: String, query: String = "", sink: FakeSink = FakeSink(),
                   sourceLocation: SourceLocation = #_sourceLocation) -> FakeSink {
        let r = send("GET", "/v1/sessions/\(id)/events", query: query)
        #expect(r.status == 200, "\(r.text)", sourceLocation: sourceLocation)
        #expect(r.stream != nil, sourceLocation: sourceLocation)
        r.stream?.open(sink)
        return sink
    }
}

@Suite("Live sessions: GET /v1/sessions/{id}/events (Server-Sent Events)")
struct EventStreamTests {
    static let resize = #"{"views": {"root": {"frame": {"width": 300}}}}"#

    @Test("the answer is 200 text/event-stream with a stream; the first event is every frame at the current revision")
    func snapshot() throws {
        let c = Client()
        c.put("s", Docs.stack)
        let r = c.send("GET", "/v1/sessions/s/events")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "text/event-stream")
        #expect(r.header("Cache-Control") == "no-cache")
        #expect(r.body.isEmpty)
        let stream = try #require(r.stream)
        let sink = FakeSink()
        stream.open(sink)
        #expect(sink.events.count == 1)
        let first = try #require(sink.events.first)
        #expect(first.event == "revision" && first.id == "1")
        let data = try JSONParser.parse(first.data)
        #expect(data.objectValue?.keys == ["revision", "all", "frames", "removed", "diagnostics"])
        #expect(data["all"] == .bool(true))
        let frames = T.json(c.send("GET", "/v1/sessions/s/frames"))
        #expect(T.frames(data["frames"]) == T.frames(frames["frames"]))
        #expect(data["diagnostics"] == frames["diagnostics"])
        #expect(!first.data.contains("\n"))
        #expect(c.api.subscriberCount(session: "s") == 1)
    }

    @Test("each new revision sends the frames that changed, as the PATCH answered them")
    func patchEvent() throws {
        let c = Client()
        c.put("s", Docs.stack)
        let sink = c.subscribe("s")
        let patched = T.json(c.patch("/v1/sessions/s", Self.resize))
        #expect(sink.events.count == 2)
        let event = try #require(sink.events.last)
        #expect(event.event == "revision" && event.id == "2")
        let data = try JSONParser.parse(event.data)
        #expect(data["revision"]?.numberValue == 2)
        #expect(data["all"] == .bool(false))
        #expect(T.frames(data["frames"]) == T.frames(patched["frames"]))
        #expect(T.frames(data["frames"]).keys.sorted() == ["header", "root"])
        #expect(ConformanceJudge.strings(data["removed"]) == [])
        #expect(data["diagnostics"] == patched["diagnostics"])
        // A patch that changes nothing sends nothing.
        c.patch("/v1/sessions/s", Self.resize)
        c.patch("/v1/sessions/s", "{}")
        #expect(sink.events.count == 2)
        // Failed requests send nothing either.
        c.patch("/v1/sessions/s", #"{"constraints": {"x": "nope.width == 3"}}"#)
        c.patch("/v1/sessions/s", Self.resize.replacingOccurrences(of: "300", with: "200"), headers: [("If-Match", "\"1\"")])
        #expect(sink.events.count == 2)
    }

    @Test("coordinates=absolute: moving a parent lists its children too")
    func absolute() throws {
        let c = Client()
        c.put("s", Docs.stack)
        let relative = c.subscribe("s")
        let absolute = c.subscribe("s", query: "coordinates=absolute")
        let all = T.json(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute"))
        #expect(T.frames(absolute.data("revision").first?["frames"]) == T.frames(all["frames"]))
        c.patch("/v1/sessions/s", #"{"constraints": {"h-top": {"constant": 30}}}"#)
        let rel = try #require(relative.data("revision").last)
        let abs = try #require(absolute.data("revision").last)
        #expect(T.frames(rel["frames"]).keys.sorted() == ["a", "b", "header"])
        #expect(T.frames(abs["frames"]).keys.sorted() == ["a", "b", "badge", "header"])
        let now = T.json(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute"))
        #expect(T.frames(abs["frames"])["badge"] == T.frames(now["frames"])["badge"])
    }

    @Test("many subscribers each get every revision, in order")
    func many() {
        let c = Client()
        c.put("s", Docs.small)
        let sinks = (0..<5).map { _ in c.subscribe("s") }
        #expect(c.api.subscriberCount(session: "s") == 5)
        for w in [90, 80, 70] {
            c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": \#(w)}}}}"#)
        }
        for sink in sinks {
            #expect(sink.events.map(\.id) == ["1", "2", "3", "4"])
            #expect(T.frames(sink.data("revision").last?["frames"])["a"] == [5, 5, 60, 40])
        }
    }

    @Test("a client that leaves is unsubscribed and gets nothing more")
    func unsubscribe() {
        let c = Client()
        c.put("s", Docs.small)
        let stays = c.subscribe("s")
        let leaves = c.subscribe("s")
        #expect(c.api.subscriberCount(session: "s") == 2)
        leaves.close()
        #expect(c.api.subscriberCount(session: "s") == 1)
        c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 90}}}}"#)
        #expect(leaves.events.count == 1)
        #expect(stays.events.count == 2)
        stays.close()
        #expect(c.api.subscriberCount(session: "s") == 0)
        // Many short visits leave nothing behind.
        for _ in 0..<200 { c.subscribe("s").close() }
        #expect(c.api.subscriberCount(session: "s") == 0)
        // A stream that ended before the API registered its close handler is dropped at once.
        let gone = FakeSink()
        gone.close()
        c.send("GET", "/v1/sessions/s/events").stream?.open(gone)
        #expect(c.api.subscriberCount(session: "s") == 0)
    }

    @Test("DELETE sends event: deleted and ends every stream")
    func deleted() throws {
        let c = Client()
        c.put("s", Docs.small)
        let sinks = [c.subscribe("s"), c.subscribe("s", query: "coordinates=absolute")]
        #expect(c.send("DELETE", "/v1/sessions/s").status == 204)
        for sink in sinks {
            let last = try #require(sink.events.last)
            #expect(last.event == "deleted" && last.id == nil)
            #expect(last.data == #"{"id":"s","reason":"deleted"}"#)
            #expect(sink.finished)
        }
        #expect(c.api.subscriberCount(session: "s") == 0)
        // A new session under the same id is a new stream.
        c.put("s", Docs.small)
        c.patch("/v1/sessions/s", Self.resize)
        #expect(sinks[0].events.count == 2)
    }

    @Test("an expired session sends event: expired with its id and ends the stream")
    func expired() throws {
        let clock = TestClock()
        let c = Client(clock.configuration(timeout: 60))
        c.put("s", Docs.small)
        let sink = c.subscribe("s")
        clock.advance(61)
        #expect(c.api.sweep() == 1)
        let last = try #require(sink.events.last)
        #expect(last.event == "expired" && last.id == nil)
        #expect(last.data == #"{"id":"s"}"#)
        #expect(sink.finished)
    }

    @Test("the stream's answer carries an event: shutdown with the session id and a retry hint of 1 to 3 s")
    func shutdownEvent() throws {
        let c = Client()
        c.put("s", Docs.small)
        let last = try #require(c.send("GET", "/v1/sessions/s/events").stream?.shutdown)
        #expect(last.event == "shutdown" && last.id == nil)
        let retry = try #require(last.retry)
        #expect((1_000...3_000).contains(retry))
        #expect(last.data == #"{"id":"s","retry":\#(retry)}"#)
        let wire = String(decoding: last.bytes, as: UTF8.self)
        #expect(wire == "event: shutdown\nretry: \(retry)\ndata: \(last.data)\n\n")
    }

    @Test("a stream that opens after the session died gets event: deleted at once")
    func openedLate() throws {
        let c = Client()
        c.put("s", Docs.small)
        let r = c.send("GET", "/v1/sessions/s/events")
        c.send("DELETE", "/v1/sessions/s")
        let sink = FakeSink()
        try #require(r.stream).open(sink)
        #expect(sink.events.map(\.event) == ["deleted"])
        #expect(sink.finished)
        #expect(c.api.subscriberCount(session: "s") == 0)
    }

    @Test("PUT replacing the document sends the new and changed frames and the removed views")
    func putReplace() throws {
        let c = Client()
        c.put("s", Docs.stack)
        let sink = c.subscribe("s")
        c.put("s", Docs.small)
        let data = try #require(sink.data("revision").last)
        #expect(data["revision"]?.numberValue == 2)
        #expect(T.frames(data["frames"]) == ["root": [0, 0, 100, 50], "a": [5, 5, 90, 40]])
        #expect(Set(ConformanceJudge.strings(data["removed"])) == ["header", "badge", "b"])
        // The same document again: no new revision, no event.
        c.put("s", Docs.small)
        #expect(sink.events.count == 2)
    }

    @Test("404 for an unknown session; HEAD gets the headers without a stream; other methods 405")
    func routes() {
        let c = Client()
        T.expectProblem(c.send("GET", "/v1/sessions/nope/events"), 404, type: "session-not-found")
        c.put("s", Docs.small)
        let head = c.send("HEAD", "/v1/sessions/s/events")
        #expect(head.status == 200 && head.stream == nil)
        #expect(head.header("Content-Type") == "text/event-stream")
        let post = c.send("POST", "/v1/sessions/s/events")
        T.expectProblem(post, 405, type: "method-not-allowed")
        #expect(post.header("Allow") == "GET, HEAD, OPTIONS")
        T.expectProblem(c.send("GET", "/v1/sessions/s/events", query: "coordinates=polar"), 400, type: "invalid-query")
        #expect(c.api.subscriberCount(session: "s") == 0)
    }

    @Test("CORS headers apply to the stream")
    func cors() {
        let c = Client(APIConfiguration(corsOrigins: ["https://app.example"]))
        c.put("s", Docs.small)
        let r = c.send("GET", "/v1/sessions/s/events", headers: [("Origin", "https://app.example")])
        #expect(r.stream != nil)
        #expect(r.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(r.header("Vary") == "Origin")
    }

    @Test("concurrent PATCHes reach a subscriber on its own thread in revision order, each once")
    func ordering() async {
        let c = Client()
        c.put("s", Docs.small)
        let sink = c.subscribe("s", sink: FakeSink(queue: DispatchQueue(label: "fake-loop")))
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<25 {
                        c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": \#(200 + t * 100 + i)}}}}"#)
                    }
                }
            }
        }
        // The sink's queue delivers on a thread of its own: blocking this one does not hold it up.
        _ = eventually(timeout: 2) { sink.events.count >= 101 }
        #expect(sink.events.map(\.id) == (1...101).map { String($0) })
        // The frames sent add up to the session's current frames.
        var frames: [String: [Double]] = [:]
        for d in sink.data("revision") { frames.merge(T.frames(d["frames"])) { $1 } }
        #expect(frames == T.frames(T.json(c.send("GET", "/v1/sessions/s/frames"))["frames"]))
    }
}
