import EventHTTP
import Foundation
import LayoutAPI
import Logging
import PostgresStorage
import Primitives
import SQLiteStorage
import Storage

/// What `Serve.run` sets up besides the server: the session store and the server's settings.
extension Serve {
    /// The session store `settings` name, opened; nil for `memory`. Opening reads the file's
    /// header and schema, never its sessions (it takes milliseconds with 100,000 of them); a
    /// corrupt or truncated file throws `StorageError.corrupt` naming it, and so does a count
    /// that cannot be read.
    ///
    /// PostgreSQL: a server that cannot be reached does not stop the start (a node behind a load
    /// balancer comes up and answers 503 with Retry-After to what needs the store, so the
    /// balancer sees it not ready rather than absent, and it serves as soon as the database is
    /// back, with nobody to restart it): a warning says so. A database this layoutd must not use
    /// (a newer schema, foreign tables) does stop it.
    static func openStorage(_ settings: DaemonConfiguration, logger: Logger) throws(StorageError) -> (any SessionStorage)? {
        if case .postgres(let url)? = settings.storeLocation {
            // One connection for each thread that may call the store at once: the offload threads
            // (writes, loads), the workers (none, but a stray call must not wait), the sweeper.
            let threads = Self.serverConfiguration(settings, log: nil)
            let storage = try PostgresSessionStorage(url: url, sync: settings.syncValue,
                                                     poolSize: threads.effectiveOffloadThreads + threads.effectiveThreads + 1)
            if let problem = storage.startupProblem {
                logger.warning("the session store is not reachable yet (\(problem)); serving anyway: requests that need it answer 503 until it is")
            }
            return storage
        }
        guard case .sqlite(let path)? = settings.storeLocation else { return nil }
        let storage = try SQLiteSessionStorage(path: path, sync: settings.syncValue)
        do throws(StorageError) {
            _ = try storage.count()
        } catch {
            storage.close()
            throw error
        }
        return storage
    }

    /// With a SQLite store, an exclusive lock on `<db>.lock` (beside the file the path resolves
    /// to), held for the life of the process: two daemons on one file would each serve their own
    /// copies of its sessions and overwrite each other's acknowledged changes (issue 27, item 3),
    /// so the second one stops with a message naming the file and the holder's pid. Taken before
    /// the file is opened (opening may create it or its tables). `layoutd store check|compact` do
    /// not take it: they are made to run beside the daemon (their writes are fenced like its own).
    /// Nil for memory and PostgreSQL.
    static func lockStore(_ settings: DaemonConfiguration) throws(StoreLockError) -> LockFile? {
        guard case .sqlite(let path)? = settings.storeLocation else { return nil }
        // The directory as SQLiteSessionStorage would make it; a failure is its to report.
        let directory = (path as NSString).deletingLastPathComponent
        // 0700, as SQLiteSessionStorage makes it: the sessions are tenants' documents (issue 33).
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        var base = path
        if let resolved = realpath(path, nil) {
            base = String(cString: resolved)
            free(resolved)
        }
        let lockPath = base + ".lock"
        do throws(LockFile.Failure) {
            return try LockFile.acquire(lockPath)
        } catch .held(let holder) {
            let who = holder.map { "process \($0)" } ?? "another process"
            throw StoreLockError(message: "the session store \(path) is in use by another layoutd: \(who) holds its lock file "
                                 + "\(lockPath) (one daemon per store file)")
        } catch {
            throw StoreLockError(message: "cannot lock the session store \(path): its lock file \(lockPath): \(error.detail ?? "")")
        }
    }

    /// With a session store, every request that may wait for it runs on an offload thread (issue
    /// 28: an event loop never waits for a store). Such a request spends its time waiting for a
    /// commit or a round trip, not computing: more of them than CPUs let concurrent writes of
    /// different sessions share one commit (SQLite's group commit: one transaction and one fsync)
    /// or run side by side on the PostgreSQL pool, and one stalled store call does not hold up
    /// every other session's write or wake.
    /// Only where a write waits: on a PostgreSQL round trip, or on SQLite's fsync with `sync
    /// always`. With SQLite `everysec`/`never` a commit is a write to the operating system (tens
    /// of microseconds), and more threads only cost hand-offs: 143 against 114 µs per request
    /// under load.py (scripts/bench-load, paired), where `always` gains from the shared fsync.
    static let storeOffloadThreads = 8

    static func storeWritesWait(_ settings: DaemonConfiguration) -> Bool {
        switch settings.storeLocation {
        case .postgres?: return true
        case .sqlite?: return settings.syncValue == .always
        default: return false
        }
    }

    func serverConfiguration(_ settings: DaemonConfiguration, logger: Logger) -> HTTPServerConfiguration {
        Self.serverConfiguration(settings, log: { level, message in
            switch level {
            case .info: logger.info("\(message)")
            case .warning: logger.warning("\(message)")
            case .error: logger.error("\(message)")
            }
        })
    }

    static func serverConfiguration(_ settings: DaemonConfiguration,
                                    log: (@Sendable (HTTPServerLogLevel, String) -> Void)?) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.host = settings.host
        configuration.port = settings.port
        configuration.threads = settings.threads
        configuration.backlog = settings.backlog
        configuration.timeoutSeconds = settings.timeoutSeconds
        configuration.requestDeadlineSeconds = settings.requestDeadlineSeconds
        configuration.maxConnections = settings.maxConnections
        configuration.maxBodyBytes = settings.transportMaxBodyBytes
        configuration.maxHeaderBytes = settings.maxHeaderBytes
        configuration.shutdownGraceSeconds = settings.shutdownGraceSeconds
        configuration.defaultContentType = "application/json"
        configuration.lockDirectory = settings.lockDirectory
        configuration.lockName = "layoutd"
        configuration.handleSignals = true
        configuration.log = log
        if Self.storeWritesWait(settings) {
            configuration.offloadThreads = max(configuration.effectiveOffloadThreads, Self.storeOffloadThreads)
        }
        return configuration
    }
}

/// Drops idle sessions on a timer (`LayoutAPI.sweep()`), on a queue of its own so that no event
/// loop waits for it. Expiry also happens lazily when a session is looked up; the sweep frees the
/// memory of sessions nobody asks for any more.
final class SessionSweeper {
    private let timer: DispatchSourceTimer
    private let queue = DispatchQueue(label: "layoutd.session-sweep")
    private let api: LayoutAPI

    init(api: LayoutAPI, intervalSeconds: Double, logger: Logger) {
        self.api = api
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(max(10, Int((intervalSeconds * 1000).rounded())))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler {
            let dropped = api.sweep()
            if dropped > 0 { logger.debug("dropped \(dropped) idle session(s)") }
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops the timer and sweeps once more, so that the uses since the last sweep are recorded in
    /// the session store before it closes (a kill -9 loses at most one interval of them).
    func stop() {
        timer.cancel()
        queue.sync { _ = api.sweep() }
    }
}

func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Why `Serve.lockStore` could not take the store's lock: printed as is, exit status 1.
struct StoreLockError: Error {
    let message: String
}
