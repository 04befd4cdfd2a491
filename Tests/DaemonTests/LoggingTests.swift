import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's log: access lines buffered off the request path and written by the log thread,
/// in text or JSON lines; other lines at once; nothing lost on SIGTERM.
@Suite("layoutd daemon: the log")
struct LoggingTests {
    /// Waits until `stderr` holds `count` lines that pass `filter`.
    private func lines(of daemon: Daemon, count: Int, timeout: Double = 5,
                       where filter: (Substring) -> Bool) -> [Substring] {
        eventually(timeout: timeout, pollEvery: 0.02, { daemon.stderr.split(separator: "\n").filter(filter) },
                   satisfies: { $0.count >= count })
    }

    @Test("the start-up line says libevent's own errors are answered as problem+json (the override took effect)")
    func transportErrorOverrideInEffect() throws {
        let daemon = try Daemon()
        let line = lines(of: daemon, count: 1) { $0.contains("transport errors as") }.first
        #expect(line?.contains("transport errors as application/problem+json (evhttp_send_error override in effect)") == true,
                "stderr:\n\(daemon.stderr)")
    }

    @Test("JSON access lines carry method, path, status, duration, bytes and the session id")
    func jsonAccessLines() throws {
        let daemon = try Daemon(["--log-format", "json"])
        let connection = try daemon.connect()
        _ = try connection.request("GET", "/healthz")
        _ = try connection.request("GET", "/v1/sessions/abc/frames")
        let found = lines(of: daemon, count: 2) { $0.contains(#""logger":"access""#) }
        #expect(found.count == 2, "stderr:\n\(daemon.stderr)")
        let objects = found.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        guard objects.count == 2 else { return }
        #expect(objects[0]["method"] as? String == "GET")
        #expect(objects[0]["path"] as? String == "/healthz")
        #expect(objects[0]["status"] as? Int == 200)
        #expect((objects[0]["bytes"] as? Int ?? 0) > 0)
        #expect(objects[0]["duration_ms"] is Double || objects[0]["duration_ms"] is Int)
        #expect(objects[0]["session"] is NSNull)
        #expect((objects[0]["time"] as? String)?.hasSuffix("Z") == true)
        #expect(objects[1]["status"] as? Int == 404)
        #expect(objects[1]["session"] as? String == "abc")
        // Every line of the log is JSON, the start-up lines too.
        let other = daemon.stderr.split(separator: "\n").filter { $0.hasPrefix("{") && !$0.contains(#""logger":"access""#) }
        #expect(!other.isEmpty)
        for line in other {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
    }

    @Test("a session id in an access line is cut to its first 8 characters, in text and in JSON")
    func sessionIDsShortened() throws {
        let id = "0123456789abcdef0123456789abcdef"
        for format in ["text", "json"] {
            let daemon = try Daemon(["--log-format", format])
            _ = try daemon.connect().request("GET", "/v1/sessions/\(id)/frames")
            let found = lines(of: daemon, count: 1) { $0.contains("/v1/sessions/") }
            #expect(found.first?.contains("/v1/sessions/01234567") == true, "\(format): \(daemon.stderr)")
            #expect(!daemon.stderr.contains(id))
        }
    }

    @Test("every access line is written by the time the daemon exits on SIGTERM")
    func flushedOnSIGTERM() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        for i in 0..<200 { _ = try connection.request("GET", "/healthz?n=\(i)") }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) == 0)
        // The pipe may still hold the last bytes: wait for them (the process has exited).
        let found = lines(of: daemon, count: 200) { $0.contains("ms id=") && $0.contains("GET /healthz 200") }
        #expect(found.count == 200, "stderr:\n\(daemon.stderr.suffix(2000))")
    }

    @Test("a control character in a path cannot start a log line of its own")
    func controlCharactersEscaped() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        _ = try connection.request("GET", "/x%0Afake%20line")
        let found = lines(of: daemon, count: 1) { $0.contains("/x%0Afake line 404") }
        #expect(found.count == 1, "stderr:\n\(daemon.stderr)")
        #expect(!daemon.stderr.split(separator: "\n").contains { $0.hasPrefix("fake") })
    }
}
