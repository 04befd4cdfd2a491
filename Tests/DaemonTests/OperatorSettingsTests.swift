import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Settings from environment variables (flags > environment > file > defaults) and what the
/// container image runs: its entrypoint, its HEALTHCHECK, its .dockerignore (no engine runs here,
/// so the image's command lines are run with the real binary instead).
@Suite("layoutd: settings from the environment, and the container image's command lines")
struct OperatorSettingsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// This process's environment without any layoutd setting (the test's own are added).
    static func environment(_ settings: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LAYOUTD_") || $0.key == "LAYOUTD_BINARY" }
        for (k, v) in settings { environment[k] = v }
        return environment
    }

    static func printedConfig(_ result: LayoutdBinary.Result) throws -> [String: Any] {
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw TestFailure("exit \(result.status): \(result.stderr)")
        }
        return object
    }

    /// One non-default value per setting, as an environment variable and as --print-config shows it.
    nonisolated(unsafe) static let values: [(variable: String, key: String, value: String, printed: Any)] = [
        ("LAYOUTD_HOST", "host", "0.0.0.0", "0.0.0.0"),
        ("LAYOUTD_PORT", "port", "9123", 9123),
        ("LAYOUTD_THREADS", "threads", "3", 3),
        ("LAYOUTD_MAX_BODY_BYTES", "maxBodyBytes", "2000", 2000),
        ("LAYOUTD_MAX_HEADER_BYTES", "maxHeaderBytes", "4096", 4096),
        ("LAYOUTD_TIMEOUT_SECONDS", "timeoutSeconds", "12.5", 12.5),
        ("LAYOUTD_REQUEST_DEADLINE_SECONDS", "requestDeadlineSeconds", "7", 7),
        ("LAYOUTD_MAX_CONNECTIONS", "maxConnections", "64", 64),
        ("LAYOUTD_SHUTDOWN_GRACE_SECONDS", "shutdownGraceSeconds", "0.25", 0.25),
        ("LAYOUTD_BACKLOG", "backlog", "16", 16),
        ("LAYOUTD_LOG_LEVEL", "logLevel", "warning", "warning"),
        ("LAYOUTD_LOG_FORMAT", "logFormat", "json", "json"),
        ("LAYOUTD_LOCK_DIRECTORY", "lockDirectory", "/var/tmp", "/var/tmp"),
        ("LAYOUTD_MAX_VIEWS", "maxViews", "50", 50),
        ("LAYOUTD_MAX_CONSTRAINTS", "maxConstraints", "60", 60),
        ("LAYOUTD_MAX_SESSIONS", "maxSessions", "70", 70),
        ("LAYOUTD_MAX_RESIDENT_SESSIONS", "maxResidentSessions", "5", 5),
        ("LAYOUTD_MAX_RESIDENT_BYTES", "maxResidentBytes", "65536", 65536),
        ("LAYOUTD_SESSION_IDLE_TIMEOUT_SECONDS", "sessionIdleTimeoutSeconds", "0", 0),
        ("LAYOUTD_MAX_SUBSCRIBERS_PER_SESSION", "maxSubscribersPerSession", "2", 2),
        ("LAYOUTD_MAX_SUBSCRIBERS", "maxSubscribers", "9", 9),
        ("LAYOUTD_CORS_ORIGINS", "corsOrigins", "https://a.example, https://b.example:8443", ["https://a.example", "https://b.example:8443"]),
        ("LAYOUTD_STORE", "store", "sqlite:/tmp/env.db", "sqlite:/tmp/env.db"),
        ("LAYOUTD_SYNC", "sync", "always", "always"),
        ("LAYOUTD_API_KEYS_FILE", "apiKeysFile", "/etc/layoutd/api-keys", "/etc/layoutd/api-keys"),
        ("LAYOUTD_ALLOW_ANONYMOUS", "allowAnonymous", "true", true),
        ("LAYOUTD_LOG_FILE", "logFile", "/var/log/layoutd/layoutd.log", "/var/log/layoutd/layoutd.log"),
        ("LAYOUTD_TRUSTED_PROXIES", "trustedProxies", "10.0.0.0/8, 192.168.1.5", ["10.0.0.0/8", "192.168.1.5"]),
    ]

    /// Whether a value --print-config printed (as JSONSerialization read it) is `expected`.
    static func same(_ printed: Any?, _ expected: Any) -> Bool {
        switch expected {
        case let flag as Bool: return (printed as? NSNumber).map { String(cString: $0.objCType) == "c" && $0.boolValue == flag } ?? false
        case let list as [String]: return printed as? [String] == list
        case let text as String: return printed as? String == text
        case let whole as Int: return (printed as? NSNumber)?.doubleValue == Double(whole)
        case let number as Double: return (printed as? NSNumber)?.doubleValue == number
        default: return false
        }
    }

    @Test("every setting of the configuration file has an environment variable")
    func everySettingFromTheEnvironment() throws {
        let defaults = try Self.printedConfig(try LayoutdBinary.run(["serve", "--print-config"], environment: Self.environment()))
        // The table covers every key --print-config shows (a new setting needs a row here).
        #expect(Set(Self.values.map(\.key)) == Set(defaults.keys))
        let all = Dictionary(uniqueKeysWithValues: Self.values.map { ($0.variable, $0.value) })
        let printed = try Self.printedConfig(try LayoutdBinary.run(["serve", "--print-config"], environment: Self.environment(all)))
        for row in Self.values {
            #expect(Self.same(printed[row.key], row.printed), "\(row.variable): \(printed[row.key] ?? "missing")")
            #expect(!Self.same(defaults[row.key], row.printed), "\(row.variable): the test value is the default")
        }
    }

    @Test("precedence: flags over environment over the configuration file over the defaults")
    func precedence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-env-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("layoutd.json")
        try #"{"port": 7001, "threads": 5, "maxViews": 11}"#.write(to: file, atomically: true, encoding: .utf8)
        let env = Self.environment(["LAYOUTD_CONFIG": file.path, "LAYOUTD_PORT": "7002", "LAYOUTD_THREADS": "6"])
        let printed = try Self.printedConfig(try LayoutdBinary.run(["serve", "--port", "7003", "--print-config"], environment: env))
        #expect(printed["port"] as? Int == 7003)           // flag
        #expect(printed["threads"] as? Int == 6)           // environment over file
        #expect(printed["maxViews"] as? Int == 11)         // file over default
        #expect(printed["maxSessions"] as? Int == 10_000)  // default
        // An empty variable counts as unset.
        let empty = try Self.printedConfig(try LayoutdBinary.run(["serve", "--print-config"],
                                                                  environment: Self.environment(["LAYOUTD_PORT": ""])))
        #expect(empty["port"] as? Int == 8080)
    }

    @Test("an invalid environment value stops the start with exit 64 and names the variable",
          arguments: [("LAYOUTD_PORT", "http"), ("LAYOUTD_PORT", "70000"), ("LAYOUTD_SYNC", "sometimes"),
                      ("LAYOUTD_TIMEOUT_SECONDS", "-1"), ("LAYOUTD_STORE", "redis://x"), ("LAYOUTD_CORS_ORIGINS", "https://a.example/"),
                      ("LAYOUTD_TRUSTED_PROXIES", "10.0.0.0/33")])
    func invalidEnvironmentValue(_ variable: String, _ value: String) throws {
        let r = try LayoutdBinary.run(["serve", "--print-config"], environment: Self.environment([variable: value]))
        #expect(r.status == 64)
        #expect(r.stderr.contains("environment variable \(variable)=\(value)"), "\(r.stderr)")
    }

    // MARK: the container image

    static func dockerfile() throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("Dockerfile"), encoding: .utf8)
    }

    /// The JSON array after `instruction` on its line of the Dockerfile (`CMD ["serve"]`).
    static func execForm(_ instruction: String) throws -> [String] {
        let text = try dockerfile()
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(instruction + " ") }),
              let open = line.firstIndex(of: "["),
              let array = try JSONSerialization.jsonObject(with: Data(line[open...].utf8)) as? [String] else {
            throw TestFailure("no exec-form \(instruction) in the Dockerfile")
        }
        return array
    }

    /// The entrypoint as the image runs it, on this checkout: the script with the binary under
    /// test, and the image's configuration file at its place in the checkout.
    static func runImage(_ arguments: [String], environment extra: [String: String] = [:]) throws -> LayoutdBinary.Result {
        let entrypoint = try execForm("ENTRYPOINT")
        #expect(entrypoint == ["/usr/local/bin/layoutd-entrypoint"])
        let copied = try dockerfile().contains("COPY docker/entrypoint.sh /usr/local/bin/layoutd-entrypoint")
        #expect(copied)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [packageRoot.appendingPathComponent("docker/entrypoint.sh").path] + arguments
        var environment = Self.environment([
            "LAYOUTD_BINARY": try LayoutdBinary.locate().path,
            "LAYOUTD_CONFIG": packageRoot.appendingPathComponent("config/layoutd.json").path,
            "LAYOUTD_HOST": "0.0.0.0",
            "LAYOUTD_API_KEYS_FILE": ContainerImageTests.imageKeysFile,  // the image's ENV (issue 29)
        ])
        for (k, v) in extra { environment[k] = v }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return LayoutdBinary.Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                    stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test("the image's command line parses with the real binary and serve binds 0.0.0.0 whatever else is passed")
    func imageCommandLine() throws {
        let command = try Self.execForm("CMD")
        #expect(command.first == "serve")
        let cases: [(arguments: [String], environment: [String: String])] = [
            (command, [:]),
            ([], [:]),
            (["serve", "--host", "127.0.0.1"], [:]),
            (["serve", "--host=::1", "--threads", "2"], [:]),
            (["--host", "127.0.0.1"], [:]),
            (command, ["LAYOUTD_HOST": "127.0.0.1"]),
        ]
        for c in cases {
            let printed = try Self.printedConfig(try Self.runImage(c.arguments + ["--print-config"], environment: c.environment))
            #expect(printed["host"] as? String == "0.0.0.0", "\(c)")
            #expect(printed["store"] as? String == "sqlite:data/layoutd.db")
        }
        // Environment overrides reach the daemon through the entrypoint.
        let env = try Self.printedConfig(try Self.runImage(command + ["--print-config"],
                                                           environment: ["LAYOUTD_STORE": "memory", "LAYOUTD_PORT": "9000"]))
        #expect(env["store"] as? String == "memory" && env["port"] as? Int == 9000)
        // Other subcommands are run as given.
        let store = try Self.runImage(["store", "--help"])
        #expect(store.status == 0 && store.stdout.contains("check"))
        // The volume is where the configured store lives.
        let dockerfile = try Self.dockerfile()
        #expect(dockerfile.contains("WORKDIR /var/lib/layoutd"))
        #expect(try Self.execForm("VOLUME") == ["/var/lib/layoutd/data"])
    }

    @Test("the image's HEALTHCHECK command exits 0 while the daemon is ready and 1 once it is gone")
    func healthcheck() throws {
        let dockerfile = try Self.dockerfile()
        guard let line = dockerfile.split(separator: "\n").first(where: { $0.hasPrefix("HEALTHCHECK ") }),
              let cmd = line.range(of: "CMD "),
              let check = try JSONSerialization.jsonObject(with: Data(line[cmd.upperBound...].utf8)) as? [String] else {
            throw TestFailure("no exec-form HEALTHCHECK in the Dockerfile")
        }
        #expect(check.first == "/usr/local/bin/layoutd")
        let daemon = try Daemon()
        // As in the image: port from the environment, host 0.0.0.0 asked on the loopback address,
        // with the image's keys file named (protected mode refuses 0.0.0.0 without one; the probe
        // reads /readyz, which needs no key, and not the file).
        let env = Self.environment(["LAYOUTD_PORT": String(daemon.port), "LAYOUTD_HOST": "0.0.0.0",
                                    "LAYOUTD_API_KEYS_FILE": ContainerImageTests.imageKeysFile])
        let ready = try LayoutdBinary.run(Array(check.dropFirst()), environment: env)
        #expect(ready.status == 0, "\(ready.stderr)")
        daemon.stop()
        let gone = try LayoutdBinary.run(Array(check.dropFirst()), environment: env)
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("/readyz"))
    }

    @Test(".dockerignore keeps build products, stores and history out of the build context, and nothing the image copies")
    func dockerignore() throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(".dockerignore"), encoding: .utf8)
        let patterns = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        func ignored(_ path: String) -> Bool {
            patterns.contains { pattern in
                let p = pattern.hasSuffix("/") ? String(pattern.dropLast()) : pattern
                return fnmatch(p, path, 0) == 0
            }
        }
        for path in [".build", ".build-asan", ".build-fuzz", ".build-tsan", "data", ".git", "Package.resolved"] {
            #expect(ignored(path), "\(path) is not in .dockerignore")
        }
        for path in ["Package.swift", "Sources", "Tests", "config", "docker", "docker/entrypoint.sh", "config/layoutd.json"] {
            #expect(!ignored(path), "\(path) is copied by the Dockerfile but ignored")
        }
    }
}
