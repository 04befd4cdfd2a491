@testable import EventHTTP
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27 item 8: extreme settings crashed the daemon (exit 132: `Int(1e300)` on the way to a
/// `timeval`, `Int.max + workers` sharing connections) and `--print-config` printed `inf`. Every
/// number now has a range (docs/operations.md "Every setting"), checked for every source.
@Suite("layoutd: every numeric setting has a range, checked for every source")
struct SettingRangesTests {
    static func environment(_ settings: [String: String] = [:]) -> [String: String] {
        OperatorSettingsTests.environment(settings)
    }

    /// One value out of range per numeric setting: its variable, its flag, the value.
    static let outOfRange: [(key: String, variable: String, flag: String, value: String)] = [
        ("port", "LAYOUTD_PORT", "--port", "65536"),
        ("threads", "LAYOUTD_THREADS", "--threads", "1025"),
        ("maxBodyBytes", "LAYOUTD_MAX_BODY_BYTES", "--max-body-bytes", "9223372036854775807"),
        ("maxHeaderBytes", "LAYOUTD_MAX_HEADER_BYTES", "--max-header-bytes", "1048577"),
        ("timeoutSeconds", "LAYOUTD_TIMEOUT_SECONDS", "--timeout-seconds", "1e300"),
        ("requestDeadlineSeconds", "LAYOUTD_REQUEST_DEADLINE_SECONDS", "--request-deadline-seconds", "86401"),
        ("maxConnections", "LAYOUTD_MAX_CONNECTIONS", "--max-connections", "9223372036854775807"),
        ("shutdownGraceSeconds", "LAYOUTD_SHUTDOWN_GRACE_SECONDS", "--shutdown-grace-seconds", "1e300"),
        ("backlog", "LAYOUTD_BACKLOG", "--backlog", "2147483648"),
        ("maxViews", "LAYOUTD_MAX_VIEWS", "--max-views", "0"),
        ("maxConstraints", "LAYOUTD_MAX_CONSTRAINTS", "--max-constraints", "-1"),
        ("maxSessions", "LAYOUTD_MAX_SESSIONS", "--max-sessions", "10000001"),
        ("maxResidentSessions", "LAYOUTD_MAX_RESIDENT_SESSIONS", "--max-resident-sessions", "9223372036854775807"),
        ("maxResidentBytes", "LAYOUTD_MAX_RESIDENT_BYTES", "--max-resident-bytes", "-1"),
        ("sessionIdleTimeoutSeconds", "LAYOUTD_SESSION_IDLE_TIMEOUT_SECONDS", "--session-idle-timeout-seconds", "1e20"),
        ("maxSubscribersPerSession", "LAYOUTD_MAX_SUBSCRIBERS_PER_SESSION", "--max-subscribers-per-session", "1000001"),
        ("maxSubscribers", "LAYOUTD_MAX_SUBSCRIBERS", "--max-subscribers", "-5"),
    ]

    @Test("the attack values of issue 27 exit 64 naming the setting and its source, not 132",
          arguments: [(["LAYOUTD_TIMEOUT_SECONDS": "1e300"], [String](), "environment variable LAYOUTD_TIMEOUT_SECONDS=1e300: timeoutSeconds"),
                      (["LAYOUTD_MAX_CONNECTIONS": "9223372036854775807"], [], "environment variable LAYOUTD_MAX_CONNECTIONS=9223372036854775807: maxConnections"),
                      ([:], ["--timeout-seconds", "1e400"], "--timeout-seconds inf: timeoutSeconds"),
                      (["LAYOUTD_SHUTDOWN_GRACE_SECONDS": "1e300"], [], "environment variable LAYOUTD_SHUTDOWN_GRACE_SECONDS=1e300: shutdownGraceSeconds")])
    func attackValues(_ variables: [String: String], _ flags: [String], _ message: String) throws {
        // The real start (not only --print-config): this is where 1e300 and 2^63-1 trapped.
        let started = try LayoutdBinary.run(["serve", "--port", "0"] + flags, environment: Self.environment(variables))
        #expect(started.status == 64, "\(started.stderr)")
        #expect(started.stderr.contains(message) && started.stderr.contains("must be"), "\(started.stderr)")
        let printed = try LayoutdBinary.run(["serve", "--print-config"] + flags, environment: Self.environment(variables))
        #expect(printed.status == 64 && !printed.stdout.contains("inf"), "\(printed.stdout)")
    }

    @Test("every numeric setting out of range, as a variable, a flag or in the file, exits 64 naming the source and the range")
    func everyNumericSetting() throws {
        let defaults = try OperatorSettingsTests.printedConfig(try LayoutdBinary.run(["serve", "--print-config"],
                                                                                     environment: Self.environment()))
        // The table covers every number --print-config shows (a new numeric setting needs a row and a range).
        // JSON's true and false read as NSNumbers too (of type "c"): settings, not numbers.
        let numeric = Set(defaults.filter { ($0.value as? NSNumber).map { String(cString: $0.objCType) != "c" } ?? false }.keys)
        #expect(Set(Self.outOfRange.map(\.key)) == numeric)
        let directory = try TemporaryDirectory()
        for row in Self.outOfRange {
            let viaVariable = try LayoutdBinary.run(["serve", "--print-config"], environment: Self.environment([row.variable: row.value]))
            #expect(viaVariable.status == 64, "\(row.variable): \(viaVariable.stderr)")
            #expect(viaVariable.stderr.contains("environment variable \(row.variable)=\(row.value): \(row.key) must be"),
                    "\(row.variable): \(viaVariable.stderr)")
            // `--flag=value`: a separate "-1" would read as an option.
            let viaFlag = try LayoutdBinary.run(["serve", "--print-config", "\(row.flag)=\(row.value)"], environment: Self.environment())
            #expect(viaFlag.status == 64, "\(row.flag): \(viaFlag.stderr)")
            #expect(viaFlag.stderr.contains("\(row.flag) ") && viaFlag.stderr.contains(": \(row.key) must be"),
                    "\(row.flag): \(viaFlag.stderr)")
            // JSON has no 2^63-1 Int either way: the file's numbers go through a Double and the same ranges.
            let file = try directory.write("\(row.key).json", Array("{\"\(row.key)\": \(row.value)}".utf8))
            let viaFile = try LayoutdBinary.run(["serve", "--print-config", "--config", file], environment: Self.environment())
            #expect(viaFile.status == 64, "\(row.key) in a file: \(viaFile.stderr)")
            #expect(viaFile.stderr.contains("configuration file \(file): \(row.key) must be") || viaFile.stderr.contains("'\(row.key)' must be"),
                    "\(row.key) in a file: \(viaFile.stderr)")
        }
    }

    @Test("the largest value of every range is accepted, printed as JSON, and the daemon runs and stops on it")
    func largestValuesRun() throws {
        let largest = ["LAYOUTD_TIMEOUT_SECONDS": "86400", "LAYOUTD_REQUEST_DEADLINE_SECONDS": "86400",
                       "LAYOUTD_SHUTDOWN_GRACE_SECONDS": "86400", "LAYOUTD_MAX_CONNECTIONS": "1000000",
                       "LAYOUTD_SESSION_IDLE_TIMEOUT_SECONDS": "31536000", "LAYOUTD_MAX_BODY_BYTES": "1073741824",
                       "LAYOUTD_MAX_HEADER_BYTES": "1048576", "LAYOUTD_BACKLOG": "65535", "LAYOUTD_MAX_SESSIONS": "10000000"]
        let printed = try OperatorSettingsTests.printedConfig(try LayoutdBinary.run(["serve", "--print-config"],
                                                                                    environment: Self.environment(largest)))
        #expect(printed["timeoutSeconds"] as? Int == 86_400 && printed["maxConnections"] as? Int == 1_000_000)
        // The real start: the time-outs become timevals, the connections are shared among workers,
        // and SIGTERM arms the grace timer (where 1e300 trapped).
        let daemon = try Daemon(largest.flatMap { [Self.flag(of: $0.key), $0.value] })
        let c = try daemon.connect()
        #expect(try c.get("/healthz").status == 200)
        c.close()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0, "\(daemon.stderr)")
    }

    /// `--timeout-seconds` for `LAYOUTD_TIMEOUT_SECONDS`.
    static func flag(of variable: String) -> String {
        "--" + variable.dropFirst("LAYOUTD_".count).lowercased().replacingOccurrences(of: "_", with: "-")
    }

    @Test("a configuration file that is a device, a directory or over 1 MiB is refused saying what it is, exit 64")
    func configurationFileKinds() throws {
        let directory = try TemporaryDirectory()
        let huge = directory.url.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 2 << 20) == 0)  // sparse: 2 MiB of zeros, no disk
        for (path, words) in [("/dev/zero", "it is a character device, not a regular file"),
                              (directory.url.path, "it is a directory, not a regular file"),
                              (huge, "it is 2097152 bytes long; a configuration file may be at most 1048576 bytes")] {
            let r = try LayoutdBinary.run(["serve", "--print-config"], environment: Self.environment(["LAYOUTD_CONFIG": path]))
            #expect(r.status == 64, "\(path): \(r.stderr)")
            #expect(r.stderr.contains("cannot read configuration file \(path): \(words)"), "\(path): \(r.stderr)")
            #expect(!r.stderr.contains("permission"))
        }
    }

    @Test("probe and solve take the same ranges: an infinite probe time-out exits 64")
    func otherCommands() throws {
        let probe = try LayoutdBinary.run(["probe", "--timeout-seconds", "1e300"], environment: Self.environment())
        #expect(probe.status == 64 && probe.stderr.contains("--timeout-seconds must be"), "\(probe.stderr)")
        let solve = try LayoutdBinary.run(["solve", "--max-views", "0", "-"], environment: Self.environment(), input: Array("{}".utf8))
        #expect(solve.status == 64 && solve.stderr.contains("--max-views must be a whole number in 1...1000000"), "\(solve.stderr)")
    }

    @Test("EventHTTP's conversions never trap: any Double becomes a timeval, any connection cap a share")
    func transportConversions() {
        for (seconds, expected) in [(1e300, Int(Int32.max)), (.infinity, Int(Int32.max)), (-.infinity, 0), (.nan, 0),
                                    (-1, 0), (0.25, 0), (86_400, 86_400)] {
            let tv = timevalFrom(seconds: seconds)
            #expect(tv.tv_sec == expected && (0..<1_000_000).contains(tv.tv_usec), "\(seconds)")
        }
        var configuration = HTTPServerConfiguration()
        configuration.threads = 3
        configuration.maxConnections = Int.max
        #expect(configuration.effectiveMaxConnectionsPerWorker == Int.max / 3 + 1)
        configuration.maxConnections = 10
        #expect(configuration.effectiveMaxConnectionsPerWorker == 4)
    }
}
