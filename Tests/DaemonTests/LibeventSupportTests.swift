import CEventHTTPSupport
@testable import EventHTTP
import Foundation
import Testing

/// What EventHTTP adds around libevent without overriding any of its symbols: replies written
/// before the callback returns (SendNow.c), and the probe that tells how libevent answers the
/// requests it rejects by itself.
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

    @Test("the probe sees libevent's own HTML error page in a process without the problem+json override")
    func probeWithoutOverride() {
        // The test binaries do not link CProblemReplies: libevent answers with its own page. (The
        // daemon, which links it, logs problem+json: DaemonTests' start-up log test.)
        let contentType = TransportErrorProbe.errorContentType()
        #expect(contentType?.hasPrefix("text/html") == true, "got \(contentType ?? "no reply")")
    }

    @Test("the probe reads Content-Type from a reply head, in any case, and nothing from the body")
    func contentTypeOfReply() {
        let reply = Array("HTTP/1.1 400 Bad Request\r\ncontent-TYPE:  application/problem+json\r\n\r\nContent-Type: x".utf8)
        #expect(TransportErrorProbe.contentType(of: reply) == "application/problem+json")
        #expect(TransportErrorProbe.contentType(of: Array("HTTP/1.1 400 X\r\n\r\nContent-Type: x".utf8)) == nil)
    }
}
