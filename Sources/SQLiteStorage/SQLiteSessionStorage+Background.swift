#if canImport(Glibc)
import Glibc
#endif
import Primitives
import Storage

extension SQLiteSessionStorage {
    /// The store's background thread, once a second until `close`: with `everysec`, fsyncs the log
    /// when something was committed since the last time; in every mode, a passive checkpoint
    /// (which waits for no writer and no writer waits for) on a connection of its own, so that
    /// copying the log into the file and its fsyncs stay off the requests' threads.
    static func background(_ shared: Shared, path: String, sync: StorageSync) {
        let lock = shared.lock
        let log = path + "-wal"
        // Without it (it could not be opened) the writer's automatic checkpoint still runs.
        let checkpointer = try? SQLiteConnection(path: path)
        try? checkpointer?.execute("PRAGMA synchronous = \(sync == .always ? "FULL" : "NORMAL")")
        defer { checkpointer?.close() }
        var checkpointed = 0
        // The log's inode when its directory entry was last synced: a log made anew (first write
        // after open, or after a close removed it) is only sure to survive a power loss once its
        // directory is synced too.
        var syncedLog: UInt64? = nil
        let directory = log.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        while true {
            let stopping = shared.timer.withLock {
                if !shared.stopping { shared.timer.wait(seconds: 1) }
                return shared.stopping
            }
            let counts: (commits: Int, synced: Int)? = lock.withLock {
                if stopping || shared.coordination.closed { return nil }
                return (shared.coordination.statistics.commits, shared.coordination.syncedCommits)
            }
            guard let counts else { return }
            if counts.commits != checkpointed, let checkpointer {
                checkpointer.checkpoint()
                checkpointed = counts.commits
            }
            guard sync == .everysec, counts.commits != counts.synced else { continue }
            let due = counts.commits
            // Any descriptor of the file syncs it (fsync applies to the file, not the descriptor);
            // absent means checkpointed and removed: nothing left to sync.
            let fd = open(log, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var ok = fdatasync(fd) == 0
            var info = stat()
            if fstat(fd, &info) == 0 && UInt64(info.st_ino) != syncedLog {
                let dir = open(directory.isEmpty ? (log.hasPrefix("/") ? "/" : ".") : directory, O_RDONLY | O_CLOEXEC)
                if dir >= 0 {
                    if fsync(dir) == 0 { syncedLog = UInt64(info.st_ino) } else { ok = false }
                    Glibc.close(dir)
                }
            }
            Glibc.close(fd)
            lock.withLock {
                if ok { shared.coordination.syncedCommits = due }
                shared.coordination.statistics.syncs += 1
            }
        }
    }
}
