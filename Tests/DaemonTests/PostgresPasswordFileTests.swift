import Foundation
import Testing
import TestSupport

/// Issue 33: a PostgreSQL password needs no place on the command line. libpq reads it from
/// `PGPASSFILE` (or `~/.pgpass`) when the URL has none; layoutd passes libpq no password of its
/// own, so that keeps working. Checked on a private server that asks for passwords on TCP.
@Suite("PostgreSQL password from PGPASSFILE, never on the command line",
       .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil,
                "LAYOUTD_TEST_POSTGRES is not set (scripts/test sets it)"))
struct PostgresPasswordFileTests {
    typealias Server = PostgresStoreTests.PrivateServer
    static let secret = "pw-\(UInt32.random(in: 0...UInt32.max))"

    @Test("store check and serve authenticate with the password file's entry; without it the server refuses (66), and no output shows it")
    func passwordFile() throws {
        let server = try Server()
        let port = String(server.port)
        _ = try Server.script(#"psql -q -h 127.0.0.1 -p "$1" -U postgres -c "CREATE ROLE layoutd_pw LOGIN SUPERUSER PASSWORD '$2'" postgres"#,
                              port, Self.secret)
        // TCP now asks for the password (scram); the unix socket in the data directory stays trusted.
        _ = try Server.script(#"printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' > "$1/pg_hba.conf" && "#
                              + #"postgres_as_owner "$(postgres_bindir)/pg_ctl" -D "$1" reload >/dev/null"#,
                              server.dataDirectory)
        let url = "postgres://layoutd_pw@127.0.0.1:\(port)/postgres"
        let dir = try TemporaryDirectory()
        let passfile = try dir.write("pgpass", Array("127.0.0.1:\(port):postgres:layoutd_pw:\(Self.secret)\n".utf8))
        chmod(passfile, 0o600)
        var environment = OperatorSettingsTests.environment()
        environment["PGPASSFILE"] = passfile

        // The reload takes effect shortly: without the file the server asks for a password.
        var bare = OperatorSettingsTests.environment()
        bare["PGPASSFILE"] = dir.url.path + "/absent"
        let refused = try eventually(timeout: 10, pollEvery: 0.1, { try LayoutdBinary.run(["store", "check", "--store", url], environment: bare) },
                                     satisfies: { $0.status != 0 })
        #expect(refused.status == 66 && refused.stdout.contains("password"), "\(refused.stdout) \(refused.stderr)")

        let checked = try LayoutdBinary.run(["store", "check", "--store", url], environment: environment)
        #expect(checked.status == 0 && checked.stdout.contains(#""ok":true"#), "\(checked.stdout) \(checked.stderr)")
        #expect(!(checked.stdout + checked.stderr).contains(Self.secret))

        // The daemon too: the store URL in LAYOUTD_STORE, the password in the file: neither in its arguments.
        environment["LAYOUTD_STORE"] = url
        let printed = try LayoutdBinary.run(["serve", "--print-config"], environment: environment)
        #expect(printed.status == 0 && printed.stdout.contains("layoutd_pw@127.0.0.1") && !printed.stdout.contains(Self.secret))
    }
}
