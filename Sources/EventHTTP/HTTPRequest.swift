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

/// ASCII case-insensitive equality, without allocating.
@inlinable
public func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }  // O(1) for native strings
    var ia = a.utf8.makeIterator()
    var ib = b.utf8.makeIterator()
    while true {
        switch (ia.next(), ib.next()) {
        case (nil, nil):
            return true
        case let (ca?, cb?):
            if ca == cb { continue }
            let la = (ca >= 65 && ca <= 90) ? ca | 0x20 : ca
            let lb = (cb >= 65 && cb <= 90) ? cb | 0x20 : cb
            if la != lb { return false }
        default:
            return false
        }
    }
}

/// Decodes `%XX` escapes (and `+` as a space when asked). Malformed escapes are kept as written;
/// bytes that do not form UTF-8 become U+FFFD.
public func percentDecode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String {
    let utf8 = text.utf8
    // Most texts have nothing to decode (every request path goes through here): a byte search
    // for each of the two characters over the contiguous bytes (through the view's iterator it
    // cost ~25 instructions a byte).
    func contains(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
    guard contains(UInt8(ascii: "%")) || (plusAsSpace && contains(UInt8(ascii: "+"))) else {
        return String(text)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var index = utf8.startIndex
    while index != utf8.endIndex {
        let byte = utf8[index]
        if byte == UInt8(ascii: "%") {
            let first = utf8.index(after: index)
            if first != utf8.endIndex {
                let second = utf8.index(after: first)
                if second != utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second]) {
                    bytes.append(high << 4 | low)
                    index = utf8.index(after: second)
                    continue
                }
            }
            bytes.append(byte)
        } else if plusAsSpace && byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(byte)
        }
        index = utf8.index(after: index)
    }
    return String(decoding: bytes, as: UTF8.self)
}

@inline(__always)
private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}
