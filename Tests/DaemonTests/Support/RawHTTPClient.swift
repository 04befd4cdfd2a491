#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One parsed HTTP/1.1 response.
struct RawHTTPResponse {
    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The status line exactly as received (`HTTP/1.1 200 OK`).
    var statusLine = ""

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A tiny blocking HTTP/1.1 client over one TCP connection (POSIX sockets), so that tests control
/// exactly what goes on the wire: keep-alive, HEAD framing, garbage, half-sent requests.
final class RawHTTPConnection {
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var sawEOF = false

    init(port: Int, host: String = "127.0.0.1", timeoutSeconds: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - timeoutSeconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestFailure("connect to \(host):\(port) failed: errno \(code)")
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// The port this end of the connection has (the server sees it as the remote port), nil once
    /// closed: how LoopbackSockets finds the server's side of this very connection.
    var localPort: Int? {
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { throw TestFailure("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Builds and sends one request (`Host` and, with a body, `Content-Length` added).
    func sendRequest(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
    }

    /// Sends one request and reads its response.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> RawHTTPResponse {
        try sendRequest(method, target, headers: headers, body: body)
        return try readResponse(forMethod: method)
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        if sawEOF { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { sawEOF = true; return false }
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { throw TestFailure("timed out waiting for the server") }
            if code == ECONNRESET { sawEOF = true; return false }
            throw TestFailure("recv failed: errno \(code)")
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<index])
                buffer.removeSubrange(...index)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw TestFailure("connection closed in the middle of a line") }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestFailure("connection closed before \(count) bytes arrived") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return bytes
    }

    /// Reads the status line and headers only (for streams).
    func readResponseHead() throws -> RawHTTPResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestFailure("bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestFailure("bad header line: \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].stripping(" \t")))
        }
        return RawHTTPResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [],
                               statusLine: statusLine)
    }

    /// Reads one complete response; `forMethod` tells whether a body can follow (not for HEAD).
    func readResponse(forMethod method: String = "GET") throws -> RawHTTPResponse {
        var response = try readResponseHead()
        let noBody = method == "HEAD" || response.status == 204 || response.status == 304 || (100..<200).contains(response.status)
        if noBody { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readBytes(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// The next chunk of a chunked body, or nil after the last (zero) chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0].stripping(" "), radix: 16) else {
            throw TestFailure("bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            // Trailers, then the blank line.
            while try !readLine().isEmpty {}
            return nil
        }
        let data = try readBytes(size)
        _ = try readLine()
        return data
    }

    /// Everything until the server closes the connection.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the server closed the connection (waits up to the socket timeout for more bytes).
    func serverClosed() -> Bool {
        if !buffer.isEmpty { return false }
        return (try? fill()) == false
    }
}

extension StringProtocol {
    func stripping(_ set: String) -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, set.unicodeScalars.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.unicodeScalars.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

/// A loopback port nothing listens on now (bound to port 0, read back, released).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    guard let port = bindLoopbackPort(fd) else { throw TestFailure("no free loopback port") }
    return port
}

/// Binds `fd` to 127.0.0.1 on a port the kernel picks; that port, or nil when binding failed.
func bindLoopbackPort(_ fd: Int32) -> Int? {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}
