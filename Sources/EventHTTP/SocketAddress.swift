// CLibevent too: its headers include <sys/socket.h> before Glibc's module map gets to it, and
// in a release (whole-module) build `SOCK_STREAM` is then only found through CLibevent.
import CLibevent
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved IPv4 or IPv6 socket address.
struct SocketAddress {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    var family: Int32 { Int32(storage.ss_family) }

    /// The port, in host byte order.
    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET
                ? Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
                : Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
        }
    }

    /// Resolves `host` for a passive TCP socket; the first address found wins.
    static func resolve(host: String, port: Int) throws -> SocketAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            let message = status == 0 ? "no address found" : String(cString: gai_strerror(status))
            throw HTTPServerError.cannotResolve(host: host, detail: message)
        }
        defer { freeaddrinfo(result) }
        var address = SocketAddress()
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            if (info.pointee.ai_family == AF_INET || info.pointee.ai_family == AF_INET6),
               let sa = info.pointee.ai_addr, Int(info.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                withUnsafeMutableBytes(of: &address.storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(info.pointee.ai_addrlen)))
                }
                address.length = info.pointee.ai_addrlen
                return address
            }
            entry = info.pointee.ai_next
        }
        throw HTTPServerError.cannotResolve(host: host, detail: "no IPv4 or IPv6 address")
    }

    /// The same address with another port.
    func withPort(_ port: Int) -> SocketAddress {
        var copy = self
        let networkPort = UInt16(truncatingIfNeeded: port).bigEndian
        withUnsafeMutableBytes(of: &copy.storage) { raw in
            if family == AF_INET {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = networkPort
            } else {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = networkPort
            }
        }
        return copy
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, Int32) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: storage) { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), Int32(length))
        }
    }

    /// The local port a bound socket ended up on (what port 0 turned into).
    static func localPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) == 0
        }
        guard ok else { return nil }
        return withUnsafeBytes(of: storage) { raw -> Int? in
            switch Int32(storage.ss_family) {
            case AF_INET: return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
            case AF_INET6: return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            default: return nil
            }
        }
    }
}
