import CEvhttpFastPaths
import CLibevent
import EventHTTP
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Our `evbuffer_add_printf`, `evutil_ascii_strcasecmp`, `__isoc99_sscanf` and `ioctl`
/// (Sources/CEvhttpFastPaths) against libevent's and glibc's own (found behind ours with
/// `dlsym(RTLD_NEXT, …)`, or their `v` forms, or the kernel), and in effect for libevent's calls.
/// A large body read intact through the `ioctl` override is EventHTTPTests' 300 kB round trip.
@Suite("libevent fast paths: same bytes and answers as libevent's own, used by evhttp")
struct EvhttpFastPathsTests {
    typealias StrCaseCmp = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32

    /// libevent's `evbuffer_add_vprintf` (not overridden) stands in for its `evbuffer_add_printf`,
    /// which is a va_start around it.
    static func libeventLine(_ format: String, _ arguments: [CVarArg]) -> [UInt8] {
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        let n = withVaList(arguments) { evbuffer_add_vprintf(buffer, format, $0) }
        #expect(n >= 0)
        return drain(buffer)
    }

    /// Ours, called as libevent calls it.
    static func fastLine(_ write: (OpaquePointer) -> Int32) -> (count: Int32, bytes: [UInt8]) {
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        let n = write(buffer)
        return (n, drain(buffer))
    }

    static func drain(_ buffer: OpaquePointer) -> [UInt8] {
        let length = evbuffer_get_length(buffer)
        var out = [UInt8](repeating: 0, count: length)
        _ = out.withUnsafeMutableBytes { evbuffer_remove(buffer, $0.baseAddress, length) }
        return out
    }

    /// `evbuffer_add_printf` is variadic and does not import; ours is reached through its shim.
    static func fastHeader(_ key: String, _ value: String) -> (count: Int32, bytes: [UInt8]) {
        fastLine { buffer in key.withCString { k in value.withCString { v in layoutd_test_add_header_line(buffer, k, v) } } }
    }

    @Test("header lines: short, empty, long (beyond the stack buffer), non-ASCII")
    func headerLines() {
        let long = String(repeating: "v", count: 3000)
        let cases: [(String, String)] = [
            ("ETag", "\"1\""), ("Server-Timing", "parse;dur=0.012, solve;dur=0.034"), ("X", ""), ("", ""),
            ("Content-Type", "application/json"), ("Long", long), (long, "x"), ("Non-ASCII", "héllo \u{1F600}"),
        ]
        for (key, value) in cases {
            let expected = key.withCString { k in value.withCString { v in Self.libeventLine("%s: %s\r\n", [k, v]) } }
            let ours = Self.fastHeader(key, value)
            #expect(ours.bytes == expected)
            #expect(Int(ours.count) == expected.count)
        }
    }

    @Test("status lines: every digit count, negative numbers, empty and long reasons")
    func statusLines() {
        let cases: [(Int32, Int32, Int32, String)] = [
            (1, 1, 200, "OK"), (1, 0, 404, "Not Found"), (0, 9, 0, ""), (12, 345, 6789, "x"),
            (-1, -20, -300, "negative"), (Int32.max, Int32.min, 100, String(repeating: "r", count: 1000)),
        ]
        for (major, minor, code, reason) in cases {
            let expected = reason.withCString { r in Self.libeventLine("HTTP/%d.%d %d %s\r\n", [major, minor, code, r]) }
            let ours = Self.fastLine { buffer in reason.withCString { layoutd_test_add_status_line(buffer, major, minor, code, $0) } }
            #expect(ours.bytes == expected)
            #expect(Int(ours.count) == expected.count)
        }
    }

    @Test("any other format is libevent's printf")
    func otherFormats() {
        let expected = Self.libeventLine("%x\r\n", [Int32(48879)])
        let ours = Self.fastLine { layoutd_test_add_chunk_size($0, 48879) }
        #expect(ours.bytes == expected)
        #expect(String(decoding: ours.bytes, as: UTF8.self) == "beef\r\n")
    }

    @Test("header names compare as libevent's evutil_ascii_strcasecmp does")
    func caseInsensitiveComparison() throws {
        let original = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: -1), "evutil_ascii_strcasecmp"),
                                    "libevent's own, behind ours (RTLD_NEXT)")
        let libevent = unsafeBitCast(original, to: StrCaseCmp.self)
        let ours: StrCaseCmp = evutil_ascii_strcasecmp
        #expect(unsafeBitCast(ours, to: UnsafeMutableRawPointer.self) != original, "compared with libevent's, not ours")
        let words = ["", "a", "A", "b", "Content-Length", "content-length", "CONTENT-LENGTH", "Content-Type",
                     "Content", "Date", "date", "Z", "[", "`", "_", "\u{7F}", "é", "É", "\u{80}", "ETag", "etag"]
        for a in words {
            for b in words {
                let theirs = a.withCString { x in b.withCString { y in libevent(x, y) } }
                let ours = a.withCString { x in b.withCString { y in evutil_ascii_strcasecmp(x, y) } }
                #expect(ours.signum() == theirs.signum(), "\(a) vs \(b)")
            }
        }
    }

    @Test("HTTP versions scan as glibc's sscanf(\"HTTP/%d.%d%c\") does: count and values, odd shapes too")
    func httpVersions() {
        let cases = ["HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.1 ", "HTTP/1.1x", "HTTP/01.001",
                     "HTTP/123456789.987654321", "HTTP/1234567890.1", "HTTP/99999999999.1", "HTTP/-1.1",
                     "HTTP/+1.1", "HTTP/ 1.1", "HTTP/1. 1", "HTTP/1.-1", "HTTP/1", "HTTP/1.", "HTTP/.1",
                     "HTTP/", "HTTP", "http/1.1", "", "FTP/1.1", "HTTP/1,1", "HTTP/1.1\r"]
        for text in cases {
            var (m1, n1, c1): (Int32, Int32, CChar) = (-7, -7, 0x5A)
            var (m2, n2, c2): (Int32, Int32, CChar) = (-7, -7, 0x5A)
            let theirs = text.withCString { t in
                withUnsafeMutablePointer(to: &m1) { m in withUnsafeMutablePointer(to: &n1) { n in
                    withUnsafeMutablePointer(to: &c1) { c in
                        withVaList([m, n, c]) { vsscanf(t, "HTTP/%d.%d%c", $0) } } } }
            }
            let ours = text.withCString { layoutd_test_scan_http_version($0, &m2, &n2, &c2) }
            #expect(ours == theirs, "\(text)")
            // What glibc assigned, ours assigned alike (the rest is left as it was).
            if theirs >= 1 { #expect(m2 == m1, "\(text)") }
            if theirs >= 2 { #expect(n2 == n1, "\(text)") }
            if theirs >= 3 { #expect(c2 == c1, "\(text)") }
        }
    }

    @Test("evhttp's own calls reach them: a request read and a reply written without scanf and printf")
    func inEffectForLibevent() throws {
        let server = try InProcessServer { _ in .json(#"{"ok":true}"#) }
        let connection = try RawHTTPConnection(port: server.port)
        // Other tests' servers may write lines meanwhile: they can only set the flags too.
        layoutd_fast_paths_reset()
        let response = try connection.request("GET", "/x")
        #expect(response.status == 200)
        let used = layoutd_fast_paths_used()
        #expect(used & Int32(LAYOUTD_FAST_STATUS_LINE) != 0)
        #expect(used & Int32(LAYOUTD_FAST_HEADER_LINE) != 0)
        #expect(used & Int32(LAYOUTD_FAST_HTTP_VERSION) != 0)
        #expect(used & Int32(LAYOUTD_FAST_READ_SIZE) != 0)
    }

    @Test("replies go out before the callback returns, one after another on a connection, large ones too")
    func repliesSentAtOnce() throws {
        let large = String(repeating: "x", count: 3_000_000)
        let server = try InProcessServer { request in
            request.path == "/large" ? .json(#"{"x":""# + large + #""}"#) : .json(#"{"path":"\#(request.path)"}"#)
        }
        let connection = try RawHTTPConnection(port: server.port)
        layoutd_fast_paths_reset()
        // Pipelined: the second request waits in the input while the first is answered.
        try connection.sendRequest("GET", "/a")
        try connection.sendRequest("GET", "/b")
        #expect(try connection.readResponse().text == #"{"path":"/a"}"#)
        #expect(try connection.readResponse().text == #"{"path":"/b"}"#)
        #expect(layoutd_fast_paths_used() & Int32(LAYOUTD_FAST_SENT_AT_ONCE) != 0)
        // libevent's read interest, switched off and on again around each reply, costs no call.
        #expect(layoutd_fast_paths_used() & Int32(LAYOUTD_FAST_SAME_INTEREST) != 0)
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

    /// A pipe's read end registered in a fresh epoll instance through the override.
    static func withRegisteredPipe(_ body: (_ epfd: Int32, _ readEnd: Int32) throws -> Void) throws {
        let epfd = layoutd_test_epoll_create()
        #expect(epfd >= 0)
        defer { close(epfd) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        try body(epfd, fds[0])
    }

    static let readable = UInt32(LAYOUTD_EPOLLIN)

    @Test("libevent's MOD to the interest it registered costs no call; any other goes to the kernel")
    func sameInterestAnsweredOnce() throws {
        try Self.withRegisteredPipe { epfd, fd in
            defer { close(fd) }
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_ADD), fd, Self.readable, UInt64(fd), 1) == 0)
            // Removed behind the override's back: a MOD that reached the kernel would fail.
            #expect(layoutd_test_epoll_del_directly(epfd, fd) == 0)
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_MOD), fd, Self.readable, UInt64(fd), 1) == 0)
            // Another interest, other data, another caller: the kernel's answer (ENOENT).
            for (events, data, asLibevent) in [(Self.readable | UInt32(LAYOUTD_EPOLLOUT), UInt64(fd), Int32(1)),
                                               (Self.readable, UInt64(fd) + 1, 1), (Self.readable, UInt64(fd), 0)] {
                errno = 0
                #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_MOD), fd, events, data, asLibevent) == -1)
                #expect(errno == ENOENT)
            }
            // Edge-triggered interest is never taken as unchanged.
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_ADD), fd, Self.readable | LAYOUTD_EPOLLET, 7, 1) == 0)
            #expect(layoutd_test_epoll_del_directly(epfd, fd) == 0)
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_MOD), fd, Self.readable | LAYOUTD_EPOLLET, 7, 1) == -1)
        }
    }

    @Test("a closed descriptor's interest is forgotten: its number reused is the kernel's to answer")
    func closeForgetsInterest() throws {
        try Self.withRegisteredPipe { epfd, fd in
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_ADD), fd, Self.readable, UInt64(fd), 1) == 0)
            close(fd)  // the kernel drops the registration with the last reference
            // Whatever the number is now (free: EBADF; reused by another test's file: ENOENT, it
            // is not in this epoll instance), the kernel refuses the MOD; remembered, it would
            // have been answered with success.
            #expect(layoutd_test_epoll_ctl(epfd, Int32(LAYOUTD_EPOLL_CTL_MOD), fd, Self.readable, UInt64(fd), 1) == -1)
        }
    }

    @Test("waiting bytes are the kernel's for every caller but libevent, past 4,096 too; errors are the kernel's")
    func bytesReadableOutsideLibevent() throws {
        // A pipe: FIONREAD answers for it as for a socket (a socketpair here made a clean build of
        // this target fail, now and then, to find SOCK_STREAM elsewhere in it).
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var count: Int32 = -1
        #expect(layoutd_test_bytes_readable(readEnd, &count) == 0)
        #expect(count == 0)
        for (size, total) in [(10, 10), (5_000, 5_010)] {
            let bytes = [UInt8](repeating: 7, count: size)
            #expect(bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress, size) } == size)
            #expect(layoutd_test_bytes_readable(readEnd, &count) == 0)
            #expect(count == Int32(total))
        }
        errno = 0
        #expect(layoutd_test_bytes_readable(-1, &count) == -1)
        #expect(errno == EBADF)
    }
}
