#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock(2)` on one file, held until `release()` (or the process ends: the kernel
/// drops it with the last descriptor, so a crash leaves nothing stale behind; the file stays).
/// The holder's pid is written into the file for the next one's error message.
///
/// Used for the port lock (EventHTTP's `PortLock`, in a directory anyone may write, /tmp) and the
/// session store's lock (`<db>.lock`, one daemon per SQLite file). Why each step of `acquire`:
/// - `O_NOFOLLOW`: a planted symbolic link would make us truncate and write our pid into whatever
///   file it points at; such a lock file is refused (`ELOOP`).
/// - only a regular file with one link: a hard link or a FIFO planted under the name is refused the
///   same way (a FIFO would block the open, hence `O_NONBLOCK`, a no-op on regular files).
/// - the flock is the truth: the pid written in the file is only for the next one's message, so a
///   stale file naming some other live process does not stop us when the flock is free.
/// - nothing is truncated or written before the flock is held (no `O_TRUNC`).
/// - `O_CLOEXEC`: a child the process starts must not inherit (and so prolong) the lock.
public final class LockFile: @unchecked Sendable {
    public let path: String
    private var fd: Int32

    /// Why `acquire` failed.
    public enum Failure: Error, Equatable, Sendable {
        /// Another process holds the flock; `holder` is the pid it wrote, when readable.
        case held(holder: Int?)
        /// The path is a symbolic link, refused.
        case symbolicLink
        /// The path is not a regular file with one link (a hard link, a FIFO, a device, a directory).
        case notPlainFile
        /// The system refused to open or lock it (the error's text).
        case system(String)

        /// What is wrong with the lock file, as the end of a sentence about it; nil for `held`,
        /// which each caller words for what the lock protects.
        public var detail: String? {
            switch self {
            case .held: return nil
            case .symbolicLink: return "it is a symbolic link; refusing to follow it"
            case .notPlainFile: return "it is not a plain file (a link, a FIFO or a device?); refusing to use it"
            case .system(let text): return text
            }
        }
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the exclusive lock on `path` (made, mode 0644, when absent) without waiting.
    public static func acquire(_ path: String) throws(Failure) -> LockFile {
        let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd = open(path, O_RDWR | O_CREAT | flags, 0o644)
        if fd < 0 && (errno == EACCES || errno == EPERM) {
            // A lock file left by another user: flock works on a read-only descriptor too.
            fd = open(path, O_RDONLY | flags)
        }
        if fd < 0 {
            let code = errno
            throw code == ELOOP ? .symbolicLink : .system(String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            close(fd)
            throw .notPlainFile
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = readHolder(fd: fd)
            close(fd)
            if code == EWOULDBLOCK || code == EAGAIN { throw .held(holder: holder) }
            throw .system(String(cString: strerror(code)))
        }
        // Held: record our pid for the error message of the next one (best effort; whatever an
        // earlier, dead or foreign, holder wrote there is replaced).
        if ftruncate(fd, 0) == 0 {
            let text = "\(getpid())\n"
            _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        }
        return LockFile(path: path, fd: fd)
    }

    private static func readHolder(fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        // The pid and a newline; whatever else a foreign file holds reads as no pid.
        let text = buffer[0..<count].drop { $0 <= 0x20 }.reversed().drop { $0 <= 0x20 }.reversed()
        return Int(String(decoding: Array(text), as: UTF8.self))
    }

    /// Drops the lock (closing the descriptor drops the flock). Idempotent.
    public func release() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
