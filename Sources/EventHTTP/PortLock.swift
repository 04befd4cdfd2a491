import Primitives

/// An exclusive `flock(2)` on `<directory>/<name>-<port>.lock`, held while the server runs.
///
/// The listeners use `SO_REUSEPORT`, which would let a second server on the same port silently
/// take half of the connections. The lock makes the second one fail instead. It is keyed by port
/// only, because `SO_REUSEPORT` also lets `0.0.0.0:P` and `127.0.0.1:P` overlap. The file usually
/// lives in a directory anyone can write (`/tmp`), so another user may plant it first: `LockFile`
/// (Primitives) refuses symbolic links, hard links and FIFOs, and trusts the flock, not the pid.
final class PortLock {
    private let file: LockFile
    var path: String { file.path }

    private init(file: LockFile) { self.file = file }

    static func path(directory: String, name: String, port: Int) -> String {
        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return "\(dir)/\(name)-\(port).lock"
    }

    /// Takes the lock or throws ``HTTPServerError/portInUse(host:port:detail:)`` naming the holder.
    static func acquire(directory: String, name: String, host: String, port: Int) throws -> PortLock {
        let path = path(directory: directory, name: name, port: port)
        do throws(LockFile.Failure) {
            return PortLock(file: try LockFile.acquire(path))
        } catch .held(let holder) {
            let who = holder.map { "process \($0)" } ?? "another process"
            throw HTTPServerError.portInUse(
                host: host, port: port,
                detail: "another server is already using port \(port): \(who) holds the lock file \(path)")
        } catch {
            throw HTTPServerError.lockFailed(path: path, detail: error.detail ?? "")
        }
    }

    func release() { file.release() }
}
