import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's table of TCP sockets (`/proc/net/tcp`, `/proc/net/tcp6`), seen from the server's
/// side of a port: what a test waits on when the condition is "the server has read what I sent",
/// "the server has seen my close" or "the server no longer listens", which no HTTP answer shows.
enum LoopbackSockets {
    /// One socket: its ports, its TCP state and the bytes received but not yet read by its owner.
    struct Entry: Equatable {
        var localPort: Int
        var remotePort: Int
        var state: State
        var unreadBytes: Int
    }

    /// The states of `include/net/tcp_states.h` the tests look at.
    enum State: Equatable {
        case established, closeWait, listen, other(Int)

        init(code: Int) {
            switch code {
            case 0x01: self = .established
            case 0x08: self = .closeWait
            case 0x0A: self = .listen
            default: self = .other(code)
            }
        }
    }

    /// Every socket whose local port is `port`: the listener and the server's side of each
    /// connection to it (accepted or still in the backlog).
    static func serverSide(of port: Int) -> [Entry] {
        entries().filter { $0.localPort == port }
    }

    /// The server on `port` has read every byte its clients sent so far (and holds a connection).
    /// Only open connections count: a closed one's FIN is one byte the kernel counts as unread.
    static func allRead(port: Int) -> Bool {
        let connections = serverSide(of: port).filter { $0.state == .established }
        return !connections.isEmpty && connections.allSatisfy { $0.unreadBytes == 0 }
    }

    /// Something listens on `port`.
    static func isListening(port: Int) -> Bool {
        serverSide(of: port).contains { $0.state == .listen }
    }

    /// The server's connections on `port` that it has not closed yet (a closed one may linger
    /// in TIME_WAIT, owned by nobody).
    static func openConnections(port: Int) -> [Entry] {
        serverSide(of: port).filter { $0.state == .established || $0.state == .closeWait }
    }

    /// The whole of a /proc file. Not `String(contentsOfFile:)`: it reads as many bytes as the
    /// size the file claims, and /proc files claim one page or none, so sockets past the first
    /// few dozen went missing.
    static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Lines like `0: 0100007F:1F90 0100007F:C350 01 00000000:00000000 …`: local and remote
    /// address:port in hex, the state in hex, then the send and receive queues in hex.
    static func entries() -> [Entry] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { path -> [Entry] in
            guard let text = readAll(path) else { return [] }
            return text.split(separator: "\n").dropFirst().compactMap { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 4,
                      let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                      let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                      let state = Int(fields[3], radix: 16),
                      let unread = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { return nil }
                return Entry(localPort: local, remotePort: remote, state: State(code: state), unreadBytes: unread)
            }
        }
    }
}
