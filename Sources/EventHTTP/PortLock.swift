#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock(2)` on `<directory>/<name>-<port>.lock`, held while the server runs.
///
/// The listeners use `SO_REUSEPORT`, which would let a second server on the same port silently
/// take half of the connections. The lock makes the second one fail instead. It is keyed by port
/// only, because `SO_REUSEPORT` also lets `0.0.0.0:P` and `127.0.0.1:P` overlap. The kernel drops
/// the lock when the process dies, so a crash leaves nothing stale behind; the file itself stays.
final class PortLock {
    let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    static func path(directory: String, name: String, port: Int) -> String {
        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return "\(dir)/\(name)-\(port).lock"
    }

    /// Takes the lock or throws ``HTTPServerError/portInUse(host:port:detail:)`` naming the holder.
    static func acquire(directory: String, name: String, host: String, port: Int) throws -> PortLock {
        let path = path(directory: directory, name: name, port: port)
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 && (errno == EACCES || errno == EPERM) {
            // A lock file left by another user: flock works on a read-only descriptor too.
            fd = open(path, O_RDONLY | O_CLOEXEC)
        }
        if fd < 0 {
            let code = errno
            throw HTTPServerError.lockFailed(path: path, detail: errnoDescription(code))
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = readHolder(fd: fd)
            close(fd)
            if code == EWOULDBLOCK || code == EAGAIN {
                let who = holder.map { "process \($0)" } ?? "another process"
                throw HTTPServerError.portInUse(
                    host: host, port: port,
                    detail: "another server is already using port \(port): \(who) holds the lock file \(path)")
            }
            throw HTTPServerError.lockFailed(path: path, detail: errnoDescription(code))
        }
        // Record our pid for the error message of the next one (best effort).
        if ftruncate(fd, 0) == 0 {
            let text = "\(getpid())\n"
            _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        }
        return PortLock(path: path, fd: fd)
    }

    private static func readHolder(fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int(text.trimmingWhitespace())
    }

    func release() {
        if fd >= 0 {
            close(fd)  // closing the descriptor drops the flock
            fd = -1
        }
    }

    deinit { release() }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
