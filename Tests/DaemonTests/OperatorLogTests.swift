import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Logs an operator can use (issue 33): every line JSON under `--log-format json` from start-up to
/// shutdown and on a failed start; `--log-file` opened again on SIGHUP after logrotate's rename;
/// the client's address in the access log, `X-Forwarded-For` believed only from a trusted proxy;
/// a store outage said once per cause, not once per request.
@Suite("layoutd daemon: logs an operator can use (JSON throughout, log file and SIGHUP, client address, store outage)")
struct OperatorLogTests {
    /// The lines of `text`, each parsed as a JSON object; records the lines that are not.
    static func jsonLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)", sourceLocation: sourceLocation)
            return object
        }
    }

    static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func access(_ lines: [[String: Any]], path: String) -> [[String: Any]] {
        lines.filter { $0["logger"] as? String == "access" && $0["path"] as? String == path }
    }

    @Test("--log-format json: every line from the listening line to the stop on SIGTERM parses as JSON, with time, level and message")
    func everyLineJSONThroughARun() throws {
        let dir = try TemporaryDirectory()
        let daemon = try Daemon(["--log-format", "json", "--store", "sqlite:\(dir.url.path)/s.db"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        #expect(try c.get("/nowhere").status == 404)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) == 0)
        #expect(eventually(timeout: 5) { daemon.stderr.contains(#""message":"stopped""#) }, "\(daemon.stderr)")
        let lines = Self.jsonLines(daemon.stderr)
        #expect(lines.count >= 5, "\(daemon.stderr)")
        for line in lines {
            #expect(line["time"] is String && line["level"] is String && line["logger"] is String, "\(line)")
        }
        #expect(lines.contains { ($0["message"] as? String)?.hasPrefix("layoutd listening on http://127.0.0.1:\(daemon.port)") == true })
        #expect(lines.contains { ($0["message"] as? String)?.hasPrefix("serving with") == true })
        #expect(Self.access(lines, path: "/nowhere").first?["status"] as? Int == 404)
    }

    @Test("--log-format json: a store that cannot be opened, a bad setting, a log file that cannot be opened: exit 1/64 with JSON lines only")
    func failedStartsInJSON() throws {
        let dir = try TemporaryDirectory()
        let garbage = try dir.write("garbage.db", Array(repeating: 0x41, count: 8192))
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        let base = ["serve", "--port", "0", "--threads", "1", "--log-format", "json"]

        let store = try LayoutdBinary.run(base + ["--store", "sqlite:\(garbage)"], environment: environment, timeout: 10)
        #expect(store.status == 1)
        let storeLines = Self.jsonLines(store.stderr)
        #expect(storeLines.contains { $0["level"] as? String == "error"
            && ($0["message"] as? String)?.contains("cannot open the session store") == true }, "\(store.stderr)")

        let setting = try LayoutdBinary.run(base + ["--timeout-seconds=-1"], environment: environment, timeout: 10)
        #expect(setting.status == 64)
        let settingLines = Self.jsonLines(setting.stderr)
        #expect(settingLines.count == 1 && (settingLines.first?["message"] as? String)?.contains("--timeout-seconds") == true,
                "\(setting.stderr)")

        // A keys file that cannot be read, found after the log is set up.
        let keys = try LayoutdBinary.run(base + ["--api-keys", "\(dir.url.path)/no-such-keys"], environment: environment, timeout: 10)
        #expect(keys.status == 64)
        #expect((Self.jsonLines(keys.stderr).last?["message"] as? String)?.contains("--api-keys") == true, "\(keys.stderr)")

        // The format from the environment when the flags do not say.
        environment["LAYOUTD_LOG_FORMAT"] = "json"
        let proxies = try LayoutdBinary.run(["serve", "--port", "0", "--trusted-proxy", "10.0.0.0/33"], environment: environment,
                                            timeout: 10)
        #expect(proxies.status == 64)
        #expect(Self.jsonLines(proxies.stderr).first?["message"] as? String != nil, "\(proxies.stderr)")
        #expect(proxies.stderr.contains("trustedProxies"), "\(proxies.stderr)")

        let file = try LayoutdBinary.run(base + ["--log-file", "\(dir.url.path)/no/such/dir/layoutd.log"], environment: environment,
                                         timeout: 10)
        #expect(file.status == 1)
        #expect((Self.jsonLines(file.stderr).first?["message"] as? String)?.contains("cannot open the log file") == true,
                "\(file.stderr)")
    }

    @Test("--log-file after logrotate's rename and SIGHUP: the renamed file gets no line after the reopen, the new file the next ones; the keys file is read again too")
    func logFileReopenedOnSIGHUP() throws {
        let dir = try TemporaryDirectory()
        let log = dir.url.path + "/layoutd.log", rotated = log + ".1"
        let keysFile = dir.url.path + "/keys"
        let made = try LayoutdBinary.run(["keys", "new", "ops", "--file", keysFile], timeout: 10)
        #expect(made.status == 0, "\(made.stderr)")
        let key = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try freeLoopbackPort()
        let daemon = try Daemon(["--log-file", log, "--api-keys", keysFile], port: port, logFile: log)
        let auth = [("Authorization", "Bearer \(key)")]
        let c = try daemon.connect()
        #expect(try c.get("/rotation-before", headers: auth).status == 404)
        #expect(eventually(timeout: 5) { Self.contents(log).contains("/rotation-before") })
        #expect(daemon.stderr.isEmpty, "nothing on stderr with a log file: \(daemon.stderr)")

        #expect(rename(log, rotated) == 0)
        daemon.signal(SIGHUP)
        #expect(eventually(timeout: 5) { Self.contents(log).contains("opened again") }, "new file: \(Self.contents(log))")
        #expect(eventually(timeout: 5) { Self.contents(log).contains("SIGHUP: API keys file \(keysFile) read again") },
                "SIGHUP reloads the keys as well: \(Self.contents(log))")
        let rotatedSize = Self.contents(rotated).utf8.count
        for i in 0..<20 { #expect(try c.get("/rotation-after-\(i)", headers: auth).status == 404) }
        #expect(eventually(timeout: 5) { Self.contents(log).contains("/rotation-after-19") }, "\(Self.contents(log))")
        #expect(Self.contents(rotated).utf8.count == rotatedSize, "the renamed file got lines after the reopen")
        #expect(!Self.contents(rotated).contains("rotation-after"))
        #expect(Self.contents(rotated).contains("rotation-before"))
        #expect(daemon.isRunning)
        // A second rotation works the same way.
        #expect(rename(log, rotated) == 0)
        daemon.signal(SIGHUP)
        #expect(eventually(timeout: 5) { Self.contents(log).contains("opened again") })
    }

    @Test("a log nobody drains (a full pipe) stalls no answer: requests, and a store failure logged at error on the request's way, answer at once")
    func blockedLogStallsNoAnswer() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.url.path + "/log.fifo", file = dir.url.path + "/s.db"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading (so the daemon's open for writing succeeds) and never read.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let port = try freeLoopbackPort()
        let daemon = try Daemon(["--log-file", fifo, "--store", "sqlite:\(file)"], port: port, logUnread: true)
        let c = try daemon.connect(timeoutSeconds: 5)
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        /// Bytes waiting in the pipe.
        func queued() -> Int32 {
            var n: Int32 = 0
            _ = ioctl(reader, UInt(FIONREAD), &n)
            return n
        }
        // Access lines until the pipe (64 KiB; a write that does not fit waits) is full and the log thread is stuck in write(2).
        #expect(try eventually(timeout: 30, pollEvery: 0) {
            for _ in 0..<50 { _ = try c.get("/healthz") }
            return queued() >= 60_000
        }, "the pipe holds \(queued()) bytes")
        for _ in 0..<200 { #expect(try c.get("/healthz").status == 200) }
        // A store failure: logged at error (a line that wakes the log thread at once) on the
        // request's own way; its answer must not wait for the log.
        for suffix in ["", "-wal", "-shm"] { _ = unlink(file + suffix) }
        let started = Date()
        let patch = try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":230}}}"#)
        #expect(patch.status == 503)
        #expect(try c.get("/readyz").status == 503)
        #expect(Date().timeIntervalSince(started) < 2.5, "\(Date().timeIntervalSince(started)) s")
        #expect(daemon.isRunning)
    }

    @Test("the access log names the client: the peer, or X-Forwarded-For's rightmost untrusted address when the peer is a trusted proxy")
    func clientAddressAndForwardedFor() throws {
        let forwarded = [("X-Forwarded-For", "198.51.100.1, 203.0.113.7")]
        /// The access line of one GET /probe-N with `forwarded`, from a daemon with `proxies`.
        func line(_ proxies: [String], _ n: Int) throws -> [String: Any]? {
            let daemon = try Daemon(["--log-format", "json"] + proxies.flatMap { ["--trusted-proxy", $0] })
            #expect(try daemon.connect().get("/probe-\(n)", headers: forwarded).status == 404)
            return eventually(timeout: 5, { Self.access(Self.jsonLines(daemon.stderr), path: "/probe-\(n)").first },
                              satisfies: { $0 != nil }) ?? nil
        }
        // No trusted proxy: the header is anyone's to write, and ignored.
        let none = try line([], 1)
        #expect(none?["client"] as? String == "127.0.0.1" && none?["peer"] == nil, "\(String(describing: none))")
        // The peer is not one of the trusted proxies: ignored too.
        let other = try line(["10.0.0.0/8"], 2)
        #expect(other?["client"] as? String == "127.0.0.1", "\(String(describing: other))")
        // The peer is trusted: the rightmost address that is not a trusted proxy (what the proxy saw).
        let trusted = try line(["127.0.0.1"], 3)
        #expect(trusted?["client"] as? String == "203.0.113.7" && trusted?["peer"] as? String == "127.0.0.1",
                "\(String(describing: trusted))")
        // A chain of trusted proxies is walked past.
        let chain = try line(["127.0.0.0/8", "203.0.113.0/24"], 4)
        #expect(chain?["client"] as? String == "198.51.100.1", "\(String(describing: chain))")

        // In the text format too.
        let daemon = try Daemon(["--trusted-proxy", "127.0.0.1"])
        #expect(try daemon.connect().get("/text-probe", headers: forwarded).status == 404)
        let text = eventually(timeout: 5, { daemon.stderr.split(separator: "\n").first { $0.contains("/text-probe") } },
                              satisfies: { $0 != nil }) ?? nil
        #expect(text?.hasSuffix(" client=203.0.113.7 peer=127.0.0.1") == true, "\(daemon.stderr)")
    }

    @Test("a store outage at --log-level warning: said at once, one line per cause however many requests fail")
    func storeOutageOneLinePerCause() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.path + "/s.db"
        let daemon = try Daemon(["--store", "sqlite:\(file)", "--log-level", "warning", "--log-format", "json"])
        let c = try daemon.connect()
        #expect(try c.put("/v1/sessions/s", Documents.card).status == 201)
        for suffix in ["", "-wal", "-shm"] { _ = unlink(file + suffix) }
        var failed = 0
        for i in 0..<40 {
            let r = try c.patch("/v1/sessions/s", #"{"constraints":{"card-height":{"constant":\#(200 + i)}}}"#)
            if r.status == 503 { failed += 1 }
        }
        #expect(failed >= 39, "the PATCHes after the file was deleted answer 503")
        let outage = { Self.jsonLines(daemon.stderr).filter { ($0["message"] as? String)?.contains("session store") == true } }
        #expect(eventually(timeout: 5) { !outage().isEmpty }, "the outage is said at warning: \(daemon.stderr)")
        var causes: [String: Int] = [:]
        for line in outage() {
            #expect(["warning", "error"].contains(line["level"] as? String ?? ""), "\(line)")
            causes[line["message"] as? String ?? "", default: 0] += 1
        }
        #expect(causes.values.allSatisfy { $0 == 1 }, "one line per cause: \(causes)")
        #expect(causes.count <= 3, "a handful of causes, not a line per request: \(causes)")
    }
}
