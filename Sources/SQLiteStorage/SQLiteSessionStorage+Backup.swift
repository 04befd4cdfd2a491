#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Storage

/// What `backup(to:)` wrote.
public struct SQLiteBackupReport: Equatable, Sendable {
    public var destination: String
    public var sessions: Int
    public var bytes: Int
}

extension SQLiteSessionStorage {
    /// Copies the database into a new file at `destination`, consistent as of one moment, while
    /// the daemon keeps writing (SQLite's online backup API, in one step: one read transaction on
    /// the source, which in WAL mode does not block the writer; every commit made before it
    /// began, so every write acknowledged before, is in the copy).
    ///
    /// The copy is written to `destination.partial` (mode 0600), synced, then renamed into place
    /// and its directory synced: `destination` is either absent or a whole, durable backup. An
    /// existing `destination` is refused (`io`): a backup never overwrites a file.
    @discardableResult
    public func backup(to destination: String) throws(StorageError) -> SQLiteBackupReport {
        var info = stat()
        if stat(destination, &info) == 0 || errno != ENOENT {
            throw .io(path: destination, detail: "the backup's destination already exists (a backup never overwrites a file)")
        }
        let partial = destination + ".partial"
        unlink(partial)  // left by a backup that was killed
        let fd = open(partial, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .io(path: partial, detail: "cannot create the backup file: \(String(cString: strerror(errno)))")
        }
        Glibc.close(fd)
        do throws(StorageError) {
            try copy(into: partial)
            try Self.syncFile(partial)
            guard rename(partial, destination) == 0 else {
                throw StorageError.io(path: destination, detail: "cannot rename \(partial) to it: \(String(cString: strerror(errno)))")
            }
            try Self.syncFile(Self.directory(of: destination))
        } catch {
            unlink(partial)
            unlink(partial + "-journal")
            throw error
        }
        stat(destination, &info)
        let sessions = try Self.sessionCount(in: destination)
        return SQLiteBackupReport(destination: destination, sessions: sessions, bytes: Int(info.st_size))
    }

    /// The backup API from the read connection to the empty file at `partial`.
    private func copy(into partial: String) throws(StorageError) {
        if lock.withLock({ coordination.closed }) { throw StorageError.unavailable("the SQLite store \(path) is closed") }
        let target = try SQLiteConnection(path: partial)
        defer { target.close() }
        let outcome = reader.withLock { (c: inout SQLiteConnection) -> StorageError? in
            if c.closed { return .unavailable("the SQLite store \(path) is closed") }
            guard let backup = sqlite3_backup_init(target.handle, "main", c.handle, "main") else {
                return target.error(sqlite3_errcode(target.handle))
            }
            // -1: every page in one step, so one read transaction and one snapshot of the source
            // (in several steps, a write between them would make SQLite restart the copy).
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            if step != SQLITE_DONE {
                // A lock the busy timeout could not outwait is the source's; other failures say
                // which side they are about.
                let busy = step & 0xff == SQLITE_BUSY || step & 0xff == SQLITE_LOCKED
                return busy ? c.error(step) : target.error(step)
            }
            return finish == SQLITE_OK ? nil : target.error(finish)
        }
        if let outcome { throw outcome }
    }

    /// fsync of a file or directory.
    static func syncFile(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, detail: "cannot open it to sync: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw .io(path: path, detail: "fsync failed: \(String(cString: strerror(errno)))") }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The sessions in the backup file (read back: the copy opens and holds the tables).
    private static func sessionCount(in file: String) throws(StorageError) -> Int {
        let c = try SQLiteConnection(path: file)
        defer { c.close() }
        return try c.integer("SELECT count(*) FROM sessions")
    }
}
