import ArgumentParser
import Foundation
import JSON
import LayoutModel
import PostgresStorage
import SQLiteStorage
import Storage

/// `layoutd store check|compact|backup --store memory|sqlite:PATH|postgres://URL`: the session
/// store's operations (docs/operations.md). Safe while the daemon runs on the same SQLite file (WAL:
/// readers do not block the writer; compact's writes are fenced like the daemon's and wait for its
/// lock), and while nodes run on the same PostgreSQL database (check reads one snapshot; compact's
/// folds are fenced writes and its VACUUM takes no lock that stops them). So they do not take the
/// daemon's `PATH.lock` (`Serve.lockStore`): an operator checks or compacts a running daemon's file.
struct Store: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check, compact or back up a session store.",
        discussion: """
            --store memory|sqlite:PATH|postgres://URL names the store as the daemon's `store` setting does. \
            A memory store lives in its daemon's process: here it is always empty. A SQLite lock held by \
            the daemon is waited for (each statement up to 5 s, the whole command tried again for up to \
            --wait seconds).

            Exit status: 0 when the store is intact (check), compacted (compact) or copied (backup); \
            1 when it is damaged (corrupt, or a session's patches do not replay); 66 when it cannot be \
            opened or read (no such file, permissions, an unreachable database, a newer schema); 73 when \
            the backup cannot be written; 75 when it stayed locked by another process for --wait \
            seconds (try again later); 64 for a usage error.
            """,
        subcommands: [Check.self, Compact.self, Backup.self]
    )

    /// `--store` and `--wait`, shared by the subcommands.
    struct Location: ParsableArguments {
        @Option(help: ArgumentHelp("The store: memory, sqlite:PATH (a SQLite file) or postgres://URL (a PostgreSQL database).",
                                   valueName: "memory|sqlite:PATH|postgres://URL"))
        var store: String = "sqlite:data/layoutd.db"

        @Option(help: ArgumentHelp("How long to keep trying while another process holds a SQLite lock, in seconds (exit 75 after).",
                                   valueName: "seconds"))
        var wait: Double = 30

        var isPostgres: Bool { store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") }

        /// `store` as printed: its password, if any, hidden.
        var shown: String { redactedStoreURL(store) }

        func validate() throws {
            if isPostgres, let problem = PostgresSessionStorage.problem(url: store) {
                throw ValidationError("--store '\(shown)' is not a PostgreSQL URL libpq accepts: \(redactedStoreURL(problem))")
            }
            if store != "memory" && !isPostgres && !(store.hasPrefix("sqlite:") && store.count > "sqlite:".count) {
                throw ValidationError("--store must be memory, sqlite:PATH or postgres://URL, not '\(shown)'")
            }
            guard wait.isFinite, wait >= 0, wait <= 86_400 else {
                throw ValidationError("--wait must be a number of seconds from 0 to 86400, not \(wait)")
            }
        }

        var sqlitePath: String? { store.hasPrefix("sqlite:") ? String(store.dropFirst("sqlite:".count)) : nil }

        /// Opens the store, or throws why not (a failure to reach PostgreSQL is `unavailable`).
        func open() throws(StorageError) -> any SessionStorage {
            if isPostgres {
                // A database that cannot be reached is a failure here (the daemon would wait for it).
                let storage = try PostgresSessionStorage(url: store, sync: .always, poolSize: 1)
                guard let problem = storage.startupProblem else { return storage }
                storage.close()
                throw .unavailable(problem)
            }
            guard let path = sqlitePath else { return MemorySessionStorage() }
            // Checking must not create the store it checks.
            guard FileManager.default.fileExists(atPath: path) else { throw .io(path: path, detail: "no such file") }
            // `never`: these commands sync what they write when they close.
            return try SQLiteSessionStorage(path: path, sync: .never)
        }

        /// Opens the store, runs `body` on it and prints its JSON object (after `store`); while
        /// SQLite answers "busy" (another process held a lock past the 5 s busy timeout, or a
        /// lock SQLite does not wait for) the whole attempt, open included, is made again until
        /// `wait` seconds have passed. A failure prints `{"store", "ok": false, "reason", "error"}`
        /// and exits with its code (`Store.exitCode`).
        func run(destination: String? = nil, _ body: (any SessionStorage) throws(StorageError) -> (pairs: [(String, JSONValue)], ok: Bool)) throws {
            let deadline = Date().addingTimeInterval(wait)
            var pause = 0.05
            while true {
                let ok: Bool
                do throws(StorageError) {
                    let storage = try open()
                    defer { storage.close() }
                    let answer = try body(storage)
                    Store.emit([("store", .string(shown))] + answer.pairs)
                    ok = answer.ok
                } catch {
                    if error.isSQLiteBusy && Date().addingTimeInterval(pause) < deadline {
                        usleep(UInt32(pause * 1_000_000))
                        pause = min(pause * 2, 1)
                        continue
                    }
                    let (code, reason) = Store.exitCode(for: error, destination: destination)
                    Store.emit([("store", .string(shown)), ("ok", .bool(false)), ("reason", .string(reason)),
                                ("error", .string(redactedStoreURL(error.description)))])
                    throw ExitCode(code)
                }
                if !ok { throw ExitCode(Store.damaged) }
                return
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the store's integrity and print one JSON object: ok, problems, sessions, patches, bytes.",
            discussion: """
                Runs SQLite's quick_check (every page and index entry; seconds per gigabyte) and \
                checks every session's records (PostgreSQL: the records, in one snapshot). Prints {"store", "ok", "problems", "sessions", \
                "patches", "snapshotBytes", "fileBytes"}; exits 1 when anything is damaged (see `layoutd store --help` for the others).
                """)

        @OptionGroup var location: Location

        func run() throws {
            try location.run { store throws(StorageError) in
                let c = try store.check()
                return ([("ok", .bool(c.isIntact)), ("problems", .array(c.problems.map { .string($0) })),
                         ("sessions", .number(Double(c.sessions))), ("patches", .number(Double(c.patches))),
                         ("snapshotBytes", .number(Double(c.snapshotBytes))), ("fileBytes", .number(Double(c.fileBytes)))],
                        c.isIntact)
            }
        }
    }

    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fold every session's patches into a snapshot and give free space back; print one JSON object.",
            discussion: """
                Replays each session's patches on its snapshot as the API does (merge patch, then \
                the canonical form), writes the result as the new snapshot, then returns free \
                pages to the file system and empties the write-ahead log (PostgreSQL: VACUUM). Prints {"store", "ok", \
                "sessionsFolded", "patchesFolded", "failures", "fileBytesBefore", "fileBytesAfter"}.
                """)

        @OptionGroup var location: Location

        func run() throws {
            try location.run { store throws(StorageError) in
                let r = try store.compact(replay: Store.canonicalReplay)
                return ([("ok", .bool(r.failures.isEmpty)),
                         ("sessionsFolded", .number(Double(r.sessionsFolded))),
                         ("patchesFolded", .number(Double(r.patchesFolded))),
                         ("failures", .array(r.failures.map { .string($0) })),
                         ("fileBytesBefore", .number(Double(r.fileBytesBefore))),
                         ("fileBytesAfter", .number(Double(r.fileBytesAfter)))],
                        r.failures.isEmpty)
            }
        }
    }

    /// The API's rule for a PATCH (`DocumentParser.replay`: merge, then the canonical form).
    static let canonicalReplay: PatchReplay = { document, patches in
        try DocumentParser.replay(document, patches: patches.map(\.bytes))
    }

    /// Prints one JSON object on a line.
    static func emit(_ pairs: [(String, JSONValue)]) {
        print(JSONWriter.string(.object(JSONObject(pairs))))
    }
}
