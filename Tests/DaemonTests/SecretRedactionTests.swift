import Foundation
import Testing
import TestSupport

/// Issue 27 item 9: a PostgreSQL password (`user:pass@`, `?password=`) appeared in the start-up
/// log line and in `layoutd store check|compact` output.
@Suite("layoutd: a store password never reaches a log line or an output")
struct SecretRedactionTests {
    static let secret = "s3cret-pw"

    /// A URL with the password twice over, to a port where nothing listens.
    static func unreachableURL() throws -> String {
        "postgres://layoutd:\(secret)@127.0.0.1:\(try freeLoopbackPort())/layoutd?password=\(secret)&connect_timeout=1"
    }

    @Test("the start-up lines, --print-config and store check|compact show user:***@ and password=***")
    func unreachableServer() throws {
        let url = try Self.unreachableURL()
        let daemon = try Daemon(["--store", url])
        #expect(eventually(timeout: 20) { daemon.stderr.contains("serving with") }, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("store postgres://layoutd:***@127.0.0.1"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("password=***"))
        #expect(!daemon.stderr.contains(Self.secret), "\(daemon.stderr)")
        daemon.stop()

        let printed = try LayoutdBinary.run(["serve", "--print-config", "--store", url], environment: OperatorSettingsTests.environment())
        #expect(printed.status == 0 && printed.stdout.contains("layoutd:***@") && !printed.stdout.contains(Self.secret))
        for command in ["check", "compact"] {
            let r = try LayoutdBinary.run(["store", command, "--store", url])
            #expect(r.status == 66 && r.stdout.contains(#""ok":false"#), "\(command): \(r.stdout) \(r.stderr)")
            #expect(!(r.stdout + r.stderr).contains(Self.secret), "\(command): \(r.stdout) \(r.stderr)")
        }
        // A URL libpq refuses, and a variable that is not a store at all: the messages redact too.
        let refused = try LayoutdBinary.run(["serve", "--print-config"], environment: OperatorSettingsTests.environment(
            ["LAYOUTD_STORE": "postgres://u:\(Self.secret)@h/db?no_such_option=1"]))
        #expect(refused.status == 64 && !refused.stderr.contains(Self.secret) && refused.stderr.contains("u:***@"), "\(refused.stderr)")
        let conninfo = try LayoutdBinary.run(["serve", "--print-config", "--store", "host=h password=\(Self.secret)"],
                                             environment: OperatorSettingsTests.environment())
        #expect(conninfo.status == 64 && !conninfo.stderr.contains(Self.secret) && conninfo.stderr.contains("--store host=h password=***"),
                "\(conninfo.stderr)")
    }

    @Test("store check on a real database with user:password@ (trust authentication takes it) prints no password",
          .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil, "LAYOUTD_TEST_POSTGRES is not set (scripts/test sets it)"))
    func realDatabase() throws {
        let base = try #require(ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"])
        let name = "layoutd_secret_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try PostgresStoreTests.PrivateServer.script("psql -q \"$1\" -c \"CREATE DATABASE $2\"", base, name)
        defer { _ = try? PostgresStoreTests.PrivateServer.script("psql -q \"$1\" -c \"DROP DATABASE $2 WITH (FORCE)\"", base, name) }
        // postgres://postgres@127.0.0.1:PORT/postgres → postgres://postgres:SECRET@127.0.0.1:PORT/NAME
        let withDatabase = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        let url = withDatabase.replacingOccurrences(of: "://postgres@", with: "://postgres:\(Self.secret)@")
        #expect(url.contains(Self.secret))
        for command in ["check", "compact"] {
            let r = try LayoutdBinary.run(["store", command, "--store", url])
            #expect(r.status == 0 && r.stdout.contains(#""ok":true"#), "\(command): \(r.stdout) \(r.stderr)")
            #expect(r.stdout.contains("postgres:***@") && !(r.stdout + r.stderr).contains(Self.secret), "\(command): \(r.stdout)")
        }
    }
}
