import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// nginx running the shipped deploy/nginx/layoutd.conf in a private directory, with only what the
/// file says to change replaced: the node list, the two `listen` lines (public, internal) and the
/// access log paths. `nginx -p DIR`: the include dir `layoutd.d/{public,internal}/` is DIR's.
final class EdgeNginx {
    let directory: TemporaryDirectory
    let publicPort: Int
    let internalPort: Int
    private var process: Process?

    static let packageRoot = URL(fileURLWithPath: #filePath)  // Tests/DaemonTests/Support/EdgeNginx.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shipped file's text.
    static func shippedConfig(_ name: String = "layoutd.conf") throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("deploy/nginx/" + name), encoding: .utf8)
    }

    /// nginx's path, or a failure saying how to install it (scripts/test installs it).
    static func binary() throws -> String {
        for path in ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw TestFailure("nginx is not installed: scripts/test installs it (scripts/lib/deps.sh ensure_nginx)")
    }

    /// The shipped configuration with `nodes` (`host:port server-parameters`) as the node list,
    /// the public and internal servers on `publicPort` and `internalPort`, and the access logs in `logs`.
    static func configuration(_ template: String, nodes: [String], publicPort: Int, internalPort: Int, logs: String) throws -> String {
        var out: [String] = [], skipping = false, listens = 0
        for line in template.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.contains("# BEGIN nodes") {
                out.append(line)
                out += nodes.map { "    server \($0);" }
                skipping = true
                continue
            }
            if line.contains("# END nodes") { skipping = false }
            if skipping { continue }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("listen "), listens < 2 {
                out.append("    listen 127.0.0.1:\(listens == 0 ? publicPort : internalPort);")
                listens += 1
                continue
            }
            out.append(line.replacingOccurrences(of: "/var/log/nginx/", with: logs))
        }
        guard listens == 2 else { throw TestFailure("deploy/nginx/layoutd.conf has \(listens) listen lines, not 2 (public, internal)") }
        return out.joined(separator: "\n")
    }

    /// Writes the configuration for `nodes` (nginx is not started: `test()`, `start()`).
    init(nodes: [String]) throws {
        directory = try TemporaryDirectory()
        publicPort = try freeLoopbackPort()
        var inner = try freeLoopbackPort()
        while inner == publicPort { inner = try freeLoopbackPort() }
        internalPort = inner
        let dir = directory.url.path
        for sub in ["tmp", "layoutd.d/public", "layoutd.d/internal"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        let site = try Self.configuration(try Self.shippedConfig(), nodes: nodes, publicPort: publicPort, internalPort: internalPort, logs: dir + "/")
        try site.write(toFile: dir + "/layoutd.conf", atomically: true, encoding: .utf8)
        // As scripts/cluster writes it: the process settings around the shipped file. `daemon off`:
        // the test owns the master process (it signals and waits for it).
        var main = ["daemon off;", "worker_processes 1;", "pid \(dir)/nginx.pid;", "error_log \(dir)/error.log warn;",
                    "worker_shutdown_timeout 10s;", "events { worker_connections 256; }", "http {", "    access_log off;"]
        if getuid() == 0 { main.insert("user nobody nogroup;", at: 0) }
        for temp in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] { main.append("    \(temp)_temp_path \(dir)/tmp/\(temp);") }
        main += ["    include \(dir)/layoutd.conf;", "}", ""]
        try main.joined(separator: "\n").write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
    }

    private var arguments: [String] { ["-p", directory.url.path, "-c", directory.url.path + "/nginx.conf", "-e", directory.url.path + "/error.log"] }

    /// A file of the include dir (`public/NAME.conf` or `internal/NAME.conf`).
    func include(_ relativePath: String, _ text: String) throws {
        try text.write(toFile: directory.url.path + "/layoutd.d/" + relativePath, atomically: true, encoding: .utf8)
    }

    /// `nginx -t`: its exit status and messages.
    func test() throws -> (status: Int32, output: String) {
        try MetricsTests.run(try Self.binary(), ["-t"] + arguments)
    }

    /// Starts nginx and waits until the public server proxies /healthz.
    func start() throws {
        let check = try test()
        guard check.status == 0 else { throw TestFailure("nginx -t refuses the configuration: \(check.output)") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.binary())
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let up = eventually(timeout: 10, pollEvery: 0.05) { (try? RawHTTPConnection(port: self.publicPort, timeoutSeconds: 2).get("/healthz").status) == 200 }
        guard up else { throw TestFailure("nginx does not proxy /healthz: \(errorLog)") }
    }

    /// `nginx -s reload`: SIGHUP to the master.
    func reload() {
        if let p = process { kill(p.processIdentifier, SIGHUP) }
    }

    func stop() {
        guard let p = process, p.isRunning else { return }
        p.terminate()  // SIGTERM: nginx's fast shutdown
        p.waitUntilExit()
    }

    deinit { stop() }

    func publicConnection() throws -> RawHTTPConnection { try RawHTTPConnection(port: publicPort) }
    func internalConnection() throws -> RawHTTPConnection { try RawHTTPConnection(port: internalPort) }

    var errorLog: String { (try? String(contentsOfFile: directory.url.path + "/error.log", encoding: .utf8)) ?? "" }

    /// The public server's access log, one JSON object a line.
    var accessLog: String { (try? String(contentsOfFile: directory.url.path + "/layoutd-access.log", encoding: .utf8)) ?? "" }
}

/// A "node" that reads a request and closes the connection without answering: what nginx sees of a
/// node that died after the request reached it.
final class ClosingNode: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let count = Counter()

    /// Shared with the accepting thread (which must not hold the node: its deinit closes the socket).
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var value = 0
    }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        guard let bound = bindLoopbackPort(fd), listen(fd, 64) == 0 else {
            throw TestFailure("ClosingNode: bind/listen failed: errno \(errno)")
        }
        port = bound
        let count = self.count
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }  // the listening socket was shut down
                var buffer = [UInt8](repeating: 0, count: 65536)
                _ = recv(client, &buffer, buffer.count, 0)
                count.lock.withLock { count.value += 1 }
                Glibc.close(client)
            }
        }
    }

    /// How many requests it took (and dropped).
    var taken: Int { count.lock.withLock { count.value } }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}
