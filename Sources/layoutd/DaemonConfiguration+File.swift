import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// Far more than every setting written out (about 1 KiB); a larger file is not a configuration.
    static let maxFileBytes = 1 << 20

    /// The bytes of the configuration file at `path`, refusing what is not one: a directory, a
    /// device (`LAYOUTD_CONFIG=/dev/zero` read for ever and then said "permission"), a pipe, a
    /// file over `maxFileBytes`. Each message names the file and says what it is.
    static func readConfigurationFile(_ path: String) throws -> Data {
        func failure(_ why: String) -> ConfigurationError { ConfigurationError("cannot read configuration file \(path): \(why)") }
        // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else { throw failure("it is \(fileKind(kind)), not a regular file") }
        guard Int(info.st_size) <= maxFileBytes else {
            throw failure("it is \(info.st_size) bytes long; a configuration file may be at most \(maxFileBytes) bytes")
        }
        // Read one byte past the limit: a file that grew since fstat is refused all the same.
        var bytes = [UInt8](repeating: 0, count: maxFileBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure(String(cString: strerror(errno))) }
            if n == 0 { break }
            count += n
        }
        guard count <= maxFileBytes else {
            throw failure("it is more than \(maxFileBytes) bytes long; a configuration file may be at most \(maxFileBytes) bytes")
        }
        return Data(bytes[..<count])
    }

    /// "a directory", "a character device"...: `S_IFMT` bits in words.
    static func fileKind(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "a file of another kind"
        }
    }
}
