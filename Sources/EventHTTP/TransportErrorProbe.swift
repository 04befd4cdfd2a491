import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How this process's libevent answers a request it cannot parse, found by asking it.
///
/// libevent answers malformed requests (400), bodies far over the limit (413) and unknown methods
/// (501) by itself, through `evhttp_send_error`, before any handler runs. A program that wants
/// those replies in another shape defines that symbol itself (layoutd does: problem+json), which
/// works only while libevent calls it through its PLT. Rather than trusting the linker, the probe
/// sends one malformed request to a private evhttp server on a loopback port of its own, answers
/// it on the calling thread, and reports the reply's `Content-Type`. It takes about a millisecond
/// and touches no other server's state.
public enum TransportErrorProbe {
    /// The `Content-Type` of libevent's reply to `GARBAGE\r\n\r\n`, or nil when no reply could be
    /// had (no loopback, or none within `timeoutMilliseconds`).
    public static func errorContentType(timeoutMilliseconds: Int32 = 2_000) -> String? {
        guard let base = event_base_new() else { return nil }
        defer { event_base_free(base) }
        guard let http = evhttp_new(base) else { return nil }
        defer { evhttp_free(http) }
        guard let bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0) else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(evhttp_bound_socket_get_fd(bound), $0, &length)
            }
        }
        guard named == 0 else { return nil }

        #if os(Linux)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let client = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard client >= 0 else { return nil }
        defer { close(client) }
        // A loopback connect to a listening socket completes in the kernel's backlog: no loop turn.
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        let request = Array("GARBAGE\r\n\r\n".utf8)
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
            if n <= 0 { break }  // libevent closes these connections after the reply
            reply += chunk[0..<n]
        }
        return contentType(of: reply)
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
}
