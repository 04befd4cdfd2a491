import Primitives

/// The head of a complete reply (status line, header lines, blank line) as the bytes that go on
/// the wire, written by EventHTTP itself rather than by evhttp.
///
/// Why not evhttp's `evhttp_send_reply`: it keeps the headers as a list (three allocations per
/// header), looks names up in it five times with a case-insensitive compare per entry, and writes
/// each line with `printf`: about 16 K instructions a reply, more than the rest of HTTP costs a
/// request. evhttp still reads requests and owns connections; `Worker.send` puts these bytes and
/// the body in the connection's output buffer and lets evhttp finish the request
/// (`LibeventInternals.finishReply`, LibeventInternals.c).
///
/// What evhttp would have added is added here the same way: `Date`, `Content-Length` (also on
/// HEAD: the GET body's length), the default `Content-Type` when a body goes out without one,
/// and `Connection` (`close` when the client, the handler or a draining server ends the
/// connection; `keep-alive` to an HTTP/1.0 client that asked for it). Every answer also gets
/// `X-Content-Type-Options: nosniff`: a browser must take each body as its `Content-Type` says (a
/// JSON error echoing input is never run as a script or page).
final class ReplyHead {
    /// The request's side of the exchange.
    struct Request {
        var minorVersion: Int
        /// The request's `Connection` header said `close` / `keep-alive`.
        var asksClose: Bool
        var asksKeepAlive: Bool
        var isHead: Bool
    }

    /// The head's bytes (`count` of them), in memory reused from reply to reply: a head is copied
    /// into the connection's output buffer as soon as it is written.
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity = 1024
    /// Whether the connection closes after this reply (`Connection: close` was written).
    private(set) var closes = false
    /// Names of handler headers dropped for a CR or LF in them (header injection), for a log line.
    private(set) var dropped: [String] = []

    init() { storage = .allocate(capacity: capacity) }

    deinit { storage.deallocate() }

    /// Writes the head of a reply with `status` and the handler's `headers` to `request`.
    func write(status: Int, headers: [(name: String, value: String)], bodyLength: Int, request: Request,
               date: UnsafePointer<CChar>, draining: Bool, defaultContentType: String) {
        count = 0
        dropped.removeAll(keepingCapacity: true)
        put("HTTP/1.")
        putDecimal(request.minorVersion == 0 ? 0 : 1)
        put(" ")
        putDecimal(status)
        put(" ")
        put(HTTPResponse.reasonPhrase(for: status))
        put("\r\n")
        // The handler's headers, in one pass that notes which of those added below it gave itself.
        var hasDate = false, hasLength = false, hasType = false, hasNoSniff = false
        var connection: String? = nil
        for (name, value) in headers {
            if asciiCaseInsensitiveEquals(name, "Connection") {
                if connection == nil { connection = value }
                continue
            }
            guard putField(name, value) else {
                dropped.append(name)
                continue
            }
            if asciiCaseInsensitiveEquals(name, "Date") {
                hasDate = true
            } else if asciiCaseInsensitiveEquals(name, "Content-Length")
                        || asciiCaseInsensitiveEquals(name, "Transfer-Encoding") {
                hasLength = true
            } else if asciiCaseInsensitiveEquals(name, "Content-Type") {
                hasType = true
            } else if asciiCaseInsensitiveEquals(name, "X-Content-Type-Options") {
                hasNoSniff = true
            }
        }
        if !hasDate {
            put("Date: ")
            var p = date
            while p.pointee != 0 { append(UInt8(bitPattern: p.pointee)); p += 1 }
            put("\r\n")
        }
        let allowsBody = HTTPResponse.statusAllowsBody(status)
        if allowsBody && !hasLength {
            put("Content-Length: ")
            putDecimal(bodyLength)
            put("\r\n")
        }
        if !hasNoSniff { put("X-Content-Type-Options: nosniff\r\n") }
        if allowsBody && !request.isHead && !hasType {
            put("Content-Type: ")
            put(defaultContentType)
            put("\r\n")
        }
        if draining || request.asksClose {
            connection = "close"
        } else if connection == nil && request.minorVersion == 0 && request.asksKeepAlive {
            connection = "keep-alive"
        }
        if let connection {
            closes = asciiCaseInsensitiveEquals(connection, "close")
            put("Connection: ")
            put(connection)
            put("\r\n")
        } else {
            closes = false
        }
        put("\r\n")
    }

    /// Appends `name: value` and CRLF, unless either holds a CR or LF (it would end the line early:
    /// header injection); false then. Both are read in place (the handler's strings are native).
    private func putField(_ name: String, _ value: String) -> Bool {
        var name = name, value = value
        return name.withUTF8 { n in
            value.withUTF8 { v in
                guard !Self.hasLineBreak(n), !Self.hasLineBreak(v) else { return false }
                append(n)
                append(0x3A)  // ':'
                append(0x20)
                append(v)
                append(0x0D)
                append(0x0A)
                return true
            }
        }
    }

    private static func hasLineBreak(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in text where c == 0x0D || c == 0x0A { return true }
        return false
    }

    private func put(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    private func putDecimal(_ value: Int) {
        var digits = max(0, value), divisor = 1
        while digits >= 10 {
            digits /= 10
            divisor *= 10
        }
        while divisor > 0 {
            append(UInt8(48 + max(0, value) / divisor % 10))
            divisor /= 10
        }
    }

    @inline(__always)
    private func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    private func append(_ text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress, !text.isEmpty else { return }
        reserve(text.count)
        (storage + count).update(from: base, count: text.count)
        count += text.count
    }

    /// Room for `n` more bytes (a head with large handler headers grows the memory once).
    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { grow(n) }
    }

    private func grow(_ n: Int) {
        let grown = max(capacity * 2, count + n)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }
}
