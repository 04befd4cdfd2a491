import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end tests of the built `layoutd` binary: each test starts its own daemon on a free port
/// and talks HTTP/1.1 to it over a plain socket.
@Suite("layoutd daemon")
struct DaemonTests {
    private func json(_ body: [UInt8]) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body))
        guard let dictionary = object as? [String: Any] else { throw TestFailure("not a JSON object") }
        return dictionary
    }

    @Test("GET /healthz answers 200 {\"status\":\"ok\",\"sessions\":0} as application/json (LayoutAPI's answer)")
    func healthz() throws {
        let daemon = try Daemon()
        let response = try daemon.connect().request("GET", "/healthz")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(try json(response.body)["status"] as? String == "ok")
        #expect(response.text == #"{"status":"ok","sessions":0}"#)
        #expect(response.header("Content-Length") == String(response.body.count))
    }

    @Test("an unknown route answers 404 application/problem+json naming the method and path")
    func unknownRoute() throws {
        let daemon = try Daemon()
        let response = try daemon.connect().request("GET", "/x")
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "application/problem+json")
        let problem = try json(response.body)
        #expect(problem["type"] as? String == "/problems/not-found")
        #expect(problem["title"] as? String == "Not found")
        #expect(problem["status"] as? Int == 404)
        #expect(problem["detail"] as? String == "no route for GET /x")
    }

    @Test("PATCH and OPTIONS reach the router (405/204/404) instead of libevent's 501")
    func patchAndOptions() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        let patch = try connection.request("PATCH", "/healthz", headers: [("Content-Type", "application/merge-patch+json")],
                                           body: Array("{}".utf8))
        #expect(patch.status == 405)
        #expect(patch.header("Allow") == "GET, HEAD, OPTIONS")
        #expect(patch.header("Content-Type") == "application/problem+json")
        let options = try connection.request("OPTIONS", "/healthz")
        #expect(options.status == 204)
        #expect(options.header("Allow") == "GET, HEAD, OPTIONS")
        let patchUnknown = try connection.request("PATCH", "/nowhere", body: Array("{}".utf8))
        #expect(patchUnknown.status == 404)
        #expect(try json(patchUnknown.body)["detail"] as? String == "no route for PATCH /nowhere")
    }

    @Test("HEAD answers the GET headers, Content-Length included, and no body")
    func head() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        let get = try connection.request("GET", "/healthz")
        let head = try connection.request("HEAD", "/healthz")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == String(get.body.count))
        // Had a body been sent after the HEAD headers, it would be read as the next response.
        let after = try connection.request("GET", "/healthz")
        #expect(after.status == 200)
        #expect(after.body == get.body)
        let missing = try connection.request("HEAD", "/missing")
        #expect(missing.status == 404)
        #expect(missing.body.isEmpty)
        #expect(try connection.request("GET", "/healthz").status == 200)
    }

    @Test("keep-alive: several requests are answered on one connection")
    func keepAlive() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        let first = try connection.request("GET", "/healthz")
        let second = try connection.request("GET", "/healthz")
        let third = try connection.request("GET", "/nope")
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(third.status == 404)
        for response in [first, second, third] {
            #expect(response.header("Connection")?.lowercased() != "close")
        }
        // Pipelined: two requests written at once, two answers in order.
        try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /other HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        #expect(try connection.readResponse().status == 404)
    }

    @Test("a body larger than --max-body-bytes is answered 413 problem+json, kept open, or closed far over it")
    func bodyTooLarge() throws {
        let daemon = try Daemon(["--max-body-bytes", "1024"])
        let connection = try daemon.connect()
        let small = try connection.request("POST", "/v1/solve", body: [UInt8](repeating: 0x61, count: 1000))
        #expect(small.status == 400)
        // Over the limit: the API's 413, and the connection stays usable.
        let large = try connection.request("POST", "/v1/solve", body: [UInt8](repeating: 0x61, count: 64 * 1024))
        #expect(large.status == 413)
        #expect(large.header("Content-Type") == "application/problem+json")
        #expect(try json(large.body)["type"] as? String == "/problems/body-too-large")
        #expect(try connection.request("GET", "/healthz").status == 200)
        // Far over it (more than 64 KiB beyond): libevent drops it and closes the connection, with
        // a problem+json answer too (CProblemReplies/ProblemReplies.c).
        let huge = try daemon.connect()
        let refused = try huge.requestTolerantly("POST", "/v1/solve", body: [UInt8](repeating: 0x61, count: 256 * 1024))
        #expect(refused.status == 413)
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(try json(refused.body)["type"] as? String == "/problems/body-too-large")
        #expect(huge.serverClosed())
        // The daemon is still fine afterwards.
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
    }

    @Test("a second daemon on the same port exits non-zero and says the port is in use")
    func secondDaemonOnSamePort() throws {
        let first = try Daemon()
        let second = try LayoutdBinary.run(["serve", "--port", String(first.port), "--threads", "1"], timeout: 20)
        #expect(second.status != 0)
        #expect(second.stderr.contains("port \(first.port)"))
        #expect(second.stderr.contains("already"))
        #expect(second.stderr.contains("layoutd-\(first.port).lock"))
        // Even on another address of the same port (SO_REUSEPORT would otherwise share it).
        let wildcard = try LayoutdBinary.run(["serve", "--host", "0.0.0.0", "--port", String(first.port)], timeout: 20)
        #expect(wildcard.status != 0)
        // The first one still answers alone.
        #expect(try first.connect().request("GET", "/healthz").status == 200)
    }

    @Test("SIGTERM stops the daemon with status 0 within 5 s, idle keep-alive connection or not")
    func sigtermExitsCleanly() throws {
        let daemon = try Daemon()
        let idle = try daemon.connect()
        #expect(try idle.request("GET", "/healthz").status == 200)
        let started = Date()
        daemon.signal(SIGTERM)
        let status = daemon.waitForExit(timeout: 5)
        #expect(status == 0, "exit status \(String(describing: status)); stderr:\n\(daemon.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(idle.serverClosed())
    }

    @Test("SIGINT also stops the daemon with status 0")
    func sigintExitsCleanly() throws {
        let daemon = try Daemon()
        daemon.signal(SIGINT)
        #expect(daemon.waitForExit(timeout: 5) == 0)
    }

    /// A daemon with `grace` seconds of shutdown grace, sent SIGTERM while a connection has half a
    /// request in it (headers and 5 of its 10 body bytes: the rest is "67890").
    private func sigtermWithHalfARequest(grace: String) throws -> (Daemon, RawHTTPConnection) {
        let daemon = try Daemon(["--shutdown-grace-seconds", grace])
        let connection = try daemon.connect()
        #expect(try connection.request("GET", "/healthz").status == 200)
        try connection.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        // The half request is in the daemon (read from its socket) when the signal comes.
        #expect(eventually { LoopbackSockets.allRead(port: daemon.port) })
        daemon.signal(SIGTERM)
        return (daemon, connection)
    }

    @Test("a request in flight when SIGTERM arrives is still answered, with Connection: close")
    func inFlightRequestFinishes() throws {
        let (daemon, connection) = try sigtermWithHalfARequest(grace: "4")
        // The shutdown is under way (the daemon has closed its listening socket) before the rest comes.
        let port = daemon.port
        #expect(eventually { !LoopbackSockets.isListening(port: port) })
        try connection.send("67890")
        let response = try connection.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(daemon.waitForExit(timeout: 5) == 0)
        // New connections are refused once shutdown started.
        #expect(throws: (any Error).self) { _ = try daemon.connect().request("GET", "/healthz") }
    }

    @Test("a second SIGTERM stops at once a daemon still waiting for a request in flight")
    func secondSignalStopsAtOnce() throws {
        // Half a request keeps its worker draining for up to the 30 s grace.
        let (daemon, connection) = try sigtermWithHalfARequest(grace: "30")
        #expect(daemon.waitForExit(timeout: 1) == nil, "still draining after the first signal")
        let started = Date()
        daemon.signal(SIGTERM)
        let status = daemon.waitForExit(timeout: 5)
        #expect(status == 0, "exit status \(String(describing: status)); stderr:\n\(daemon.stderr)")
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(daemon.stderr.contains("second signal"))
        _ = connection
    }

    @Test("garbage on the wire gets a 400 and the daemon keeps serving")
    func garbage() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        try connection.send("THIS IS NOT HTTP\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 400)
        let binary = try daemon.connect()
        try binary.send([0x00, 0xFF, 0x13, 0x37, 0x0D, 0x0A, 0x0D, 0x0A])
        _ = try? binary.readToEnd()
        #expect(try daemon.connect().request("GET", "/healthz").status == 200)
    }

    @Test("one access log line per request with method, path, status, duration, request id and client address")
    func accessLog() throws {
        let daemon = try Daemon()
        let connection = try daemon.connect()
        _ = try connection.request("GET", "/healthz")
        _ = try connection.request("DELETE", "/v1/sessions/a%20b")
        let lines = eventually(pollEvery: 0.02, { daemon.stderr.split(separator: "\n").filter { $0.contains("ms") && $0.contains(" /") } },
                               satisfies: { $0.count >= 2 })
        #expect(lines.count == 2, "stderr:\n\(daemon.stderr)")
        #expect(lines.first?.range(of: #"GET /healthz 200 \d+\.\d{3}ms id=[0-9a-f]{16} client=127\.0\.0\.1$"#, options: .regularExpression) != nil)
        #expect(lines.last?.range(of: #"DELETE /v1/sessions/a b 404 \d+\.\d{3}ms id=[0-9a-f]{16} client=127\.0\.0\.1$"#, options: .regularExpression) != nil)
    }

    @Test("concurrent clients on several connections are all answered")
    func concurrentClients() throws {
        let daemon = try Daemon()
        let port = daemon.port
        let failures = OutputCollector()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                let connection = try RawHTTPConnection(port: port)
                for _ in 0..<25 {
                    let response = try connection.request("GET", index.isMultiple(of: 2) ? "/healthz" : "/missing")
                    if response.status != (index.isMultiple(of: 2) ? 200 : 404) {
                        failures.append(Data("status \(response.status)\n".utf8))
                    }
                }
            } catch {
                failures.append(Data("\(error)\n".utf8))
            }
        }
        #expect(failures.text.isEmpty)
    }
}

@Suite("layoutd command line")
struct CommandLineTests {
    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private var cleanEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        return environment
    }

    @Test("--help explains the commands, every serve flag, the config file and exit statuses")
    func help() throws {
        let root = try LayoutdBinary.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("serve"))
        #expect(root.stdout.contains("Exit status"))
        let serve = try LayoutdBinary.run(["serve", "--help"])
        #expect(serve.status == 0)
        #expect(root.stdout.contains("solve"))
        for flag in ["--host", "--port", "--config", "--threads", "--max-body-bytes", "--max-header-bytes",
                     "--timeout-seconds", "--shutdown-grace-seconds", "--backlog", "--log-level",
                     "--lock-directory", "--print-config", "LAYOUTD_CONFIG", "/healthz", "SIGTERM",
                     "--max-views", "--max-constraints", "--max-sessions", "--session-idle-timeout-seconds",
                     "--cors-origin", "/v1/solve", "/v1/sessions/{id}", "429", "corsOrigins",
                     "--store", "--sync", "sqlite:PATH", "everysec", "503"] {
            #expect(serve.stdout.contains(flag), "serve --help does not mention \(flag)")
        }
    }

    @Test("config/layoutd.json lists every setting with the built-in default, but store: sqlite:data/layoutd.db")
    func configFileMatchesDefaults() throws {
        let file = packageRoot.appendingPathComponent("config/layoutd.json").path
        // The one difference by design: the built-in store is memory (tests write nothing), the
        // file's (and so scripts/run's) is SQLite under data/.
        let builtIn = try LayoutdBinary.run(["serve", "--store", "sqlite:data/layoutd.db", "--print-config"],
                                            environment: cleanEnvironment)
        let fromFile = try LayoutdBinary.run(["serve", "--config", file, "--print-config"], environment: cleanEnvironment)
        #expect(builtIn.status == 0)
        #expect(fromFile.status == 0)
        #expect(builtIn.stdout == fromFile.stdout)
        let fileObject = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? NSDictionary
        let printed = try JSONSerialization.jsonObject(with: Data(builtIn.stdout.utf8)) as? NSDictionary
        #expect(fileObject != nil)
        #expect(fileObject == printed)
        let defaults = try LayoutdBinary.run(["serve", "--print-config"], environment: cleanEnvironment)
        #expect(defaults.stdout.contains(#""store": "memory""#) && defaults.stdout.contains(#""sync": "everysec""#))
    }

    @Test("store and sync: flags and file; a postgres:// URL libpq rejects and unknown values are refused at start")
    func storeSettings() throws {
        let flags = try LayoutdBinary.run(["serve", "--store", "sqlite:/tmp/x.db", "--sync", "always", "--print-config"],
                                          environment: cleanEnvironment)
        #expect(flags.status == 0)
        #expect(flags.stdout.contains(#""store": "sqlite:/tmp/x.db""#) && flags.stdout.contains(#""sync": "always""#))
        let postgres = try LayoutdBinary.run(["serve", "--store", "postgresql://db:5433/layoutd?connect_timeout=2", "--print-config"],
                                             environment: cleanEnvironment)
        #expect(postgres.status == 0 && postgres.stdout.contains(#""store": "postgresql://db:5433/layoutd?connect_timeout=2""#))
        for (args, message) in [(["--store", "postgres://db/layoutd?no_such_option=1"], "not a PostgreSQL URL libpq accepts"),
                                (["--store", "redis:x"], "store must be memory, sqlite:PATH"),
                                (["--sync", "sometimes"], "sync must be one of always, everysec, never")] {
            let r = try LayoutdBinary.run(["serve", "--print-config"] + args, environment: cleanEnvironment)
            #expect(r.status != 0 && r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }

    @Test("flags override the configuration file, which overrides the defaults")
    func precedence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("c.json")
        try Data(#"""
            {"port": 9999, "threads": 3, "timeoutSeconds": 12.5, "maxSessions": 7,
             "corsOrigins": ["https://a.example", "https://b.example"], "sessionIdleTimeoutSeconds": 60}
            """#.utf8).write(to: file)
        let result = try LayoutdBinary.run(["serve", "--config", file.path, "--threads", "5", "--print-config",
                                            "--max-views", "12", "--cors-origin", "*"],
                                           environment: cleanEnvironment)
        #expect(result.status == 0)
        let printed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(printed?["port"] as? Int == 9999)
        #expect(printed?["threads"] as? Int == 5)
        #expect(printed?["timeoutSeconds"] as? Double == 12.5)
        #expect(printed?["host"] as? String == "127.0.0.1")
        #expect(printed?["maxSessions"] as? Int == 7)
        #expect(printed?["maxViews"] as? Int == 12)
        #expect(printed?["sessionIdleTimeoutSeconds"] as? Int == 60)
        // --cors-origin replaces the file's list.
        #expect(printed?["corsOrigins"] as? [String] == ["*"])
        let fileOrigins = try LayoutdBinary.run(["serve", "--config", file.path, "--print-config"],
                                                environment: cleanEnvironment)
        let printedOrigins = try JSONSerialization.jsonObject(with: Data(fileOrigins.stdout.utf8)) as? [String: Any]
        #expect(printedOrigins?["corsOrigins"] as? [String] == ["https://a.example", "https://b.example"])
        // $LAYOUTD_CONFIG stands in for --config.
        var environment = cleanEnvironment
        environment["LAYOUTD_CONFIG"] = file.path
        let viaEnvironment = try LayoutdBinary.run(["serve", "--print-config"], environment: environment)
        #expect((try JSONSerialization.jsonObject(with: Data(viaEnvironment.stdout.utf8)) as? [String: Any])?["port"] as? Int == 9999)
    }

    @Test("an unknown key, a wrong type or an invalid value in the configuration is an error")
    func badConfiguration() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String)] = [
            (#"{"port": 8080, "colour": "blue"}"#, "unknown setting 'colour'"),
            (#"{"port": "8080"}"#, "'port' must be a number"),
            (#"{"port": 80.5}"#, "'port' must be a whole number"),
            (#"{"port": 123456}"#, "port must be a whole number in 0...65535"),
            (#"{"logLevel": "loud"}"#, "logLevel must be one of"),
            (#"[1, 2]"#, "must hold a JSON object"),
            (#"{"port": "#, "not valid JSON"),
            (#"{"corsOrigins": "https://a.example"}"#, "'corsOrigins' must be an array of strings"),
            (#"{"corsOrigins": ["https://a.example/"]}"#, "'https://a.example/' is not an origin"),
            (#"{"corsOrigins": ["app.example"]}"#, "is not an origin"),
            (#"{"maxSessions": 0}"#, "maxSessions must be a whole number in 1...10000000"),
            (#"{"maxViews": 0}"#, "maxViews must be a whole number in 1...1000000"),
            (#"{"sessionIdleTimeoutSeconds": -1}"#, "sessionIdleTimeoutSeconds must be a number of seconds from 0 to 31536000"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let file = directory.appendingPathComponent("bad\(index).json")
            try Data(text.utf8).write(to: file)
            let result = try LayoutdBinary.run(["serve", "--config", file.path], environment: cleanEnvironment)
            #expect(result.status != 0, "\(text) was accepted")
            #expect(result.stderr.contains(message), "\(text): stderr was \(result.stderr)")
        }
        let missing = try LayoutdBinary.run(["serve", "--config", directory.appendingPathComponent("none.json").path],
                                            environment: cleanEnvironment)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read configuration file"))
        let badFlag = try LayoutdBinary.run(["serve", "--cors-origin", "https://x.example/path", "--print-config"],
                                            environment: cleanEnvironment)
        #expect(badFlag.status == 64)
        #expect(badFlag.stderr.contains("is not an origin"))
    }
}
