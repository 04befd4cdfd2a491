import Primitives

/// One HTTP request, fully received, as plain Swift values.
///
/// The server builds it from libevent's `evhttp_request` on the worker thread that owns the
/// connection and hands it to the ``HTTPHandler``; nothing in it refers back to libevent.
public struct HTTPRequest: Sendable {
    /// The request method as sent: `"GET"`, `"HEAD"`, `"POST"`, `"PUT"`, `"PATCH"`, `"DELETE"` or `"OPTIONS"`.
    public var method: String
    /// The path with percent-escapes decoded (`/v1/sessions/a%20b` → `/v1/sessions/a b`). Never empty: `/` at least.
    public var path: String
    /// The path exactly as sent, still percent-encoded.
    public var rawPath: String
    /// The raw query string without the leading `?` (`""` when there is none). See ``queryItems``.
    public var query: String
    /// Request headers in the order received. Names keep the client's spelling.
    public var headers: [(name: String, value: String)]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// The peer's numeric address (`"127.0.0.1"`, `"::1"`), or `""` when unknown.
    public var remoteAddress: String
    /// The peer's port, or 0 when unknown.
    public var remotePort: Int

    public init(
        method: String,
        path: String,
        query: String = "",
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        rawPath: String? = nil,
        remoteAddress: String = "",
        remotePort: Int = 0
    ) {
        self.method = method
        self.path = path
        self.rawPath = rawPath ?? path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }

    /// The value of the first header called `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        for header in headers where asciiCaseInsensitiveEquals(header.name, name) {
            return header.value
        }
        return nil
    }

    /// Every value of the headers called `name` (case-insensitive), in order.
    public func headers(named name: String) -> [String] {
        headers.filter { asciiCaseInsensitiveEquals($0.name, name) }.map(\.value)
    }

    /// The query parameters in order, percent-decoded, `+` read as a space. A parameter written
    /// without `=` (`?verbose`) has a `nil` value instead of failing the whole parse.
    public var queryItems: [(name: String, value: String?)] {
        guard !query.isEmpty else { return [] }
        var items: [(name: String, value: String?)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: "=") {
                let name = percentDecode(part[..<eq], plusAsSpace: true)
                let value = percentDecode(part[part.index(after: eq)...], plusAsSpace: true)
                items.append((name, value))
            } else {
                items.append((percentDecode(part, plusAsSpace: true), nil))
            }
        }
        return items
    }

    /// The value of the first query parameter called `name` (`""` for `?name` without `=`), or nil when absent.
    public func queryValue(_ name: String) -> String? {
        for item in queryItems where item.name == name {
            return item.value ?? ""
        }
        return nil
    }
}
