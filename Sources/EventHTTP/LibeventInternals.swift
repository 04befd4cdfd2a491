import CEventHTTPSupport
import CLibevent

/// Everything EventHTTP (and the daemon) takes from libevent beyond its documented API, in one
/// place, and the start-up check that it still holds.
///
/// What that is (CEventHTTPSupport's LibeventInternals.c, the only file that includes
/// `event2/http_struct.h`): fields of `struct evhttp_request` that have no getter (the request
/// line's version, the `chunked` flag, the body size, CONNECT's method), evhttp's callbacks on a
/// connection's bufferevent (the guard finds the `evhttp_connection` there), and replies finished
/// with `evhttp_send_reply_end` without `evhttp_send_reply_start`. Beside it, the daemon's
/// `evhttp_send_error` override (CProblemReplies: it defines a symbol for the whole process, so
/// only the `layoutd` executable links it; it reads the request through the same accessors).
///
/// The wrappers below are the only callers of those C functions in Swift. `startupCheck` is what
/// `layoutd serve` runs before it binds: the libevent version, then probes against real requests
/// on a private loopback server; when one does not hold the daemon exits 1 with the message,
/// rather than run on a struct layout or a linkage it was not written for.
public enum LibeventInternals {
    /// The libevent versions these internals were written for: 2.1.8 (the first stable 2.1) and
    /// any later 2.1 release. Tested with 2.1.12 (Debian 12, Ubuntu 22.04 and 24.04). 2.0 lays
    /// out `struct evhttp_request` differently; 2.2 changes evhttp (its error replies, the
    /// request's fields) and needs LibeventInternals.c reviewed before it is let in.
    public static let acceptedVersions: ClosedRange<UInt32> = 0x0201_0800...0x0201_FFFF
    /// How `acceptedVersions` reads in a message.
    public static let acceptedVersionsText = "libevent 2.1 (2.1.8 or later; tested with 2.1.12)"

    /// `event_get_version_number()`: the libevent loaded in this process.
    public static var loadedVersionNumber: UInt32 { event_get_version_number() }
    /// `LIBEVENT_VERSION_NUMBER` of the headers LibeventInternals.c was compiled against: the
    /// struct layout it assumes.
    public static var headerVersionNumber: UInt32 { UInt32(layoutd_libevent_header_version()) }
    /// `event_get_version()`: "2.1.12-stable".
    public static var loadedVersion: String { String(cString: event_get_version()) }

    /// "2.1.12" for 0x02010c00 (libevent numbers its versions 0xMMmmpp00).
    public static func versionText(_ number: UInt32) -> String {
        "\(number >> 24).\((number >> 16) & 0xFF).\((number >> 8) & 0xFF)"
    }

    /// Whether a libevent may be used with these internals.
    public enum VersionVerdict: Equatable, Sendable {
        case accepted
        /// Why not: names the version found and the versions accepted.
        case refused(String)
    }

    /// The verdict on the library loaded (`loaded`) and the headers compiled against
    /// (`compiledAgainst`): both must be in `acceptedVersions`.
    public static func judgeVersion(loaded: UInt32, compiledAgainst: UInt32) -> VersionVerdict {
        if !acceptedVersions.contains(compiledAgainst) {
            return .refused("""
                layoutd was compiled against the headers of libevent \(versionText(compiledAgainst)); its use of \
                libevent's internals (CEventHTTPSupport/LibeventInternals.c) was written for \(acceptedVersionsText)
                """)
        }
        if !acceptedVersions.contains(loaded) {
            return .refused("""
                the libevent loaded is \(versionText(loaded)) (compiled against \(versionText(compiledAgainst))); \
                layoutd's use of libevent's internals (CEventHTTPSupport/LibeventInternals.c) was written for \
                \(acceptedVersionsText)
                """)
        }
        return .accepted
    }

    // MARK: wrappers (the only Swift callers of LibeventInternals.c)

    /// The HTTP version of `req`'s request line (libevent refuses only a major version above 1).
    static func requestVersion(_ req: OpaquePointer) -> (major: Int, minor: Int) {
        var major: Int32 = 0, minor: Int32 = 0
        layoutd_request_version(req, &major, &minor)
        return (Int(major), Int(minor))
    }

    /// Makes `req`'s reply an HTTP/1.1 one and lets `Connection: close` close a CONNECT request's
    /// connection too (evhttp expects a tunnel). For replies that close.
    static func answerAsHTTP11(_ req: OpaquePointer) {
        layoutd_request_answer_as_http11(req)
    }

    /// The output buffer of `req`'s connection, where a whole reply is put before `finishReply`;
    /// nil when the connection is gone.
    static func replyOutput(_ req: OpaquePointer) -> OpaquePointer? {
        layoutd_reply_output(req)
    }

    /// Sends what `replyOutput(req)` holds, at once when the socket takes it, and lets evhttp
    /// finish the request (it frees `req`: not to be used after). True when it went out at once.
    @discardableResult
    static func finishReply(_ req: OpaquePointer, closeAfter: Bool) -> Bool {
        layoutd_reply_finish(req, closeAfter ? 1 : 0) != 0
    }

    /// The `evhttp_connection` whose callbacks `bev` carries, or nil when evhttp has given up on
    /// it (`bufferevent_free` cleared its callbacks).
    static func httpConnection(of bev: OpaquePointer) -> OpaquePointer? {
        var reading: Int32 = 0
        let connection = layoutd_bufferevent_http_connection(bev, &reading)
        return reading != 0 ? connection : nil
    }
}
