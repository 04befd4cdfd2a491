import CEventHTTPSupport
import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The probes of the start-up check: real requests to a private evhttp server on a loopback port
/// of its own, answered on the calling thread in a few milliseconds, touching no other server.
extension LibeventInternals {
    /// The `Content-Type` of libevent's own reply to `GARBAGE\r\n\r\n` (a 400 it sends through
    /// `evhttp_send_error` before any handler runs), or nil when no reply could be had.
    ///
    /// `application/problem+json` when the daemon's `evhttp_send_error` (CProblemReplies) took
    /// libevent's calls; libevent's `text/html` page when it did not (a libevent that binds its
    /// calls internally, or a process that does not link the override, as the test binaries).
    public static func errorReplyContentType(timeoutMilliseconds: Int32 = 2_000) -> String? {
        guard let server = LoopbackProbeServer() else { return nil }
        defer { server.free() }
        return server.exchange(Array("GARBAGE\r\n\r\n".utf8), timeoutMilliseconds: timeoutMilliseconds)
            .flatMap { contentType(of: $0.reply) }
    }

    /// The `Content-Type` header's value in a raw HTTP reply's head.
    static func contentType(of reply: [UInt8]) -> String? {
        let text = String(decoding: reply, as: UTF8.self)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false).dropFirst() {
            if line.isEmpty { break }  // the end of the head
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == "content-type" {
                return String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
            }
        }
        return nil
    }

    /// What does not hold in the request fields and the reply path of LibeventInternals.c, tried on
    /// two pipelined requests of known shape (a chunked POST over HTTP/1.1, then a PUT with a
    /// `Content-Length` over HTTP/1.0) answered the way Worker answers; nil when everything holds.
    ///
    /// For each request: the fields with public getters are where the header puts them
    /// (`layoutd_request_layout_problem`, before anything is written), the version, `chunked` flag
    /// and body size read as sent, and the connection's bufferevent carries evhttp's connection.
    /// Then the bytes the client gets must be exactly the two replies and the close HTTP/1.0 asks
    /// for: a `chunked` flag not cleared adds a stray `0` chunk, a reply end that does not finish
    /// the request leaves the second unanswered.
    public static func requestFieldsProblem(timeoutMilliseconds: Int32 = 2_000) -> String? {
        guard let server = LoopbackProbeServer() else { return "no loopback server could be started for the probe" }
        defer { server.free() }
        let probe = RequestFieldsProbe(expected: [
            .init(command: EVHTTP_REQ_POST.rawValue, major: 1, minor: 1, chunked: true, bodyBytes: 3),
            .init(command: EVHTTP_REQ_PUT.rawValue, major: 1, minor: 0, chunked: false, bodyBytes: 2),
        ])
        evhttp_set_gencb(server.http, requestFieldsProbeCallback, Unmanaged.passUnretained(probe).toOpaque())
        let requests = "POST /first HTTP/1.1\r\nHost: probe\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "PUT /second HTTP/1.0\r\nHost: probe\r\nContent-Length: 2\r\n\r\nhi"
        let reply = server.exchange(Array(requests.utf8), timeoutMilliseconds: timeoutMilliseconds)
        if let problem = probe.problems.first { return problem }
        guard probe.answered == probe.expected.count else {
            return "\(probe.answered) of \(probe.expected.count) pipelined requests reached the handler"
        }
        let expected = RequestFieldsProbe.reply(0) + RequestFieldsProbe.reply(1)
        guard let reply, reply.reply == Array(expected.utf8), reply.closed else {
            let got = reply.map { String(reflecting: String(decoding: $0.reply.prefix(200), as: UTF8.self)) }
            return """
                the replies written through layoutd_reply_finish arrived as \(got ?? "nothing")\
                \(reply?.closed == false ? " without the close HTTP/1.0 asks for" : ""), \
                not as \(String(reflecting: expected)) followed by a close
                """
        }
        return nil
    }
}

/// What the request-fields probe expects of each request, and what it found.
private final class RequestFieldsProbe {
    struct Expected {
        let command: UInt32
        let major: Int
        let minor: Int
        let chunked: Bool
        let bodyBytes: Int
    }

    let expected: [Expected]
    private(set) var answered = 0
    private(set) var problems: [String] = []

    init(expected: [Expected]) { self.expected = expected }

    /// The reply to the request at `index`: a complete HTTP/1.1 reply, written by hand as ReplyHead
    /// writes one.
    static func reply(_ index: Int) -> String {
        let body = "probe \(index + 1)"
        return "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    func handle(_ req: OpaquePointer) {
        let index = answered
        answered += 1
        var text = [CChar](repeating: 0, count: 200)
        if layoutd_request_layout_problem(req, &text, text.count) != 0 {
            problems.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            // Nothing is written through a struct that is not where the header says: a reply with
            // public calls only, and the connection closes.
            evhttp_send_reply(req, 500, "Probe failed", nil)
            return
        }
        if index < expected.count { check(req, against: expected[index], index: index) }
        guard let output = LibeventInternals.replyOutput(req) else {
            problems.append("request \(index + 1) of the probe had no connection to answer on")
            LibeventInternals.finishReply(req, closeAfter: true)
            return
        }
        let reply = Array(Self.reply(index).utf8)
        _ = evbuffer_add(output, reply, reply.count)
        LibeventInternals.finishReply(req, closeAfter: false)
    }

    private func check(_ req: OpaquePointer, against expected: Expected, index: Int) {
        let name = "request \(index + 1) of the probe"
        let version = LibeventInternals.requestVersion(req)
        if version.major != expected.major || version.minor != expected.minor {
            problems.append("\(name) was sent as HTTP/\(expected.major).\(expected.minor) but its version fields read "
                            + "\(version.major).\(version.minor)")
        }
        if (layoutd_request_chunked(req) != 0) != expected.chunked {
            problems.append("\(name)'s chunked flag reads \(layoutd_request_chunked(req)), "
                            + "its body was \(expected.chunked ? "" : "not ")chunked")
        }
        let bodyBytes = Int(layoutd_request_body_bytes(req))
        let received = evbuffer_get_length(evhttp_request_get_input_buffer(req))
        if bodyBytes != expected.bodyBytes || received != expected.bodyBytes {
            problems.append("\(name) had a body of \(expected.bodyBytes) bytes; body_size reads \(bodyBytes), "
                            + "the input buffer holds \(received)")
        }
        if evhttp_request_get_command(req).rawValue != expected.command {
            problems.append("\(name)'s method reads \(evhttp_request_get_command(req).rawValue), not \(expected.command)")
        }
        let connection = evhttp_request_get_connection(req)
        if let connection, let bev = evhttp_connection_get_bufferevent(connection),
           LibeventInternals.httpConnection(of: bev) != connection {
            problems.append("the bufferevent of \(name)'s connection does not carry evhttp's connection as its "
                            + "callback argument (the connection guard finds connections that way)")
        }
    }
}

/// evhttp's request callback of the request-fields probe (a free function: libevent calls it).
private func requestFieldsProbeCallback(_ req: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) {
    guard let req, let argument else { return }
    Unmanaged<RequestFieldsProbe>.fromOpaque(argument).takeUnretainedValue().handle(req)
}

/// A private evhttp server on 127.0.0.1 (a port of its own) and one client socket, both driven on
/// the calling thread.
private final class LoopbackProbeServer {
    let base: OpaquePointer
    let http: OpaquePointer
    private var address = sockaddr_in()

    init?() {
        guard let base = event_base_new() else { return nil }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            return nil
        }
        self.base = base
        self.http = http
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard let bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0),
              withUnsafeMutablePointer(to: &address, {
                  $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                      getsockname(evhttp_bound_socket_get_fd(bound), $0, &length)
                  }
              }) == 0
        else {
            free()
            return nil
        }
    }

    func free() {
        evhttp_free(http)
        event_base_free(base)
    }

    /// Sends `request` from a new client connection and collects what comes back until the server
    /// closes the connection (`closed`) or `timeoutMilliseconds` pass; nil when nothing could be sent.
    func exchange(_ request: [UInt8], timeoutMilliseconds: Int32) -> (reply: [UInt8], closed: Bool)? {
        #if os(Linux)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let client = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard client >= 0 else { return nil }
        defer { close(client) }
        // A loopback connect to a listening socket completes in the kernel's backlog: no loop turn.
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0, send(client, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return nil
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var waited: Int32 = 0
        while waited < timeoutMilliseconds {
            event_base_loop(base, EVLOOP_NONBLOCK)
            var ready = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1) >= 0 else { return nil }
            waited += 1
            guard ready.revents != 0 else { continue }
            let n = recv(client, &chunk, chunk.count, 0)
            if n <= 0 { return (reply, true) }  // the server closed the connection after its reply
            reply += chunk[0..<n]
        }
        return (reply, false)
    }
}
