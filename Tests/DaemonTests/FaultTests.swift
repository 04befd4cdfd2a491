import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Faults at the edges (issue 20), on the real daemon, each bounded in time: slow clients are cut
/// at the request deadline while others are served, vanishing clients leave nothing behind, idle
/// connections, the connection cap and the descriptor limit do not stop service for good.
@Suite("layoutd daemon: faults at the edges")
struct FaultTests {
    private func openDescriptors(_ daemon: Daemon) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.processIdentifier)/fd").count) ?? -1
    }

    /// Sends `bytes` one a second (the socket's 1 s read time-out paces it) until the server closes
    /// the connection; returns the seconds since `start` (when the connection was opened: the
    /// server's deadline runs from then, not from when this block got a thread), or nil if it did
    /// not close within `limit`.
    private static func trickle(_ bytes: [UInt8], on connection: RawHTTPConnection, since start: Date,
                                limit: Double) -> Double? {
        for byte in bytes {
            if (try? connection.send([byte])) == nil || connection.serverClosed() {
                return Date().timeIntervalSince(start)
            }
            if Date().timeIntervalSince(start) > limit { return nil }
        }
        return nil
    }

    @Test("headers or a body one byte a second: closed at the request deadline, others served meanwhile")
    func slowloris() throws {
        let daemon = try Daemon(["--request-deadline-seconds", "2", "--timeout-seconds", "30"])
        let headers = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "a", count: 60))".utf8)
        let body = Array(String(repeating: "{", count: 60).utf8)
        let results = Locked<[String: Double?]>([:])
        let group = DispatchGroup()
        for (name, prefix, bytes) in [("headers", "", headers),
                                      ("body", "POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n", body)] {
            let opened = Date()
            let connection = try daemon.connect(timeoutSeconds: 1)
            try connection.send(prefix)
            let box = Locked(connection)
            DispatchQueue.global().async(group: group) {
                let took = FaultTests.trickle(bytes, on: box.value, since: opened, limit: 10)
                results.update { $0[name] = took }
            }
        }
        // Meanwhile, other connections are served promptly.
        for _ in 0..<5 {
            let started = Date()
            #expect(try daemon.connect(timeoutSeconds: 2).request("GET", "/healthz").status == 200)
            #expect(Date().timeIntervalSince(started) < 1)
            usleep(300_000)  // spreads the probes over the slow clients' lifetime, not a wait for a condition
        }
        group.wait()
        for name in ["headers", "body"] {
            let took = results.value[name] ?? nil
            #expect(took != nil, "\(name): the slow connection was not closed")
            if let took { #expect(took >= 1.5 && took < 5, "\(name): closed after \(took) s") }
        }
        #expect(daemon.stderr.contains("not read within 2"))
    }

    @Test("clients that vanish mid-body and mid-response: nothing leaks, service goes on")
    func vanishing() throws {
        let daemon = try Daemon()
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
        let before = openDescriptors(daemon)
        for index in 0..<40 {
            let connection = try daemon.connect()
            if index % 2 == 0 {
                // Mid-body: half of a declared body, then gone.
                try connection.send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
                                    + String(repeating: " ", count: 50_000))
            } else {
                // Mid-response: large answers asked for and never read.
                for _ in 0..<20 { try connection.sendRequest("GET", "/") }
            }
            connection.close()
        }
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
        #expect(eventually(timeout: 10) { openDescriptors(daemon) <= before }, "descriptors: \(before) before, \(openDescriptors(daemon)) after")
    }

    @Test("1,000 idle connections, then normal service; their descriptors come back when they close")
    func idleConnections() throws {
        let daemon = try Daemon(["--max-connections", "5000"])
        let before = openDescriptors(daemon)
        var idle: [RawHTTPConnection] = []
        for _ in 0..<1_000 { idle.append(try daemon.connect()) }
        #expect(eventually(timeout: 10) { openDescriptors(daemon) >= before + 1_000 })
        let started = Date()
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
        #expect(Date().timeIntervalSince(started) < 1)
        for connection in idle { connection.close() }
        #expect(eventually(timeout: 10) { openDescriptors(daemon) <= before })
    }

    @Test("a request pipelined after a large body is answered, in order")
    func pipelinedAfterLargeBody() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect(timeoutSeconds: 15)
        let large = Array("{\"views\": {\"root\": {}}, \"pad\": \"\(String(repeating: "x", count: 900_000))\"}".utf8)
        var wire = Array("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Length: \(large.count)\r\n\r\n".utf8) + large
        wire += Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        try connection.send(wire)
        let first = try connection.readResponse()
        #expect(first.status == 422)  // `pad` is not a document member
        #expect(try connection.readResponse().status == 200)
    }

    @Test("at the connection cap new connections wait, and are served once one closes")
    func connectionCap() throws {
        let daemon = try Daemon(["--threads", "1", "--max-connections", "4"])
        let held = try (0..<4).map { _ in try daemon.connect() }
        #expect(try held[0].request("GET", "/healthz").status == 200)
        let waiting = try daemon.connect(timeoutSeconds: 1)
        try waiting.sendRequest("GET", "/healthz")
        #expect(throws: (any Error).self) { try waiting.readResponse() }  // not accepted yet
        held[1].close()
        var answered = false
        _ = eventually(timeout: 5, pollEvery: 0.02) {
            answered = (try? waiting.readResponse().status) == 200
            return answered
        }
        #expect(answered)
        #expect(daemon.stderr.contains("connection limit reached"))
    }

    @Test("at the descriptor limit: accept backs off, the log does not flood, service resumes")
    func descriptorLimit() throws {
        let daemon = try Daemon(["--threads", "1", "--max-connections", "10000"], shell: "ulimit -n 64")
        var connections: [RawHTTPConnection] = []
        // More than the limit: the kernel completes them into the backlog; the daemon takes what it can.
        for _ in 0..<90 { connections.append(try daemon.connect(timeoutSeconds: 1)) }
        #expect(eventually(timeout: 5) { daemon.stderr.contains("accept failed") })
        usleep(1_500_000)  // the time over which the log must not flood, not a wait for a condition
        let lines = daemon.stderr.split(separator: "\n").filter { $0.contains("accept") }.count
        #expect(lines < 10, "\(lines) lines about accept in 1.5 s")
        for connection in connections { connection.close() }
        var served = false
        _ = eventually(timeout: 5, pollEvery: 0.02) {
            served = (try? daemon.connect(timeoutSeconds: 1).request("GET", "/healthz").status) == 200
            return served
        }
        #expect(served)
    }
}

/// A value shared between the test and its helper threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func update(_ change: (inout Value) -> Void) { lock.lock(); change(&stored); lock.unlock() }
}
