import Access
import ArgumentParser
import Foundation

/// `layoutd keys new|list|revoke --file FILE`: the keys file that `serve --api-keys FILE` reads
/// (docs/operations.md "API keys"). The file holds SHA-256 hashes of keys, never keys: `new`
/// prints its key once, and nothing can show it again.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make, list or revoke the API keys of a keys file.",
        discussion: """
            The keys file holds one key a line: NAME tenant=T sha256=HEX [read-only] [metrics] \
            [max-sessions=N] [rate=R]; lines starting with # are comments. A daemon started with \
            --api-keys FILE reads it again within a second of a change and on SIGHUP.

            Exit status: 0 on success; 1 when revoke finds no such key or the file cannot be \
            written; 64 for a usage error, an invalid value, a name already in the file, or a \
            malformed file (the message names FILE:LINE).
            """,
        subcommands: [New.self, List.self, Revoke.self]
    )

    struct FileOption: ParsableArguments {
        @Option(help: ArgumentHelp("The keys file.", valueName: "FILE"))
        var file: String
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key, append its record to FILE (created with mode 0600), and print the key once.",
            discussion: """
                The key is the last line of standard output; only its SHA-256 is written to FILE, \
                so store the key now. A short note goes to standard error.
                """)

        @Argument(help: "The key's name: 1 to 64 of letters, digits, '.', '_' and '-'.")
        var name: String

        @OptionGroup var location: FileOption

        @Option(help: ArgumentHelp("The tenant whose sessions the key reaches (default: NAME): 1 to 64 of letters, digits, '_' and '-'.",
                                   valueName: "T"))
        var tenant: String?

        @Flag(help: "Reads only: GET, HEAD, events and render.")
        var readOnly = false

        @Flag(help: "May read /metrics.")
        var metrics = false

        @Option(help: ArgumentHelp("The most sessions the key's tenant may hold (1 to 1000000000).", valueName: "N"))
        var maxSessions: String?

        @Option(help: ArgumentHelp("Requests a second, with a burst of as many (above 0, at most 1000000).", valueName: "R"))
        var rate: String?

        func validate() throws {
            if let problem = KeyFile.problem(name: name) { throw ValidationError("NAME: \(problem)") }
            if let problem = KeyFile.problem(tenant: tenant ?? name) {
                throw ValidationError(tenant == nil ? "NAME is also the tenant unless --tenant is given: \(problem)" : "--tenant: \(problem)")
            }
            if let maxSessions, case .failure(let p) = KeyFile.maxSessions(Substring(maxSessions)) { throw ValidationError("--max-sessions: \(p)") }
            if let rate, case .failure(let p) = KeyFile.rate(Substring(rate)) { throw ValidationError("--rate: \(p)") }
        }

        func run() throws {
            let path = location.file
            Keys.warnIfShared(path)
            let key = APIKeys.generate()
            let record = APIKeyRecord(
                name: name, tenant: tenant ?? name, digest: APIKeys.digest(of: key), readOnly: readOnly, metrics: metrics,
                maxSessions: try maxSessions.map { try KeyFile.maxSessions(Substring($0)).get() },
                rate: try rate.map { try KeyFile.rate(Substring($0)).get() })
            try Keys.perform { () throws(KeyFileEditError) in try KeyFile.append(record, to: path) }
            writeToStandardError("layoutd keys: added key '\(record.name)' (tenant \(record.tenant)) to \(path); "
                                 + "it is printed once, below, and cannot be shown again\n")
            print(key)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one line per key: name, tenant, flags and limits (never a hash).")

        @OptionGroup var location: FileOption

        func run() throws {
            let path = location.file
            let records: [APIKeyRecord]
            do throws(KeyFileError) {
                records = try KeyFile.load(path: path)
            } catch {
                writeToStandardError("layoutd keys: \(error)\n")
                throw ExitCode(error.line > 0 ? 64 : 1)
            }
            for record in records {
                print(([record.name, "tenant=\(record.tenant)"] + KeyFile.describe(record)).joined(separator: " "))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the key NAME from FILE (rewritten whole, other lines kept as they are).",
            discussion: """
                Daemons reading FILE stop accepting the key within a second, and the stream tokens \
                it issued with it.
                """)

        @Argument(help: "The name of the key to revoke.")
        var name: String

        @OptionGroup var location: FileOption

        func run() throws {
            let path = location.file
            try Keys.perform { () throws(KeyFileEditError) in try KeyFile.revoke(name: name, in: path) }
            writeToStandardError("layoutd keys: revoked key '\(name)' in \(path)\n")
        }
    }

    /// Runs an edit; a failure is printed and exits 64 (a malformed file, a name taken) or 1.
    static func perform(_ edit: () throws(KeyFileEditError) -> Void) throws {
        do {
            try edit()
        } catch {
            writeToStandardError("layoutd keys: \(error)\n")
            switch error {
            case .malformed, .nameTaken: throw ExitCode(64)
            case .notFound, .system: throw ExitCode.failure
            }
        }
    }

    /// A warning when an existing FILE may be read by others than its owner: hashes of keys are
    /// not keys, but the file also says which tenants and limits exist.
    static func warnIfShared(_ path: String) {
        var s = stat()
        guard stat(path, &s) == 0, s.st_mode & 0o077 != 0 else { return }
        writeToStandardError("layoutd keys: warning: \(path) has mode \(String(s.st_mode & 0o777, radix: 8)); "
                             + "`chmod 600 \(path)` keeps it to its owner\n")
    }
}
