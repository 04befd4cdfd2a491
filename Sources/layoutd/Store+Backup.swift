import ArgumentParser
import Foundation
import JSON
import SQLiteStorage
import Storage

extension Store {
    /// `layoutd store backup DEST --store sqlite:PATH`: a consistent copy of a live SQLite store.
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a SQLite store, consistent as of one moment, while the daemon runs; print one JSON object.",
            discussion: """
                Uses SQLite's online backup API (one read transaction: the daemon keeps writing, and \
                every change acknowledged before the copy began is in it). The copy is written to \
                DEST.partial (mode 0600), synced and renamed to DEST; an existing DEST is refused. \
                Prints {"store", "ok", "destination", "sessions", "bytes", "seconds"}. A PostgreSQL \
                store is backed up with pg_dump (docs/operations.md): this command refuses it (exit 64).
                """)

        @Argument(help: ArgumentHelp("The backup file to create (it must not exist).", valueName: "DEST"))
        var destination: String

        @OptionGroup var location: Location

        func run() throws {
            // Said before anything is opened: no connection is made to a database we will not copy.
            if location.isPostgres {
                writeToStandardError("""
                    layoutd store backup: error: --store \(location.shown) is a PostgreSQL database: back it up with \
                    PostgreSQL's tools, e.g. pg_dump --format=custom --table='layoutd_*' --file=layoutd.dump DBNAME \
                    (restore with pg_restore; see docs/operations.md, "Backup and restore")

                    """)
                throw ExitCode(64)
            }
            guard location.sqlitePath != nil else {
                writeToStandardError("layoutd store backup: error: a memory store lives in its daemon's process: there is nothing to back up\n")
                throw ExitCode(64)
            }
            let started = Date()
            try location.run(destination: destination) { store throws(StorageError) in
                guard let sqlite = store as? SQLiteSessionStorage else { return ([], false) }
                let r = try sqlite.backup(to: destination)
                return ([("ok", .bool(true)), ("destination", .string(r.destination)),
                         ("sessions", .number(Double(r.sessions))), ("bytes", .number(Double(r.bytes))),
                         ("seconds", .number((Date().timeIntervalSince(started) * 1000).rounded() / 1000))],
                        true)
            }
        }
    }

    /// Exit status 1: the store (or a session in it) is damaged.
    static let damaged: Int32 = 1
    /// sysexits' EX_NOINPUT: the store cannot be opened or read.
    static let cannotOpen: Int32 = 66
    /// sysexits' EX_CANTCREAT: the backup cannot be written.
    static let cannotCreate: Int32 = 73
    /// sysexits' EX_TEMPFAIL: another process held a lock for the whole `--wait`.
    static let busy: Int32 = 75

    /// The exit status and the JSON `reason` for a store error: a script (a cron job) tells
    /// "damaged, page someone" from "locked, try again later" from "cannot open, look at the
    /// path or the server" by the status alone (issue 33: all three were 1).
    static func exitCode(for error: StorageError, destination: String?) -> (Int32, String) {
        if error.isSQLiteBusy { return (busy, "busy") }
        switch error {
        case .corrupt: return (damaged, "damaged")
        case .io(let path, _) where destination.map({ path.hasPrefix($0) || path == directory(of: $0) }) ?? false:
            return (cannotCreate, "cannot-write-backup")
        case .io, .unavailable, .conflict: return (cannotOpen, "cannot-open")
        }
    }

    /// The directory holding `path` (the backup's rename is synced there).
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
