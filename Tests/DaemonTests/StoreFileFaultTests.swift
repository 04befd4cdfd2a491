import Foundation
import SQLiteStorage
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Faults of the SQLite store file on the real daemon (issue 27, items 3 and 7): a second daemon
/// on the same file stops at once instead of overwriting the first one's sessions; a file deleted
/// or replaced under a running daemon makes it not ready (`/readyz`, `layoutd probe`) and says so
/// in its log.
@Suite("layoutd daemon: one daemon per store file, readiness follows the store file")
struct StoreFileFaultTests {
    static func daemon(_ file: String) throws -> Daemon {
        try Daemon(["--store", "sqlite:\(file)", "--log-level", "warning"])
    }

    /// `layoutd serve` on `file` that is expected to stop at start-up.
    static func serveOnce(_ file: String) throws -> LayoutdBinary.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        return try LayoutdBinary.run(["serve", "--port", "0", "--threads", "1", "--store", "sqlite:\(file)"],
                                     environment: environment, timeout: 10)
    }

    static func edit(_ c: RawHTTPConnection, _ constant: Int) throws -> RawHTTPResponse {
        try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":\#(constant)}}}"#)
    }

    @Test("a second daemon on the same file exits 1 naming the file and the first's pid; the first serves on; after it stops, a new one starts")
    func secondDaemonOnOneFileStops() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.path + "/s.db"
        let first = try Self.daemon(file)
        let c = try first.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)

        let second = try Self.serveOnce(file)
        #expect(second.status == 1)
        #expect(second.stderr.contains(file), "\(second.stderr)")
        #expect(second.stderr.contains("process \(first.process.processIdentifier)"), "\(second.stderr)")
        #expect(!second.stderr.contains("listening"), "\(second.stderr)")

        // The first still serves, and writes.
        #expect(try Self.edit(c, 150).status == 200)
        #expect(try c.get("/readyz").status == 200)
        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: 10) == 0)

        // The kernel dropped the lock with the process: the next one starts and has the session.
        let third = try Self.daemon(file)
        let read = try third.connect().get("/v1/sessions/s")
        #expect(read.status == 200 && read.header("ETag").etagRevision == 2)
    }

    @Test("a symbolic link planted as the store's lock file is refused: exit 1, its target untouched, no store made")
    func symlinkedLockFileIsRefused() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.path + "/s.db"
        let target = dir.url.path + "/precious"
        try "keep me\n".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink(target, file + ".lock") == 0)
        let run = try Self.serveOnce(file)
        #expect(run.status == 1)
        #expect(run.stderr.contains(file) && run.stderr.contains("symbolic link"), "\(run.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// Runs the fault `damage` on the running daemon's store file and checks what follows: not
    /// ready within 2 s even before a write (the probe reads check the file), a PATCH answers 503,
    /// the log names the file and `what` happened, `layoutd probe` fails, and no answer names it.
    func expectNotReady(after damage: (String) throws -> Void, logSays what: String) throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.path + "/s.db"
        let daemon = try Self.daemon(file)
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try c.get("/readyz").status == 200)

        try damage(file)
        let started = Date()
        #expect(try eventually(timeout: 2.5, pollEvery: 0.02) { try c.get("/readyz").status == 503 })
        #expect(Date().timeIntervalSince(started) < 2.5)
        let patch = try Self.edit(c, 170)
        #expect(patch.status == 503 && patch.header("Retry-After") != nil)
        let ready = try c.get("/readyz")
        #expect(ready.status == 503 && ready.header("Retry-After") != nil && ready.problemType == "/problems/not-ready")
        #expect(!ready.text.contains(dir.url.path) && !patch.text.contains(dir.url.path), "answers must not name server files")
        // One line for the cause (the read probe or the PATCH finds it first), at level error.
        #expect(eventually(timeout: 2) { daemon.stderr.contains(what) && daemon.stderr.contains(file) }, "\(daemon.stderr)")
        let lines = daemon.stderr.split(separator: "\n").filter { $0.contains(what) }
        #expect(lines.count == 1 && lines[0].contains(" error layoutd : session store "), "\(daemon.stderr)")

        let probe = try LayoutdBinary.run(["probe", "--port", String(daemon.port)], timeout: 10)
        #expect(probe.status == 1, "\(probe.stdout)\(probe.stderr)")
        // Still not ready a probe later: nothing is written to a file nobody will read. (Not a wait
        // for a condition: the probe's period must pass for "still" to mean anything.)
        usleep(1_100_000)
        #expect(try c.get("/readyz").status == 503)
        #expect(try Self.edit(c, 180).status == 503)
    }

    @Test("the store file deleted under a running daemon: not ready within 2 s, PATCH 503, the log says deleted, probe fails")
    func deletedStoreFile() throws {
        try expectNotReady(after: { file in
            for suffix in ["", "-wal", "-shm"] { _ = unlink(file + suffix) }
        }, logSays: "was deleted")
    }

    @Test("the store file replaced by another SQLite file: not ready within 2 s, PATCH 503, the log says replaced, probe fails")
    func replacedStoreFile() throws {
        try expectNotReady(after: { file in
            let other = file + ".new"
            try SQLiteSessionStorage(path: other, sync: .always).close()
            #expect(rename(other, file) == 0)
        }, logSays: "was replaced by another file")
    }
}
