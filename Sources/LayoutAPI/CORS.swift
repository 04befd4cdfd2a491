import Primitives

/// Cross-origin resource sharing for the configured origins.
///
/// Each configured origin is `*` (any origin), an exact `scheme://host[:port]`, or a pattern with a
/// wildcard port, `scheme://host:*`, which allows that scheme and host on any port (a development
/// server whose port changes from run to run: `http://localhost:*`).
///
/// With no origins configured nothing is added. Otherwise every response gets `Vary: Origin`, and
/// a request whose `Origin` is allowed gets `Access-Control-Allow-Origin: <that origin>` and
/// `Access-Control-Expose-Headers`. A preflight (`OPTIONS` with `Access-Control-Request-Method`)
/// from an allowed origin also gets the route's methods, the request headers clients may send, and
/// a max age. A request from an origin that is not allowed (and is not the daemon's own) is
/// reported once per origin (`onRefused`), so that the operator learns which setting to change:
/// the browser only tells the page `Failed to fetch`.
public struct CORS: Sendable {
    let origins: Set<String>
    /// `scheme://host:` of each `scheme://host:*` pattern.
    let portPatterns: [String]
    let anyOrigin: Bool
    private let refusals: RefusedOrigins?

    public static let exposedHeaders = "ETag, Location, Server-Timing, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate"
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id, Last-Event-ID"
    static let maxAge = "600"

    /// `onRefused` is told of each distinct refused origin once (at most `RefusedOrigins.limit`).
    public init(origins: [String], onRefused: (@Sendable (String) -> Void)? = nil) {
        self.origins = Set(origins.filter { $0 != "*" && !$0.hasSuffix(":*") })
        self.portPatterns = origins.filter { $0.hasSuffix(":*") }.map { String($0.dropLast()) }
        self.anyOrigin = origins.contains("*")
        self.refusals = onRefused.map { RefusedOrigins(report: $0) }
    }

    public var isEnabled: Bool { anyOrigin || !origins.isEmpty || !portPatterns.isEmpty }

    /// Whether `origin` (an `Origin` header, as sent) is allowed.
    public func allows(_ origin: String) -> Bool {
        if anyOrigin || origins.contains(origin) { return true }
        for prefix in portPatterns {
            // `http://localhost:*` allows `http://localhost:5173`, and `http://localhost` (the
            // scheme's default port), never `http://localhost.evil` or `http://localhost:1x`.
            if origin == prefix.dropLast() { return true }
            guard origin.hasPrefix(prefix) else { continue }
            let port = origin.utf8.dropFirst(prefix.utf8.count)
            if (1...5).contains(port.count), port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        }
        return false
    }

    /// Whether `origin` is `pattern` exactly as `CORS` reads patterns: `*`, `scheme://host[:port]`,
    /// or `scheme://host:*`. A `*` anywhere else would never match an origin a browser sends.
    public static func isPattern(_ origin: String) -> Bool {
        if origin == "*" { return true }
        var bytes = Array(origin.utf8)
        if bytes.count > 2, bytes[bytes.count - 2] == UInt8(ascii: ":"), bytes[bytes.count - 1] == UInt8(ascii: "*") {
            bytes.removeLast(2)
        }
        guard let separator = schemeSeparator(bytes) else { return false }
        let scheme = bytes[..<separator]
        let authority = bytes[(separator + 3)...]
        guard let first = scheme.first, isLetter(first), scheme.allSatisfy(isSchemeByte) else { return false }
        // Printable ASCII, without the characters that would start a path, query or fragment, and
        // without `*` (a wildcard host would be read as that literal host).
        return !authority.isEmpty && authority.allSatisfy(isAuthorityByte)
    }

    /// Where `://` starts in `bytes`, if it does.
    private static func schemeSeparator(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 3 else { return nil }
        for i in 0...(bytes.count - 3)
        where bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/") && bytes[i + 2] == UInt8(ascii: "/") {
            return i
        }
        return nil
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        let lower = c | 0x20
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ c: UInt8) -> Bool {
        isLetter(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    private static func isAuthorityByte(_ c: UInt8) -> Bool {
        c > 0x20 && c < 0x7F && c != UInt8(ascii: "/") && c != UInt8(ascii: "?") && c != UInt8(ascii: "#")
            && c != UInt8(ascii: "*")
    }

    /// The headers for an answer the transport makes itself (a 413, 431 or 501 that never reaches
    /// the API): without them the page sees only `Failed to fetch`, never the status.
    public func transportHeaders(origin: String?) -> [(name: String, value: String)] {
        headers(origin: origin, allowed: origin.map(allows) ?? false, preflightMethods: nil)
    }

    /// Adds the headers for `request` to `response`; `route` is set for a preflight.
    func decorate(_ response: inout APIResponse, for request: APIRequest, preflight route: Route?) {
        let origin = request.header("Origin")
        let allowed = origin.map(allows) ?? false
        if let origin, !allowed, let refusals, !Self.isSameOrigin(origin, host: request.header("Host")) {
            refusals.note(origin)
        }
        let methods = request.header("Access-Control-Request-Method") != nil ? route?.allowHeader : nil
        for (name, value) in headers(origin: origin, allowed: allowed, preflightMethods: methods) {
            response.addHeader(name, value)
        }
    }

    /// The CORS headers of an answer: none when CORS is off, else `Vary: Origin`; for an allowed
    /// origin also `Access-Control-Allow-Origin` and either a preflight's methods, headers and max
    /// age (`preflightMethods`: the route's `Allow`) or the headers a page may read.
    private func headers(origin: String?, allowed: Bool, preflightMethods: String?) -> [(name: String, value: String)] {
        guard isEnabled else { return [] }
        guard let origin, allowed else { return [("Vary", "Origin")] }
        if let preflightMethods {
            return [("Vary", "Origin"), ("Access-Control-Allow-Origin", origin),
                    ("Access-Control-Allow-Methods", preflightMethods),
                    ("Access-Control-Allow-Headers", Self.allowedHeaders), ("Access-Control-Max-Age", Self.maxAge)]
        }
        return [("Vary", "Origin"), ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Expose-Headers", Self.exposedHeaders)]
    }

    /// Whether `origin` is the daemon's own (the playground's page): browsers send `Origin` on
    /// a same-origin POST too, and that is no refusal. Compared with the `Host` the request names.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        let bytes = Array(origin.utf8)
        guard let host, let separator = schemeSeparator(bytes) else { return false }
        return asciiCaseInsensitiveEquals(String(decoding: bytes[(separator + 3)...], as: UTF8.self), host)
    }
}

/// The origins already reported as refused, so that each is logged once, not once per request. A
/// page on an origin nobody configured can send many; a hostile client can send many origins:
/// after `limit` distinct ones nothing more is reported.
final class RefusedOrigins: Sendable {
    static let limit = 64
    private let seen = Locked<Set<String>>([])
    private let report: @Sendable (String) -> Void

    init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    func note(_ origin: String) {
        let first = seen.withLock { s -> Bool in
            guard s.count < Self.limit, !s.contains(origin) else { return false }
            s.insert(origin)
            return true
        }
        if first { report(origin) }
    }
}
