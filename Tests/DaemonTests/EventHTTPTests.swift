import EventHTTP
import Primitives
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A value shared between a handler (worker thread) and the test.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }

    /// Polls until `predicate` holds or `timeout` passes; returns the last value seen.
    func wait(timeout: Double = 5, until predicate: (Value) -> Bool) -> Value {
        eventually(timeout: timeout, get, satisfies: predicate)
    }
}

/// An in-process EventHTTP server on a free port, running on a background thread.
final class InProcessServer: @unchecked Sendable {
    let server: HTTPServer
    let port: Int
    private let finished = Shared(false)

    init(threads: Int = 1, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
         handler: @escaping HTTPHandler) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = threads
        configuration.handleSignals = false
        configuration.lockDirectory = nil
        configure(&configuration)
        server = HTTPServer(configuration: configuration, handler: handler)
        port = try server.start()
        let server = self.server
        let finished = self.finished
        Thread.detachNewThread {
            try? server.run()
            finished.set(true)
        }
    }

    /// Shuts down and waits for `run()` to return; false if it did not within `timeout`.
    @discardableResult
    func stop(timeout: Double = 5) -> Bool {
        server.shutdown()
        return finished.wait(timeout: timeout) { $0 }
    }

    var hasFinished: Bool { finished.get() }

    deinit { stop() }
}

@Suite("EventHTTP")
struct EventHTTPTests {
    @Test("the handler gets method, decoded path, raw query, ordered headers and body")
    func requestConversion() throws {
        let seen = Shared<HTTPRequest?>(nil)
        let server = try InProcessServer { request in
            seen.set(request)
            return .json(#"{"ok":true}"#)
        }
        let connection = try RawHTTPConnection(port: server.port)
        let response = try connection.request(
            "PUT", "/v1/sessions/a%20b%2Fc?frames=all&verbose&x=1+2",
            headers: [("X-One", "1"), ("x-two", "2"), ("X-One", "again")], body: Array("héllo".utf8))
        #expect(response.status == 200)
        let request = try #require(seen.get())
        #expect(request.method == "PUT")
        #expect(request.path == "/v1/sessions/a b/c")
        #expect(request.rawPath == "/v1/sessions/a%20b%2Fc")
        #expect(request.query == "frames=all&verbose&x=1+2")
        #expect(request.queryValue("frames") == "all")
        #expect(request.queryValue("verbose") == "")
        #expect(request.queryValue("x") == "1 2")
        #expect(request.queryValue("missing") == nil)
        #expect(request.header("X-TWO") == "2")
        #expect(request.headers(named: "x-one") == ["1", "again"])
        #expect(request.headers.map(\.name).prefix(4) == ["Host", "X-One", "x-two", "X-One"])
        #expect(String(decoding: request.body, as: UTF8.self) == "héllo")
        #expect(request.remoteAddress == "127.0.0.1")
        #expect(request.remotePort > 0)
    }

    @Test("a target splits at its first ? or #: the query ends at #, a fragment is dropped",
          arguments: [("/a?b#c?d", "/a", "b"), ("/a#b?c", "/a", ""), ("/a?", "/a", ""), ("/a??b", "/a", "?b"),
                      ("/a%3Fb?q=%23", "/a%3Fb", "q=%23"), ("/", "/", ""), ("/?x", "/", "x")])
    func targetSplit(target: String, rawPath: String, query: String) throws {
        let seen = Shared<HTTPRequest?>(nil)
        let server = try InProcessServer { request in
            seen.set(request)
            return .json(#"{"ok":true}"#)
        }
        let connection = try RawHTTPConnection(port: server.port)
        #expect(try connection.request("GET", target).status == 200)
        let request = try #require(seen.get())
        #expect(request.rawPath == rawPath)
        #expect(request.query == query)
    }

    @Test("a request body arrives whole, whether it came in one read or in many", arguments: [1, 700, 300_000])
    func requestBodies(size: Int) throws {
        let seen = Shared<[UInt8]?>(nil)
        let server = try InProcessServer { request in
            seen.set(request.body)
            return .json("{}")
        }
        let connection = try RawHTTPConnection(port: server.port)
        var generator = SystemRandomNumberGenerator()
        let body = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let response = try connection.request("PUT", "/x", body: body)
        #expect(response.status == 200)
        let received = try #require(seen.get())
        #expect(received.count == body.count)
        let same = received == body  // compared first: a failing #expect(a == b) prints both, 300 kB each
        #expect(same, "the bytes differ")
    }

    @Test("header names arrive as sent, the usual ones (taken from a table) as well as others")
    func headerNames() throws {
        let seen = Shared<HTTPRequest?>(nil)
        let server = try InProcessServer { request in
            seen.set(request)
            return .json("{}")
        }
        let connection = try RawHTTPConnection(port: server.port)
        let sent = [("Content-Type", "a"), ("content-type", "b"), ("Content-Typ", "c"), ("Content-Types", "d"),
                    ("If-None-Match", "e"), ("If-Match", "f"), ("Transfer-Encodings", "g"), ("Origin", "h"),
                    ("Accept", "i"), ("Accept-Language", "j")]
        let response = try connection.request("GET", "/x", headers: sent)
        #expect(response.status == 200)
        let request = try #require(seen.get())
        let received = request.headers.filter { $0.name != "Host" }.map { "\($0.name)=\($0.value)" }
        #expect(received == sent.map { "\($0.0)=\($0.1)" })
    }

    @Test("no body goes out with 204 or 304, and the default content type is application/json")
    func bodylessStatuses() throws {
        let server = try InProcessServer { request in
            switch request.path {
            case "/204": return HTTPResponse(status: 204, body: Array("ignored".utf8))
            case "/304": return HTTPResponse(status: 304, body: Array("ignored".utf8))
            default: return HTTPResponse(status: 200, body: Array("[1]".utf8))
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        let noContent = try connection.request("GET", "/204")
        #expect(noContent.status == 204)
        let notModified = try connection.request("GET", "/304")
        #expect(notModified.status == 304)
        let plain = try connection.request("GET", "/200")
        #expect(plain.status == 200)
        #expect(plain.text == "[1]")
        #expect(plain.header("Content-Type") == "application/json")
    }

    @Test("every answer has one Date (IMF-fixdate, now) and one Content-Length equal to its body; a handler's own are kept")
    func dateAndLength() throws {
        let server = try InProcessServer { request in
            switch request.path {
            case "/own": return HTTPResponse(status: 200, headers: [("date", "Tue, 01 Jan 2030 00:00:00 GMT")],
                                             body: Array("abc".utf8))
            case "/empty": return HTTPResponse(status: 200, body: [])
            default: return HTTPResponse(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: 12_345))
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for _ in 0..<2 {  // the second answer reads the worker's formatted value again
            let r = try connection.request("GET", "/big")
            #expect(r.body.count == 12_345)
            #expect(r.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value) == ["12345"])
            let dates = r.headers.filter { $0.name.lowercased() == "date" }.map(\.value)
            #expect(dates.count == 1)
            let date = try #require(dates.first.flatMap { formatter.date(from: $0) }, "\(dates)")
            #expect(abs(date.timeIntervalSinceNow) < 5)
            #expect(formatter.string(from: date) == dates.first)
        }
        let empty = try connection.request("GET", "/empty")
        #expect(empty.header("Content-Length") == "0")
        let own = try connection.request("GET", "/own")
        #expect(own.headers.filter { $0.name.lowercased() == "date" }.map(\.value) == ["Tue, 01 Jan 2030 00:00:00 GMT"])
        #expect(own.text == "abc")
        #expect(own.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value) == ["3"])
        let head = try connection.request("HEAD", "/big")
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == "12345")
    }

    @Test("a stream delivers chunks pushed from another thread, then ends cleanly on finish()")
    func streamPushedFromAnotherThread() throws {
        let opened = Shared<HTTPStream?>(nil)
        let openedOnOwningThread = Shared(false)
        let closedWith = Shared<HTTPStream.CloseReason?>(nil)
        let server = try InProcessServer { request in
            guard request.path == "/events" else { return .json(status: 404, "{}") }
            return .stream(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]) { stream in
                openedOnOwningThread.set(stream.isOnOwningThread)
                stream.onClose { reason in closedWith.set(reason) }
                stream.sendEvent(data: "hello", event: "greeting", id: "1")
                opened.set(stream)
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/events", headers: [("Accept", "text/event-stream")])
        let head = try connection.readResponseHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(String(decoding: try #require(try connection.readChunk()), as: UTF8.self)
                == "event: greeting\nid: 1\ndata: hello\n\n")

        let stream = try #require(opened.wait { $0 != nil })
        #expect(openedOnOwningThread.get())
        #expect(!stream.isOnOwningThread)
        stream.sendEvent(data: "line one\nline two")
        stream.send("data: raw\n\n")
        #expect(String(decoding: try #require(try connection.readChunk()), as: UTF8.self)
                == "data: line one\ndata: line two\n\n")
        #expect(String(decoding: try #require(try connection.readChunk()), as: UTF8.self) == "data: raw\n\n")
        stream.finish()
        #expect(try connection.readChunk() == nil)
        #expect(closedWith.wait { $0 != nil } == .finished)
        #expect(!stream.isOpen)
        stream.send("ignored after the end")
        #expect(connection.serverClosed())
    }

    @Test("a client leaving an open stream is noticed: onClose(.clientDisconnected)")
    func streamClientLeaves() throws {
        let closedWith = Shared<HTTPStream.CloseReason?>(nil)
        let server = try InProcessServer { _ in
            .stream { stream in
                stream.onClose { closedWith.set($0) }
                stream.send("first\n")
            }
        }
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("GET", "/stream")
        _ = try connection.readResponseHead()
        _ = try connection.readChunk()
        connection.close()
        #expect(closedWith.wait { $0 != nil } == .clientDisconnected)
        // The server is still fine.
        #expect(server.server.port == server.port)
        let again = try RawHTTPConnection(port: server.port)
        try again.sendRequest("GET", "/stream")
        #expect(try again.readResponseHead().status == 200)
    }

    @Test("a quiet stream gets its heartbeat")
    func streamHeartbeat() throws {
        let server = try InProcessServer { _ in
            .stream(heartbeat: .sseComment(every: 0.2)) { _ in }
        }
        let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 3)
        try connection.sendRequest("GET", "/quiet")
        _ = try connection.readResponseHead()
        #expect(String(decoding: try #require(try connection.readChunk()), as: UTF8.self) == ": ping\n\n")
        #expect(String(decoding: try #require(try connection.readChunk()), as: UTF8.self) == ": ping\n\n")
    }

    @Test("shutdown ends open streams with .serverShutdown, closes idle connections and run() returns")
    func shutdownWithOpenStream() throws {
        let closedWith = Shared<HTTPStream.CloseReason?>(nil)
        let server = try InProcessServer(threads: 2, configure: { $0.shutdownGraceSeconds = 2 }) { request in
            if request.path == "/plain" { return .json("{}") }
            return .stream { stream in stream.onClose { closedWith.set($0) } }
        }
        let idle = try RawHTTPConnection(port: server.port)
        #expect(try idle.request("GET", "/plain").status == 200)
        let streaming = try RawHTTPConnection(port: server.port)
        try streaming.sendRequest("GET", "/stream")
        _ = try streaming.readResponseHead()
        let started = Date()
        #expect(server.stop(timeout: 5))
        #expect(Date().timeIntervalSince(started) < 4)
        #expect(closedWith.get() == .serverShutdown)
        #expect(try streaming.readChunk() == nil)
        #expect(streaming.serverClosed())
        #expect(idle.serverClosed())
    }

    @Test("port 0 gives every worker the same ephemeral port, and each one answers")
    func ephemeralPortSharedByWorkers() throws {
        let server = try InProcessServer(threads: 3) { _ in .json("{}") }
        #expect(server.port > 0)
        for _ in 0..<30 {
            #expect(try RawHTTPConnection(port: server.port).request("GET", "/").status == 200)
        }
        #expect(server.stop())
    }

    @Test("the port lock refuses a second server on the same port")
    func portLock() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evhttp-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try InProcessServer(configure: { $0.lockDirectory = directory.path; $0.lockName = "t" }) { _ in .json("{}") }
        var configuration = HTTPServerConfiguration()
        configuration.port = first.port
        configuration.lockDirectory = directory.path
        configuration.lockName = "t"
        configuration.handleSignals = false
        let second = HTTPServer(configuration: configuration) { _ in .json("{}") }
        #expect {
            try second.start()
        } throws: { error in
            guard case HTTPServerError.portInUse(_, let port, let detail) = error else { return false }
            return port == first.port && detail.contains("t-\(first.port).lock")
        }
        #expect(first.stop())
    }

    @Test("threads 0 means one worker per CPU but one, never none; a count given is kept")
    func automaticThreads() {
        #expect([0, 1, 2, 3, 8].map { HTTPServerConfiguration.automaticThreads(cpus: $0) } == [1, 1, 1, 2, 7])
        let cpus = HTTPServerConfiguration.availableCPUs
        #expect(cpus >= 1 && cpus <= Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var configuration = HTTPServerConfiguration()
        configuration.threads = 0
        #expect(configuration.effectiveThreads == max(1, cpus - 1))
        configuration.threads = 3
        #expect(configuration.effectiveThreads == 3)
    }

    @Test("query items keep parameters without '=' and decode + and %XX")
    func queryItems() {
        let request = HTTPRequest(method: "GET", path: "/", query: "a=1&verbose&b=x+y%21&&c=")
        #expect(request.queryItems.map(\.name) == ["a", "verbose", "b", "c"])
        #expect(request.queryItems.map(\.value) == ["1", nil, "x y!", ""])
        #expect(percentDecode("%zz%4") == "%zz%4")
        #expect(percentDecode("%E2%82%AC") == "€")
    }

    @Test("problem responses are JSON with escaped text")
    func problemResponse() {
        let response = HTTPResponse.problem(status: 422, type: "/problems/x", detail: "bad \"quote\"\n")
        #expect(response.head?.header("Content-Type") == "application/problem+json")
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(object?["title"] as? String == "Unprocessable Content")
        #expect(object?["detail"] as? String == "bad \"quote\"\n")
        #expect(object?["status"] as? Int == 422)
    }
}
