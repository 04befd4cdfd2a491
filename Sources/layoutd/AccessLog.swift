import EventHTTP
import JSON
import LayoutAPI
import Logging
import Primitives

/// One log line per request, appended to the log sink's buffer (written out by its own thread):
///
///     text: 2026-11-26T15:36:49.123Z info access : GET /healthz 200 0.041ms id=5f0c6e1a9b2d4c70 client=10.1.2.3
///     json: {"time":"…","level":"info","logger":"access","method":"GET","path":"/healthz",
///            "status":200,"duration_ms":0.041,"bytes":27,"session":null,"request_id":"5f0c6e1a9b2d4c70",
///            "key":null,"client":"10.1.2.3"}
///
/// `client` is the peer's address, or the one a trusted proxy's `X-Forwarded-For` names
/// (`TrustedProxies`); then the proxy's own address follows as `peer`.
///
/// The duration is the time spent producing the answer (an offloaded answer's wait for a thread
/// included); the request id is the answer's `X-Request-Id` (the client's, or the one the API made;
/// the same id is in every problem body); `bytes` is the body's length (0 for a stream, whose line says `(stream)` in text and
/// `"stream":true` in JSON); `session` is the id in a `/v1/sessions/{id}` path.
enum AccessLog {
    static let label = "access"

    /// `respond` with a log line after each answer; `respond` itself when the log level drops
    /// `info` (then a request costs no clock reads and no line).
    static func wrap(_ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse, sink: LogSink,
                     level: Logger.Level, proxies: TrustedProxies = TrustedProxies([])) -> HTTPHandler {
        guard level <= .info else { return respond }
        return { request in
            let started = MonotonicTime.now
            let response = respond(request)
            if case .offloaded(let work) = response {
                // Logged when the work is done.
                return .offloaded { logged(work(), for: request, started: started, sink: sink, proxies: proxies) }
            }
            return logged(response, for: request, started: started, sink: sink, proxies: proxies)
        }
    }

    private static func logged(_ response: HTTPResponse, for request: HTTPRequest, started: MonotonicTime,
                               sink: LogSink, proxies: TrustedProxies) -> HTTPResponse {
        let elapsed = MonotonicTime.now - started
        let status = response.head?.status ?? 0
        var isStream = false
        if case .streamed = response { isStream = true }
        let bytes = response.body.count
        let requestID = response.head.flatMap(requestID(of:))
        let keyName = response.head?.logNote
        let path = shortenedSessionID(inPath: request.path)
        let peer = request.remoteAddress
        let client = proxies.blocks.isEmpty ? peer
            : proxies.client(peer: peer, forwardedFor: request.headers(named: "X-Forwarded-For"))
        sink.line(level: .info, label: label) { out in
            switch sink.format {
            case .text:
                appendEscapedText(request.method, to: &out)
                out.append(0x20)
                appendEscapedText(path, to: &out)
                out.append(0x20)
                appendDecimal(status, to: &out)
                if isStream { out.append(contentsOf: " (stream)".utf8) }
                out.append(0x20)
                appendMilliseconds(nanoseconds: elapsed, to: &out)
                out.append(contentsOf: "ms".utf8)
                if let requestID {
                    // Visible ASCII only (`RequestID.isValid`): nothing to escape.
                    out.append(contentsOf: " id=".utf8)
                    out.append(contentsOf: requestID.utf8)
                }
                if let keyName {
                    // A key's name is [A-Za-z0-9._-] (the keys file refuses others): nothing to escape.
                    out.append(contentsOf: " key=".utf8)
                    out.append(contentsOf: keyName.utf8)
                }
                if !client.isEmpty {
                    // A numeric address (the peer's, or one `AddressBlock` parsed): nothing to escape.
                    out.append(contentsOf: " client=".utf8)
                    out.append(contentsOf: client.utf8)
                    if client != peer {
                        out.append(contentsOf: " peer=".utf8)
                        out.append(contentsOf: peer.utf8)
                    }
                }
            case .json:
                out.append(contentsOf: #","method":"#.utf8)
                appendJSONString(request.method, to: &out)
                out.append(contentsOf: #","path":"#.utf8)
                appendJSONString(path, to: &out)
                out.append(contentsOf: #","status":"#.utf8)
                appendDecimal(status, to: &out)
                out.append(contentsOf: #","duration_ms":"#.utf8)
                appendMilliseconds(nanoseconds: elapsed, to: &out)
                out.append(contentsOf: #","bytes":"#.utf8)
                appendDecimal(bytes, to: &out)
                if isStream { out.append(contentsOf: #","stream":true"#.utf8) }
                out.append(contentsOf: #","session":"#.utf8)
                if let id = sessionID(inPath: path) {
                    appendJSONString(String(id), to: &out)
                } else {
                    out.append(contentsOf: "null".utf8)
                }
                out.append(contentsOf: #","request_id":"#.utf8)
                if let requestID { appendJSONString(requestID, to: &out) } else { out.append(contentsOf: "null".utf8) }
                out.append(contentsOf: #","key":"#.utf8)
                if let keyName { appendJSONString(keyName, to: &out) } else { out.append(contentsOf: "null".utf8) }
                out.append(contentsOf: #","client":"#.utf8)
                if client.isEmpty { out.append(contentsOf: "null".utf8) } else { appendJSONString(client, to: &out) }
                if client != peer {
                    out.append(contentsOf: #","peer":"#.utf8)
                    appendJSONString(peer, to: &out)
                }
            }
        }
        return response
    }

    /// The answer's `X-Request-Id`: the API adds it last, so the search starts from the end.
    static func requestID(of head: HTTPHead) -> String? {
        for header in head.headers.reversed() where asciiCaseInsensitiveEquals(header.name, RequestID.header) {
            return header.value
        }
        return nil
    }

    /// The `{id}` of `/v1/sessions/{id}` and the routes below it.
    static func sessionID(inPath path: String) -> Substring? {
        let prefix = "/v1/sessions/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        let id = rest.prefix { $0 != "/" }
        return id.isEmpty ? nil : id
    }

    /// How much of a session id a log line keeps: enough to tell sessions apart in an incident,
    /// not enough to use one (a server-chosen id is 32 hex digits; without keys, knowing an id
    /// is what it takes to read, replace or delete its session).
    static let loggedIDLength = 8

    /// `path` with the `{id}` of `/v1/sessions/{id}…` cut to `loggedIDLength` characters and `…`.
    /// On UTF-8 code units (a path is ASCII but for percent-decoding's leftovers): counting
    /// `Character`s cost about 1,500 instructions on every access line.
    static func shortenedSessionID(inPath path: String) -> String {
        let u = path.utf8
        let prefix = "/v1/sessions/".utf8
        guard u.count > prefix.count + loggedIDLength, u.starts(with: prefix) else { return path }
        let start = u.index(u.startIndex, offsetBy: prefix.count)
        let end = u[start...].firstIndex(of: UInt8(ascii: "/")) ?? u.endIndex
        guard u.distance(from: start, to: end) > loggedIDLength else { return path }
        var cut = u.index(start, offsetBy: loggedIDLength)
        // Never inside a multi-byte character.
        while cut > start && (u[cut] & 0xC0) == 0x80 { cut = u.index(before: cut) }
        var out = [UInt8]()
        out.reserveCapacity(u.count)
        out.append(contentsOf: u[..<cut])
        out.append(contentsOf: "…".utf8)
        out.append(contentsOf: u[end...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `1234567` ns → `1.235` (milliseconds, three decimals, as `Server-Timing` writes them).
    static func appendMilliseconds(nanoseconds: Int64, to out: inout [UInt8]) {
        let micros = UInt64((max(0, nanoseconds) + 500) / 1000)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let n = JSONChunk.writeMilliseconds(microseconds: micros, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// A status or byte count in decimal.
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            let n = JSONChunk.writeDecimal(UInt64(max(0, value)), to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
        }
    }
}
