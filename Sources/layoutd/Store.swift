import ArgumentParser
import Foundation
import JSON
import LayoutModel
import PostgresStorage
import SQLiteStorage
import Storage

/// `layoutd store check|compact --store memory|sqlite:PATH|postgres://URL`: the session store's
/// operations (docs/operations.md). Safe while the daemon runs on the same SQLite file (WAL: readers
/// do not block the writer; compact's writes are fenced like the daemon's and wait for its lock),
/// and while nodes run on the same PostgreSQL database (check reads one snapshot; compact's folds
/// are fenced writes and its VACUUM takes no lock that stops them). So they do not take the
/// daemon's `PATH.lock` (`Serve.lockStore`): an operator checks or compacts a running daemon's file.
struct Store: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check or compact a session store.",
        discussion: """
            --store memory|sqlite:PATH|postgres://URL names the store as the daemon's `store` setting does. \
            A memory store lives in its daemon's process: here it is always empty.

            Exit status: 0 when the store is intact (check) or compacted (compact); 1 when it is \
            corrupt, cannot be opened, or a session's patches do not replay; 64 for a usage error.
            """,
        subcommands: [Check.self, Compact.self]
    )

    /// `--store`, shared by both subcommands.
    struct Location: ParsableArguments {
        @Option(help: ArgumentHelp("The store: memory, sqlite:PATH (a SQLite file) or postgres://URL (a PostgreSQL database).",
                                   valueName: "memory|sqlite:PATH|postgres://URL"))
        var store: String = "sqlite:data/layoutd.db"

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
        }

        /// Opens the store; a failure is printed as one JSON object and exits 1.
        func open() throws -> any SessionStorage {
            if isPostgres {
                // A database that cannot be reached is a failure here (the daemon would wait for it).
                do {
                    let storage = try PostgresSessionStorage(url: store, sync: .always, poolSize: 1)
                    guard let problem = storage.startupProblem else { return storage }
                    storage.close()
                    Store.emit([("store", .string(shown)), ("ok", .bool(false)), ("error", .string(redactedStoreURL(problem)))])
                } catch {
                    Store.emit([("store", .string(shown)), ("ok", .bool(false)), ("error", .string(redactedStoreURL(error.description)))])
                }
                throw ExitCode.failure
            }
            guard store.hasPrefix("sqlite:") else { return MemorySessionStorage() }
            let path = String(store.dropFirst("sqlite:".count))
            // Checking must not create the store it checks.
            guard FileManager.default.fileExists(atPath: path) else {
                Store.emit([("store", .string(shown)), ("ok", .bool(false)), ("error", .string("\(path): no such file"))])
                throw ExitCode.failure
            }
            do {
                // `never`: these commands sync what they write when they close.
                return try SQLiteSessionStorage(path: path, sync: .never)
            } catch {
                Store.emit([("store", .string(shown)), ("ok", .bool(false)), ("error", .string(redactedStoreURL(error.description)))])
                throw ExitCode.failure
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the store's integrity and print one JSON object: ok, problems, sessions, patches, bytes.",
            discussion: """
                Runs SQLite's quick_check (every page and index entry; seconds per gigabyte) and \
                checks every session's records (PostgreSQL: the records, in one snapshot). Prints {"store", "ok", "problems", "sessions", \
                "patches", "snapshotBytes", "fileBytes"}; exits 1 when anything is wrong.
                """)

        @OptionGroup var location: Location

        func run() throws {
            let store = try location.open()
            defer { store.close() }
            do {
                let c = try store.check()
                Store.emit([("store", .string(location.shown)), ("ok", .bool(c.isIntact)),
                            ("problems", .array(c.problems.map { .string($0) })),
                            ("sessions", .number(Double(c.sessions))), ("patches", .number(Double(c.patches))),
                            ("snapshotBytes", .number(Double(c.snapshotBytes))), ("fileBytes", .number(Double(c.fileBytes)))])
                if !c.isIntact { throw ExitCode.failure }
            } catch let error as StorageError {
                Store.emit([("store", .string(location.shown)), ("ok", .bool(false)), ("error", .string(redactedStoreURL(error.description)))])
                throw ExitCode.failure
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
            let store = try location.open()
            defer { store.close() }
            do {
                let r = try store.compact(replay: Store.canonicalReplay)
                Store.emit([("store", .string(location.shown)), ("ok", .bool(r.failures.isEmpty)),
                            ("sessionsFolded", .number(Double(r.sessionsFolded))),
                            ("patchesFolded", .number(Double(r.patchesFolded))),
                            ("failures", .array(r.failures.map { .string($0) })),
                            ("fileBytesBefore", .number(Double(r.fileBytesBefore))),
                            ("fileBytesAfter", .number(Double(r.fileBytesAfter)))])
                if !r.failures.isEmpty { throw ExitCode.failure }
            } catch let error as StorageError {
                Store.emit([("store", .string(location.shown)), ("ok", .bool(false)), ("error", .string(redactedStoreURL(error.description)))])
                throw ExitCode.failure
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
