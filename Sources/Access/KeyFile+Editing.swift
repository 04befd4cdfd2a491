#if canImport(Glibc)
import Glibc
#endif

/// Why an edit of the keys file (`layoutd keys new|revoke`) did not happen.
public enum KeyFileEditError: Error, CustomStringConvertible {
    /// The file is malformed: nothing is written to it.
    case malformed(KeyFileError)
    /// `new` of a name the file already holds.
    case nameTaken(String, path: String, line: Int)
    /// `revoke` of a name the file does not hold.
    case notFound(String, path: String)
    /// A system call failed.
    case system(String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .malformed(let e): return e.description
        case .nameTaken(let name, let path, let line): return "\(path):\(line): a key named '\(name)' is already there"
        case .notFound(let name, let path): return "\(path): no key named '\(name)'"
        case .system(let what, let path, let code): return "\(path): \(what): \(String(cString: strerror(code)))"
        }
    }
}

extension KeyFile {
    /// Appends `record`'s line to the file at `path`, created with mode 0600 when absent.
    ///
    /// Under an exclusive `flock`, so two `keys new` at once cannot both find a name free; the
    /// file is read again after the lock is held (through the same descriptor) and must still be
    /// the file at `path` (a `revoke` may have renamed a new one over it meanwhile).
    public static func append(_ record: APIKeyRecord, to path: String) throws(KeyFileEditError) {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .system("cannot open", path: path, errno: errno) }
            defer { close(fd) }
            guard flock(fd, LOCK_EX) == 0 else { throw .system("cannot lock", path: path, errno: errno) }
            guard isStill(fd, path) else { continue }
            let bytes: [UInt8]
            switch readAll(fd) {
            case .failure(let e): throw .system("cannot read", path: path, errno: e.code)
            case .success(let b): bytes = b
            }
            let numbered: [(line: Int, record: APIKeyRecord)]
            do throws(KeyFileError) {
                numbered = try numberedRecords(try decode(bytes, path: path), path: path)
            } catch {
                throw .malformed(error)
            }
            if let taken = numbered.first(where: { $0.record.name == record.name }) {
                throw .nameTaken(record.name, path: path, line: taken.line)
            }
            // A last line without its line feed (an editor's) would run into the new one.
            let separator = bytes.last.map { $0 == UInt8(ascii: "\n") ? "" : "\n" } ?? ""
            try write(fd, Array((separator + line(for: record) + "\n").utf8), path: path)
            guard fsync(fd) == 0 else { throw .system("cannot sync", path: path, errno: errno) }
            return
        }
    }

    /// Rewrites the file at `path` without the record named `name`, every other line (comments
    /// too) as it was: a new file with mode 0600 in the same directory, synced, then renamed over
    /// it, so a daemon reading it sees the old file or the new one, never half of one.
    public static func revoke(name: String, in path: String) throws(KeyFileEditError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("cannot open", path: path, errno: errno) }
        defer { close(fd) }
        // The lock `append` takes: a key added meanwhile is not lost by the rename.
        guard flock(fd, LOCK_EX) == 0 else { throw .system("cannot lock", path: path, errno: errno) }
        let text: String
        let numbered: [(line: Int, record: APIKeyRecord)]
        switch readAll(fd) {
        case .failure(let e): throw .system("cannot read", path: path, errno: e.code)
        case .success(let bytes):
            do throws(KeyFileError) {
                text = try decode(bytes, path: path)
                numbered = try numberedRecords(text, path: path)
            } catch {
                throw .malformed(error)
            }
        }
        guard let target = numbered.first(where: { $0.record.name == name }) else { throw .notFound(name, path: path) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.remove(at: target.line - 1)
        let rewritten = Array(lines.joined(separator: "\n").utf8)

        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(base).XXXXXX".utf8CString)
        let tmp = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // mode 0600
        guard tmp >= 0 else { throw .system("cannot create a file beside it", path: path, errno: errno) }
        let tmpPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var renamed = false
        defer {
            close(tmp)
            if !renamed { unlink(tmpPath) }
        }
        try write(tmp, rewritten, path: tmpPath)
        guard fchmod(tmp, 0o600) == 0, fsync(tmp) == 0 else { throw .system("cannot sync", path: tmpPath, errno: errno) }
        guard rename(tmpPath, path) == 0 else { throw .system("cannot rename \(tmpPath) over it", path: path, errno: errno) }
        renamed = true
        // The rename itself is durable once the directory is synced.
        let dirfd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    /// Whether `fd` is still the file at `path`.
    private static func isStill(_ fd: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8], path: String) throws(KeyFileEditError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("cannot write", path: path, errno: errno)
            }
            written += n
        }
    }
}
