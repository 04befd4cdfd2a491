import Foundation
import JSON
import Testing
import TestSupport

/// Idle expiry with a SQLite store on the real daemon (issue 21): the uses of a session that is
/// only read reach the store, so a restart does not forget them; a stored session nobody asks for
/// after a restart is deleted once its idle time has passed, without a request naming it.
@Suite("idle expiry across a restart")
struct IdleExpiryAcrossRestartTests {
    /// The session count `/healthz` reports (with a store: the stored sessions).
    static func storedSessions(_ c: RawHTTPConnection) throws -> Int? {
        try c.get("/healthz").json()["sessions"]?.numberValue.map { Int($0) }
    }

    @Test("a session only read past half its idle time survives a restart; one nobody asks for is deleted after it")
    func readSessionSurvivesForgottenOneExpires() throws {
        let dir = try TemporaryDirectory()
        let idle = 4.0  // the daemon sweeps every idle / 4 s
        let arguments = ["--store", "sqlite:\(dir.url.path)/s.db", "--log-level", "warning",
                         "--session-idle-timeout-seconds", String(idle)]
        let start = Date()
        do {
            let daemon = try Daemon(arguments)
            let c = try daemon.connect()
            #expect(try c.put("/v1/sessions/read", Documents.card).status == 201)
            #expect(try c.put("/v1/sessions/forgotten", Documents.card).status == 201)
            // Only GETs, until past half the idle time: the store's last write is the PUT.
            while Date().timeIntervalSince(start) < idle * 0.6 {
                #expect(try c.get("/v1/sessions/read/frames").status == 200)
                usleep(200_000)  // pacing the reads over the idle time, not a wait for a condition
            }
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 10) == 0)
        }
        let daemon = try Daemon(arguments)
        let c = try daemon.connect()
        // Nothing names "forgotten" from now on: only the sweep can remove it.
        let remaining = try eventually(timeout: idle * 3 - Date().timeIntervalSince(start), pollEvery: 0.05,
                                       { try Self.storedSessions(c) }, satisfies: { $0 == 1 })
        #expect(remaining == 1, "the forgotten session is deleted once idle, the read one is kept")
        #expect(Date().timeIntervalSince(start) >= idle, "not before its idle time")
        #expect(try c.get("/v1/sessions/read/frames").status == 200)
        #expect(try c.get("/v1/sessions/forgotten").status == 404)
    }
}
