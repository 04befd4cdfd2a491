import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What a page on another origin needs from the daemon (issue 30): origin patterns with any port,
/// CORS on the transport's own errors, a refused origin named in the log, and streams that say
/// why they end (`shutdown`, `expired`).
@Suite("layoutd daemon: CORS a browser can live with, stream events")
struct BrowserEdgeDaemonTests {
    static let devOrigins = ["--cors-origin", "http://localhost:*", "--cors-origin", "http://127.0.0.1:*"]

    @Test("--cors-origin http://localhost:* allows that host on any port, and no other host")
    func wildcardPort() throws {
        let daemon = try Daemon(Self.devOrigins)
        let c = try daemon.connect()
        for origin in ["http://localhost:5173", "http://localhost:3000", "http://127.0.0.1:8081", "http://localhost"] {
            let preflight = try c.request("OPTIONS", "/v1/sessions/demo", headers: [
                ("Origin", origin), ("Access-Control-Request-Method", "PATCH"),
                ("Access-Control-Request-Headers", "authorization, content-type, if-match, x-request-id"),
            ])
            #expect(preflight.status == 204, "\(origin)")
            #expect(preflight.header("Access-Control-Allow-Origin") == origin, "\(origin)")
            let allowed = try #require(preflight.header("Access-Control-Allow-Headers"))
            for name in ["Authorization", "Content-Type", "X-Request-Id", "If-Match", "If-None-Match"] {
                #expect(allowed.contains(name), "\(name) in \(allowed)")
            }
            let solved = try c.post("/v1/solve", Documents.card, headers: [("Origin", origin)])
            #expect(solved.status == 200)
            #expect(solved.header("Access-Control-Allow-Origin") == origin, "\(origin)")
            let exposed = try #require(solved.header("Access-Control-Expose-Headers"))
            for name in ["ETag", "Location", "Retry-After", "X-Request-Id"] {
                #expect(exposed.contains(name), "\(name) in \(exposed)")
            }
        }
        for origin in ["http://localhost.evil:5173", "https://localhost:5173", "http://localhost:5173x",
                       "http://localhost:123456", "http://127.0.0.1.evil:80", "http://evil.example"] {
            let r = try c.post("/v1/solve", Documents.card, headers: [("Origin", origin)])
            #expect(r.status == 200)
            #expect(r.header("Access-Control-Allow-Origin") == nil, "\(origin)")
            #expect(r.header("Vary") == "Origin")
        }
    }

    @Test("a wildcard anywhere but the whole port is refused at start, naming the setting and the pattern form")
    func badPattern() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        environment["LAYOUTD_CORS_ORIGINS"] = nil
        for bad in ["http://*.example", "http://localhost:5*", "*://localhost:3000"] {
            let run = try LayoutdBinary.run(["serve", "--cors-origin", bad, "--print-config"], environment: environment)
            #expect(run.status == 64, "\(bad): \(run.stderr)")
            #expect(run.stderr.contains("corsOrigins") && run.stderr.contains("scheme://host:*"), "\(run.stderr)")
        }
        let good = try LayoutdBinary.run(["serve", "--cors-origin", "http://localhost:*", "--print-config"],
                                         environment: environment)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("\"http://localhost:*\""))
    }

    @Test("the transport's own 413, 501 and 400 carry the CORS headers of an allowed origin, and only Vary for another")
    func transportErrors() throws {
        let daemon = try Daemon(Self.devOrigins + ["--max-body-bytes", "1024"])
        let origin = "Origin: http://localhost:5173\r\n"
        let requests: [(status: Int, bytes: [UInt8])] = [
            // Answered by CProblemReplies' evhttp_send_error (libevent's own errors).
            (413, Array("POST /v1/solve HTTP/1.1\r\nHost: x\r\n\(origin)Content-Length: 300000\r\n\r\n".utf8)
                + [UInt8](repeating: 0x20, count: 300_000)),
            (501, Array("TRACE / HTTP/1.1\r\nHost: x\r\n\(origin)\r\n".utf8)),
            // Answered by EventHTTP's edge checks.
            (501, Array("POST /v1/solve HTTP/1.1\r\nHost: x\r\n\(origin)Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n".utf8)),
            (400, Array("GET /healthz HTTP/1.1\r\n\(origin)\r\n".utf8)),
        ]
        for (status, bytes) in requests {
            let connection = try daemon.connect()
            try connection.send(bytes)
            let r = try connection.readResponse()
            #expect(r.status == status)
            #expect(r.header("Access-Control-Allow-Origin") == "http://localhost:5173", "\(status): \(r.headers)")
            #expect(r.header("Access-Control-Expose-Headers")?.contains("X-Request-Id") == true, "\(status)")
            #expect(r.header("Vary") == "Origin", "\(status)")
            #expect(r.header("Content-Type") == "application/problem+json")
        }
        let other = try daemon.connect()
        try other.send("TRACE / HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\n\r\n")
        let refused = try other.readResponse()
        #expect(refused.status == 501)
        #expect(refused.header("Access-Control-Allow-Origin") == nil)
        #expect(refused.header("Vary") == "Origin")
        // Without CORS settings the transport adds none.
        let plain = try Daemon()
        let bare = try plain.connect()
        try bare.send("TRACE / HTTP/1.1\r\nHost: x\r\n\(origin)\r\n")
        let none = try bare.readResponse()
        #expect(none.status == 501 && none.header("Vary") == nil && none.header("Access-Control-Allow-Origin") == nil)
    }

    @Test("a refused origin is logged once at warning, naming --cors-origin; the daemon's own origin is not")
    func refusedOriginLogged() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        for _ in 0..<3 {
            let r = try c.request("OPTIONS", "/v1/solve", headers: [
                ("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "POST"),
            ])
            #expect(r.status == 204)
        }
        #expect(try c.post("/v1/solve", Documents.card, headers: [("Origin", "https://other.example")]).status == 200)
        // Same origin: the playground's POST carries Origin too (the test client sends Host: 127.0.0.1).
        #expect(try c.post("/v1/solve", Documents.card, headers: [("Origin", "http://127.0.0.1")]).status == 200)
        let log = eventually(timeout: 5, { daemon.stderr }, satisfies: { $0.contains("https://other.example") })
        let lines = log.split(separator: "\n").filter { $0.contains("refused a cross-origin request") }
        #expect(lines.count == 2, "\(log)")
        let first = try #require(lines.first)
        #expect(first.contains("warning") && first.contains("'http://localhost:5173'"), "\(first)")
        #expect(first.contains("--cors-origin http://localhost:5173") && first.contains("corsOrigins"), "\(first)")
        #expect(!log.contains("'http://127.0.0.1'"), "\(log)")
    }

    @Test("SIGTERM sends event: shutdown with the session id and a retry hint before the stream ends")
    func shutdownEvent() throws {
        let daemon = try Daemon()
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        let stream = try daemon.connect()
        try stream.sendRequest("GET", "/v1/sessions/s/events")
        #expect(try stream.readResponseHead().status == 200)
        let first = String(decoding: try #require(try stream.readChunk()), as: UTF8.self)
        #expect(first.hasPrefix("event: revision\n"))
        daemon.signal(SIGTERM)
        var rest = ""
        while let chunk = try stream.readChunk() { rest += String(decoding: chunk, as: UTF8.self) }
        let events = rest.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(":") }
        let last = try #require(events.last)
        let lines = last.split(separator: "\n").map(String.init)
        #expect(lines.first == "event: shutdown", "\(rest)")
        let retry = try #require(lines.first { $0.hasPrefix("retry: ") }.flatMap { Int($0.dropFirst(7)) })
        #expect((1_000...3_000).contains(retry))
        #expect(lines.last == #"data: {"id":"s","retry":\#(retry)}"#, "\(rest)")
        #expect(daemon.waitForExit(timeout: 5) == 0)
    }

    @Test("idle expiry sends event: expired with the session id and ends the stream; DELETE still sends deleted")
    func expiredEvent() throws {
        let daemon = try Daemon(["--session-idle-timeout-seconds", "1"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/idle", Documents.card).status == 201)
        #expect(try c.put("/v1/sessions/gone", Documents.card).status == 201)
        let idle = try daemon.connect(timeoutSeconds: 10)
        try idle.sendRequest("GET", "/v1/sessions/idle/events")
        #expect(try idle.readResponseHead().status == 200)
        let gone = try daemon.connect()
        try gone.sendRequest("GET", "/v1/sessions/gone/events")
        #expect(try gone.readResponseHead().status == 200)
        #expect(try daemon.connect().request("DELETE", "/v1/sessions/gone").status == 204)
        var deleted = ""
        while let chunk = try gone.readChunk() { deleted += String(decoding: chunk, as: UTF8.self) }
        #expect(deleted.contains("event: deleted\ndata: {\"id\":\"gone\",\"reason\":\"deleted\"}\n\n"), "\(deleted)")
        // Nothing names `idle` now: the daemon's sweep expires it within a few seconds.
        var expired = ""
        while let chunk = try idle.readChunk() { expired += String(decoding: chunk, as: UTF8.self) }
        #expect(expired.hasSuffix("event: expired\ndata: {\"id\":\"idle\"}\n\n"), "\(expired)")
    }
}
