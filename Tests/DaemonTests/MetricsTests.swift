import Foundation
import JSON
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `GET /metrics` as Prometheus sees it (Debian's `prometheus` package, installed by
/// scripts/lib/deps.sh for scripts/test): `promtool check metrics` finds nothing to say, and a real
/// Prometheus scrapes the daemon and answers the requests the test made through its query API.
@Suite("layoutd daemon: metrics, checked by promtool and scraped by Prometheus")
struct MetricsTests {
    /// The path of `tool`, or a failure saying how to install it (never a skip).
    static func tool(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        throw TestFailure("\(name) is not installed: scripts/test installs Debian's prometheus (scripts/lib/deps.sh ensure_prometheus)")
    }

    /// Runs `path arguments` with `input` on stdin; its exit status and its output (stdout and stderr).
    static func run(_ path: String, _ arguments: [String], input: [UInt8] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe(), out = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = out
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Makes traffic the metrics must show: 3 healthz, a created session, a 404.
    static func makeTraffic(_ daemon: Daemon) throws {
        let c = try daemon.connect()
        for _ in 0..<3 { #expect(try c.get("/healthz").status == 200) }
        #expect(try c.post("/v1/sessions", #"{"views": {"a": {"frame": {"width": 10, "height": 10}}}}"#).status == 201)
        #expect(try c.get("/no/such/route").status == 404)
    }

    @Test("promtool check metrics finds no error and no lint problem in /metrics, with and without a store")
    func promtoolChecksTheExposition() throws {
        let promtool = try Self.tool("promtool")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-metrics-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for extra in [[], ["--store", "sqlite:" + directory.appendingPathComponent("s.db").path]] {
            let daemon = try Daemon(extra)
            try Self.makeTraffic(daemon)
            let r = try daemon.connect().get("/metrics")
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let check = try Self.run(promtool, ["check", "metrics"], input: r.body)
            #expect(check.status == 0 && check.output.isEmpty, "promtool (\(extra)): \(check.output)")
            let text = r.text
            #expect(text.contains(#"layoutd_http_requests_total{route="healthz",method="GET",status="200"} 3"#), "\(text.prefix(2000))")
            #expect(text.contains(#"layoutd_http_requests_total{route="unknown",method="GET",status="404"} 1"#))
            #expect(text.contains(#"layoutd_http_request_duration_seconds_count{route="sessions"} 1"#))
            #expect(text.contains("process_resident_memory_bytes "))
            #expect(text.contains("process_open_fds "))
            #expect(text.contains("process_cpu_seconds_total "))
            #expect(text.contains(#"layoutd_sessions{state="stored"}"#) == !extra.isEmpty)
            #expect(text.contains("layoutd_store_operation_duration_seconds_bucket") == !extra.isEmpty)
        }
    }

    @Test("a real Prometheus scrapes the daemon every second: up is 1 and it shows the test's requests")
    func prometheusScrapesTheDaemon() throws {
        let prometheus = try Self.tool("prometheus")
        let daemon = try Daemon()
        try Self.makeTraffic(daemon)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-prometheus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: layoutd
                static_configs:
                  - targets: ["127.0.0.1:\(daemon.port)"]
            """.write(to: config, atomically: true, encoding: .utf8)
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prometheus)
        process.arguments = ["--config.file=" + config.path, "--storage.tsdb.path=" + directory.appendingPathComponent("data").path,
                             "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"]
        let log = Pipe()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }

        /// The first value of `query`'s instant vector, nil while Prometheus has none (or is not up yet).
        func value(_ query: String) -> Double? {
            let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
            guard let c = try? RawHTTPConnection(port: port, timeoutSeconds: 5),
                  let r = try? c.get("/api/v1/query?query=" + encoded), r.status == 200,
                  let json = try? r.json(), json["status"]?.stringValue == "success",
                  case .array(let results)? = json["data"]?["result"], let first = results.first,
                  case .array(let sample)? = first["value"], sample.count == 2,
                  let text = sample[1].stringValue else { return nil }
            return Double(text)
        }
        /// Waits (at most 60 s: Prometheus starts, then scrapes once a second) for `condition`;
        /// false at once if Prometheus has exited. `what` names the wait where it is called.
        func prometheusSees(_ what: String, _ condition: () -> Bool) -> Bool {
            eventually(timeout: 60, pollEvery: 0.2) { !process.isRunning || condition() } && process.isRunning
        }

        #expect(prometheusSees("up") { value(#"up{job="layoutd"}"#) == 1 }, "Prometheus never saw the daemon up; its log:\n\(String(decoding: log.fileHandleForReading.availableData, as: UTF8.self))")
        #expect(prometheusSees("requests") { value(#"layoutd_http_requests_total{route="healthz",method="GET",status="200"}"#) == 3 })
        #expect(prometheusSees("404s") { value(#"layoutd_http_requests_total{route="unknown",status="404"}"#) == 1 })
        #expect(prometheusSees("created") { value(#"layoutd_http_requests_total{route="sessions",method="POST",status="201"}"#) == 1 })
        // Prometheus's own scrapes are counted too (route "metrics"), once a second.
        #expect(prometheusSees("scrapes") { (value(#"layoutd_http_requests_total{route="metrics"}"#) ?? 0) >= 2 })
        #expect(prometheusSees("latency") { (value(#"layoutd_http_request_duration_seconds_count{route="healthz"}"#) ?? 0) == 3 })
    }

    @Test("X-Request-Id: a client's id comes back, a bad one is replaced, and the access log and problem bodies carry it")
    func requestIDsOverHTTP() throws {
        let daemon = try Daemon(["--log-format", "json"])
        let c = try daemon.connect()
        let given = "client-id-7f3a"
        let ok = try c.get("/healthz", headers: [("X-Request-Id", given)])
        #expect(ok.header("X-Request-Id") == given)
        let missing = try c.get("/v1/sessions/nope", headers: [("X-Request-Id", "bad id with spaces")])
        let made = try #require(missing.header("X-Request-Id"))
        #expect(made.count == 16 && made != "bad id with spaces")
        #expect(try missing.json()["requestId"]?.stringValue == made)
        let options = try c.request("OPTIONS", "/v1/sessions")
        #expect(options.status == 204 && options.header("X-Request-Id")?.count == 16)
        let post = try c.post("/v1/sessions", #"{"views": {"a": {}}}"#)
        let id = try #require(try post.json()["id"]?.stringValue)
        // An event stream's head carries it too.
        let stream = try daemon.connect()
        try stream.sendRequest("GET", "/v1/sessions/\(id)/events", headers: [("X-Request-Id", "stream-1")])
        let head = try stream.readResponseHead()
        #expect(head.status == 200 && head.header("X-Request-Id") == "stream-1")
        stream.close()

        // The access log line of each request names its id.
        let ids = eventually(pollEvery: 0.02, {
            daemon.stderr.split(separator: "\n").filter { $0.contains(#""logger":"access""#) }.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["request_id"] as? String
            }
        }, satisfies: { $0.contains("stream-1") })
        #expect(ids.contains(given))
        #expect(ids.contains(made))
        #expect(ids.contains("stream-1"), "stderr:\n\(daemon.stderr)")
    }
}
