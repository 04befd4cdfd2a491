import Foundation
import JSON
import Testing
import TestSupport

/// docs/operations.md, "Backup and restore": a PostgreSQL store is backed up with `pg_dump` while
/// the nodes write, and restored with `pg_restore --clean --if-exists` with the nodes stopped. The
/// commands are PostgreSQL's; what is ours to check is that they are the right ones: the dump is
/// a consistent copy of every session, and a node started on the restored database serves it.
@Suite("PostgreSQL store: the documented pg_dump and pg_restore round trip",
       .enabled(if: ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"] != nil,
                "LAYOUTD_TEST_POSTGRES is not set (scripts/test sets it)"))
struct PostgresBackupTests {
    typealias Server = PostgresStoreTests.PrivateServer

    @Test("a dump taken under write load holds every PATCH acknowledged before it; restored over later writes, a node serves the dump's revisions")
    func dumpAndRestore() throws {
        let base = try #require(ProcessInfo.processInfo.environment["LAYOUTD_TEST_POSTGRES"])
        let name = "layoutd_dump_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try Server.script("psql -q \"$1\" -c \"CREATE DATABASE $2\"", base, name)
        defer { _ = try? Server.script("psql -q \"$1\" -c \"DROP DATABASE $2 WITH (FORCE)\"", base, name) }
        let url = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        let dir = try TemporaryDirectory()
        let dump = dir.url.appendingPathComponent("layoutd.dump").path
        let arguments = ["--store", url, "--log-level", "warning", "--threads", "2"]

        var daemon = try Daemon(arguments)
        try StoreBackupTests.putSessions(daemon, 4)
        let load = StoreBackupTests.Load(sessions: 4)
        load.start(port: daemon.port)
        #expect(eventually(timeout: 10) { load.revisions.allSatisfy { $0 > 5 } })
        let acknowledged = load.revisions
        _ = try Server.script("pg_dump --format=custom --table='layoutd_*' --file=\"$2\" --dbname=\"$1\"", url, dump)
        let after = load.revisions
        #expect(eventually(timeout: 10) { zip(load.revisions, after).allSatisfy { $0 > $1 + 2 } }, "writes went on after the dump")
        load.stop()
        let latest = load.revisions
        let extra = try daemon.connect()
        #expect(try extra.put("/v1/sessions/after-dump", Documents.card).status == 201)

        // Restore with the nodes stopped, over the later writes.
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0)
        _ = try Server.script("pg_restore --clean --if-exists --dbname=\"$1\" \"$2\"", url, dump)
        daemon = try Daemon(arguments)
        let c = try daemon.connect()
        for s in 0..<4 {
            let got = try c.get("/v1/sessions/w\(s)")
            let revision = try #require(got.header("ETag").etagRevision)
            // Everything acknowledged before the dump began, nothing later than what was acknowledged after it.
            #expect(revision >= acknowledged[s] && revision <= after[s] + 1, "w\(s): \(revision) not in \(acknowledged[s])...\(after[s] + 1)")
            #expect(revision < latest[s], "w\(s) is back at the dump's revision, not the latest \(latest[s])")
            let constraints = try got.json()["document"]?["constraints"]
            #expect(constraints?["card-height"]?["constant"] == .number(Double(StoreBackupTests.Load.height(at: revision))),
                    "w\(s) at \(revision)")
            // The restored session takes writes again, from its restored revision.
            let patched = try c.patch("/v1/sessions/w\(s)", #"{"constraints":{"card-height":{"constant":77}}}"#)
            #expect(patched.status == 200 && patched.header("ETag").etagRevision == revision + 1)
        }
        #expect(try c.get("/v1/sessions/after-dump").status == 404, "a session created after the dump is gone")
        let check = try LayoutdBinary.run(["store", "check", "--store", url])
        #expect(check.status == 0 && check.stdout.contains(#""ok":true"#), "\(check.stdout) \(check.stderr)")
    }
}
