/// What each setting may be (issue 27: `LAYOUTD_TIMEOUT_SECONDS=1e300` trapped converting to a
/// `timeval`, `LAYOUTD_MAX_CONNECTIONS=9223372036854775807` overflowed sharing it among workers).
///
/// Every number has a range, finite, and small enough that the code that uses it can represent it
/// (a `timeval`, an `Int32` backlog, a libevent size, a count multiplied by a few); each source
/// (configuration file, environment variable, flag) is checked against it, setting by setting, as
/// it is read, so the message names the one value that is wrong and where it came from.
/// docs/operations.md ("Every setting") lists the same ranges.
extension DaemonConfiguration {
    /// The allowed values of each numeric setting; a test checks that every number `--print-config`
    /// shows has one.
    static let ranges: [String: SettingRange] = [
        "port": .whole(0...65_535, note: "0 picks a free port"),
        "threads": .whole(0...1_024, note: "0 means one per CPU but one"),
        // A body is held in memory (twice it at the transport); a gigabyte is far past any document.
        "maxBodyBytes": .whole(0...1_073_741_824),
        // libevent holds the whole head in memory; 1 MiB is 64 times the default.
        "maxHeaderBytes": .whole(256...1_048_576),
        "timeoutSeconds": .seconds(above: 0, upTo: oneDay),
        "requestDeadlineSeconds": .seconds(above: 0, upTo: oneDay),
        "maxConnections": .whole(0...1_000_000, note: "0 derives it from the descriptor limit"),
        "shutdownGraceSeconds": .seconds(from: 0, upTo: oneDay),
        // listen(2) takes an int, and the kernel cuts it to net.core.somaxconn anyway.
        "backlog": .whole(1...65_535),
        "maxViews": .whole(1...1_000_000),
        "maxConstraints": .whole(0...10_000_000),
        "maxSessions": .whole(1...10_000_000),
        "maxResidentSessions": .whole(0...10_000_000, note: "0 means no limit"),
        // 1 TiB: more than any machine this runs on, far from Int's limits.
        "maxResidentBytes": .whole(0...1_099_511_627_776, note: "0 means no limit"),
        "sessionIdleTimeoutSeconds": .seconds(from: 0, upTo: 365 * oneDay, note: "0 means sessions never expire"),
        "maxSubscribersPerSession": .whole(0...1_000_000),
        "maxSubscribers": .whole(0...1_000_000),
    ]

    static let oneDay = 86_400.0

    /// The value of the numeric setting `key`, and as a message shows it (an `Int` exactly,
    /// which a `Double` would round); nil for the other settings.
    func number(of key: String) -> (value: Double, text: String)? {
        func whole(_ n: Int) -> (Double, String) { (Double(n), String(n)) }
        func real(_ x: Double) -> (Double, String) { (x, SettingRange.show(x)) }
        switch key {
        case "port": return whole(port)
        case "threads": return whole(threads)
        case "maxBodyBytes": return whole(maxBodyBytes)
        case "maxHeaderBytes": return whole(maxHeaderBytes)
        case "timeoutSeconds": return real(timeoutSeconds)
        case "requestDeadlineSeconds": return real(requestDeadlineSeconds)
        case "maxConnections": return whole(maxConnections)
        case "shutdownGraceSeconds": return real(shutdownGraceSeconds)
        case "backlog": return whole(backlog)
        case "maxViews": return whole(maxViews)
        case "maxConstraints": return whole(maxConstraints)
        case "maxSessions": return whole(maxSessions)
        case "maxResidentSessions": return whole(maxResidentSessions)
        case "maxResidentBytes": return whole(maxResidentBytes)
        case "sessionIdleTimeoutSeconds": return real(sessionIdleTimeoutSeconds)
        case "maxSubscribersPerSession": return whole(maxSubscribersPerSession)
        case "maxSubscribers": return whole(maxSubscribers)
        default: return nil
        }
    }

    /// What is wrong with the numeric setting `key` as it stands, or nil (also for a setting
    /// that is not a number). A number without a range is a programming error caught by a test
    /// (`OperatorSettingsTests`), not at run time.
    func rangeProblem(of key: String) -> String? {
        guard let (value, text) = number(of: key), let range = Self.ranges[key], !range.contains(value) else { return nil }
        return "\(key) must be \(range), not \(text)"
    }
}

/// The values a numeric setting may take: finite, from `lower` (included or not) to `upper`.
struct SettingRange: CustomStringConvertible {
    let lower: Double
    let lowerIncluded: Bool
    let upper: Double
    let isWhole: Bool
    /// What a special value means (`0 means no limit`).
    let note: String?

    static func whole(_ range: ClosedRange<Int>, note: String? = nil) -> SettingRange {
        SettingRange(lower: Double(range.lowerBound), lowerIncluded: true, upper: Double(range.upperBound),
                     isWhole: true, note: note)
    }

    static func seconds(above lower: Double, upTo upper: Double, note: String? = nil) -> SettingRange {
        SettingRange(lower: lower, lowerIncluded: false, upper: upper, isWhole: false, note: note)
    }

    static func seconds(from lower: Double, upTo upper: Double, note: String? = nil) -> SettingRange {
        SettingRange(lower: lower, lowerIncluded: true, upper: upper, isWhole: false, note: note)
    }

    /// NaN and the infinities fail every comparison that matters here.
    func contains(_ value: Double) -> Bool {
        value.isFinite && (lowerIncluded ? value >= lower : value > lower) && value <= upper
    }

    /// `a whole number in 0...65535 (0 picks a free port)`, `seconds, more than 0 and at most 86400`.
    var description: String {
        let text: String
        if isWhole {
            text = "a whole number in \(Self.show(lower))...\(Self.show(upper))"
        } else {
            text = "a number of seconds \(lowerIncluded ? "from" : "more than") \(Self.show(lower)) "
                + "\(lowerIncluded ? "to" : "and at most") \(Self.show(upper))"
        }
        return note.map { "\(text) (\($0))" } ?? text
    }

    /// A value for a message: whole numbers without a fraction, whatever their size.
    static func show(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e18 { return String(Int64(value)) }
        return String(value)
    }
}
