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
    ///
    /// The lock file usually lives in a directory anyone can write (`/tmp`), so another user may
    /// plant it first. Why each step:
    /// - `O_NOFOLLOW`: a planted symbolic link would make us truncate and write our pid into
    ///   whatever file it points at; such a lock file is refused (`ELOOP`).
    /// - only a regular file with one link: a hard link or a FIFO planted under the name is refused
    ///   the same way (a FIFO would block the open, hence `O_NONBLOCK`, a no-op on regular files).
    /// - the flock is the truth: the pid written in the file is only for the next one's message,
    ///   so a stale file naming some other live process does not stop us when the flock is free.
    /// - nothing is truncated or written before the flock is held (no `O_TRUNC`).
    static func acquire(directory: String, name: String, host: String, port: Int) throws -> PortLock {
        let path = path(directory: directory, name: name, port: port)
        let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd = open(path, O_RDWR | O_CREAT | flags, 0o644)
        if fd < 0 && (errno == EACCES || errno == EPERM) {
            // A lock file left by another user: flock works on a read-only descriptor too.
            fd = open(path, O_RDONLY | flags)
        }
        if fd < 0 {
            let code = errno
            if code == ELOOP {
                throw HTTPServerError.lockFailed(path: path, detail: "it is a symbolic link; refusing to follow it")
            }
            throw HTTPServerError.lockFailed(path: path, detail: errnoDescription(code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            close(fd)
            throw HTTPServerError.lockFailed(path: path, detail: "it is not a plain file (a link, a FIFO or a device?); refusing to use it")
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
        // Held: record our pid for the error message of the next one (best effort; whatever an
        // earlier, dead or foreign, holder wrote there is replaced).
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
