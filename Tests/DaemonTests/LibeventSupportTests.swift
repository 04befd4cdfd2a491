import CEventHTTPSupport
@testable import EventHTTP
import Foundation
import Testing

/// What EventHTTP adds around libevent without overriding any of its symbols: replies written
/// before the callback returns (LibeventInternals.c), and the probe that tells how libevent answers
/// the requests it rejects by itself.
@Suite("EventHTTP around libevent: replies sent at once, the transport error probe")
struct LibeventSupportTests {
    @Test("replies go out before the callback returns, one after another on a connection, large ones too")
    func repliesSentAtOnce() throws {
        let large = String(repeating: "x", count: 3_000_000)
        let server = try InProcessServer { request in
            request.path == "/large" ? .json(#"{"x":""# + large + #""}"#) : .json(#"{"path":"\#(request.path)"}"#)
        }
        let connection = try RawHTTPConnection(port: server.port)
        layoutd_reply_sent_at_once_reset()
        // Pipelined: the second request waits in the input while the first is answered.
        try connection.sendRequest("GET", "/a")
        try connection.sendRequest("GET", "/b")
        #expect(try connection.readResponse().text == #"{"path":"/a"}"#)
        #expect(try connection.readResponse().text == #"{"path":"/b"}"#)
        #expect(layoutd_reply_sent_at_once() != 0)
        // More than a socket takes at once: the rest is written by libevent, then the next reply.
        let big = try connection.request("GET", "/large")
        #expect(big.status == 200 && big.body.count == large.utf8.count + 8)
        let head = try connection.request("HEAD", "/h")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try connection.request("GET", "/c").text == #"{"path":"/c"}"#)
        // A reply that closes the connection: sent whole, then the connection closes.
        let last = try connection.request("GET", "/d", headers: [("Connection", "close")])
        #expect(last.text == #"{"path":"/d"}"#)
        #expect(connection.serverClosed())
    }

    @Test("the reply head: HTTP/1.0 kept alive only when asked, a handler's Connection: close closes, a header with CR or LF is dropped")
    func replyHead() throws {
        let server = try InProcessServer { request in
            switch request.path {
            case "/close": return .json(#"{"bye":true}"#, headers: [("Connection", "close")])
            case "/inject": return .json("{}", headers: [("X-Bad", "a\r\nSet-Cookie: x=1"), ("X-Good", "b")])
            default: return .json(#"{"path":"\#(request.path)"}"#)
            }
        }
        // HTTP/1.0 asking for keep-alive: told so, and the connection serves a second request.
        let kept = try RawHTTPConnection(port: server.port)
        try kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try kept.readResponse()
        #expect(first.statusLine.hasPrefix("HTTP/1.0 200"))
        #expect(first.header("Connection")?.lowercased() == "keep-alive")
        #expect(first.header("Content-Length") == "\(first.body.count)")
        try kept.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try kept.readResponse().text == #"{"path":"/b"}"#)
        // HTTP/1.0 without it: answered, then closed.
        let plain = try RawHTTPConnection(port: server.port)
        try plain.send("GET /c HTTP/1.0\r\n\r\n")
        #expect(try plain.readResponse().text == #"{"path":"/c"}"#)
        #expect(plain.serverClosed())
        // The handler closes: one Connection: close in the head, then the connection closes.
        let closing = try RawHTTPConnection(port: server.port)
        let bye = try closing.request("GET", "/close")
        #expect(bye.headers.filter { $0.name.lowercased() == "connection" }.map(\.value) == ["close"])
        #expect(closing.serverClosed())
        // A value with CR LF would start a header of its own: it is dropped, the others are sent.
        let injected = try RawHTTPConnection(port: server.port)
        let reply = try injected.request("GET", "/inject")
        #expect(reply.status == 200)
        #expect(reply.header("X-Bad") == nil && reply.header("Set-Cookie") == nil)
        #expect(reply.header("X-Good") == "b")
        #expect(reply.header("X-Content-Type-Options") == "nosniff")
        #expect(try injected.request("GET", "/after").text == #"{"path":"/after"}"#)
    }

    @Test("the probe sees libevent's own HTML error page in a process without the problem+json override")
    func probeWithoutOverride() {
        // The test binaries do not link CProblemReplies: libevent answers with its own page. (The
        // daemon, which links it, logs problem+json: DaemonTests' start-up log test.)
        let contentType = LibeventInternals.errorReplyContentType()
        #expect(contentType?.hasPrefix("text/html") == true, "got \(contentType ?? "no reply")")
    }

    @Test("the probe reads Content-Type from a reply head, in any case, and nothing from the body")
    func contentTypeOfReply() {
        let reply = Array("HTTP/1.1 400 Bad Request\r\ncontent-TYPE:  application/problem+json\r\n\r\nContent-Type: x".utf8)
        #expect(LibeventInternals.contentType(of: reply) == "application/problem+json")
        #expect(LibeventInternals.contentType(of: Array("HTTP/1.1 400 X\r\n\r\nContent-Type: x".utf8)) == nil)
    }
}
