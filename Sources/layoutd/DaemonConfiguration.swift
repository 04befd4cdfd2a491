import JSON
import Foundation
import LayoutAPI
import Logging
import PostgresStorage
import Storage

/// Every setting of `layoutd serve`, with its built-in default.
///
/// Sources, later wins: these defaults, then the JSON configuration file (`--config FILE`, or
/// `$LAYOUTD_CONFIG` when no `--config` is given), then command-line flags. `config/layoutd.json`
/// lists every key with the default below; a test checks that the two agree.
///
/// To add a setting: a stored property, a line in `set(_:from:)`, one in `jsonText`, a range in
/// `ranges` and `number(of:)` (DaemonConfiguration+Ranges.swift) for a number, or a check in
/// `problem(with:)` for the others, the key in `config/layoutd.json`, and (usually) a flag in `Serve` (and
/// its row in `givenFlags`). The API's settings
/// also go into `apiConfiguration`.
struct DaemonConfiguration: Equatable, Sendable {
    var host = "127.0.0.1"
    var port = 8080
    /// Worker threads; 0 means one per CPU but one, at least one (EventHTTP's `automaticThreads(cpus:)`).
    var threads = 0
    var maxBodyBytes = 1_048_576
    var maxHeaderBytes = 16_384
    var timeoutSeconds = 30.0
    /// Longest a request's line, headers and body may take from its first byte (slowloris).
    var requestDeadlineSeconds = 30.0
    /// Most connections open at once; 0 derives it from RLIMIT_NOFILE (EventHTTP's `automaticMaxConnections`).
    var maxConnections = 0
    var shutdownGraceSeconds = 1.0
    var backlog = 511
    var logLevel = "info"
    /// `text` or `json` (one object a line); the access log and every other line.
    var logFormat = "text"
    var lockDirectory = "/tmp"

    // The API's settings (docs/http.md "Limits and configuration"); `maxBodyBytes` above is one too.
    /// Most views per document (422 `too_many_views` beyond).
    var maxViews = 20_000
    /// Most constraint entries per document (422 `too_many_constraints` beyond).
    var maxConstraints = 100_000
    /// Most sessions alive at once; creating one more answers 429.
    var maxSessions = 10_000
    /// Most sessions kept resident (solver in memory); the least recently used beyond sleep as
    /// their document text and wake on their next request. 0: every session stays resident.
    var maxResidentSessions = 1_000
    /// Most bytes the sessions in memory may take, estimated (`MemoryEstimate`: document text,
    /// solver state per view and constraint entry); the least recently used beyond sleep as for
    /// `maxResidentSessions`. 0: no limit. Default 1 GiB.
    var maxResidentBytes = 1 << 30
    /// A session untouched for this long is dropped; 0 never drops one.
    var sessionIdleTimeoutSeconds = 900.0
    /// Most open event streams on one session (429 beyond) and over all sessions (503 beyond).
    var maxSubscribersPerSession = 100
    var maxSubscribers = 1_000
    /// Origins allowed to call the API from a browser (exact `scheme://host[:port]`, `scheme://host:*`
    /// for any port, or `*`); empty: no CORS.
    var corsOrigins: [String] = []

    // The session store (issue 21, docs/operations.md).
    /// `memory` (nothing survives a restart; the built-in default, so tests and throw-away daemons
    /// write nothing), `sqlite:PATH` (config/layoutd.json: `sqlite:data/layoutd.db`), or a
    /// `postgres://` (`postgresql://`) URL: a database shared by several nodes.
    var store = "memory"
    /// When an acknowledged change is fsynced: `always`, `everysec` or `never` (Redis's words).
    var sync = "everysec"

    // Access control (issue 29, docs/operations.md "Access control").
    /// The API keys file (`layoutd keys new`); empty: no keys, and then `host` must be a loopback
    /// address unless `allowAnonymous`.
    var apiKeysFile = ""
    /// Serve a non-loopback `host` without keys, deliberately (Redis's protected mode, turned off).
    var allowAnonymous = false

    // Logs an operator can use (issue 33, docs/operations.md "Logs").
    /// The file log lines go to, opened again on SIGHUP; empty: standard error.
    var logFile = ""
    /// Addresses and CIDR blocks of proxies whose `X-Forwarded-For` names the client in the access
    /// log (`TrustedProxies`); empty: the peer's address is the client's.
    var trustedProxies: [String] = []

    /// The keys a configuration file may hold, in the order `jsonText` writes them.
    static let keys = [
        "host", "port", "threads", "maxBodyBytes", "maxHeaderBytes", "timeoutSeconds",
        "requestDeadlineSeconds", "maxConnections", "shutdownGraceSeconds", "backlog", "logLevel", "logFormat", "lockDirectory",
        "maxViews", "maxConstraints", "maxSessions", "maxResidentSessions", "maxResidentBytes", "sessionIdleTimeoutSeconds",
        "maxSubscribersPerSession", "maxSubscribers", "corsOrigins", "store", "sync", "apiKeysFile", "allowAnonymous",
        "logFile", "trustedProxies",
    ]

    static let logLevels = Logger.Level.allCases.map(\.rawValue)

    var swiftLogLevel: Logger.Level { Logger.Level(rawValue: logLevel) ?? .info }
    var logFormatValue: LogFormat { LogFormat(rawValue: logFormat) ?? .text }

    // MARK: loading

    /// Defaults overlaid with the file at `path` (when not nil).
    static func load(path: String?) throws -> DaemonConfiguration {
        guard let path else { return DaemonConfiguration() }
        let data = try readConfigurationFile(path)
        do {
            return try JSONDecoder().decode(ConfigurationFile.self, from: data).configuration
        } catch let error as ConfigurationError {
            throw ConfigurationError("configuration file \(path): \(error.message)")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw ConfigurationError("configuration file \(path) must hold a JSON object")
        } catch {
            throw ConfigurationError("configuration file \(path) is not valid JSON")
        }
    }

    /// Sets `key` from `value` (the file's JSON or an environment variable's text): the one
    /// place that knows each setting's type.
    mutating func set(_ key: String, from value: some SettingValue) throws {
        switch key {
        case "host": host = try value.string()
        case "port": port = try value.integer()
        case "threads": threads = try value.integer()
        case "maxBodyBytes": maxBodyBytes = try value.integer()
        case "maxHeaderBytes": maxHeaderBytes = try value.integer()
        case "timeoutSeconds": timeoutSeconds = try value.number()
        case "requestDeadlineSeconds": requestDeadlineSeconds = try value.number()
        case "maxConnections": maxConnections = try value.integer()
        case "shutdownGraceSeconds": shutdownGraceSeconds = try value.number()
        case "backlog": backlog = try value.integer()
        case "logLevel": logLevel = try value.string()
        case "logFormat": logFormat = try value.string()
        case "lockDirectory": lockDirectory = try value.string()
        case "maxViews": maxViews = try value.integer()
        case "maxConstraints": maxConstraints = try value.integer()
        case "maxSessions": maxSessions = try value.integer()
        case "maxResidentSessions": maxResidentSessions = try value.integer()
        case "maxResidentBytes": maxResidentBytes = try value.integer()
        case "maxSubscribersPerSession": maxSubscribersPerSession = try value.integer()
        case "maxSubscribers": maxSubscribers = try value.integer()
        case "sessionIdleTimeoutSeconds": sessionIdleTimeoutSeconds = try value.number()
        case "corsOrigins": corsOrigins = try value.strings()
        case "store": store = try value.string()
        case "sync": sync = try value.string()
        case "apiKeysFile": apiKeysFile = try value.string()
        case "allowAnonymous": allowAnonymous = try value.boolean()
        case "logFile": logFile = try value.string()
        case "trustedProxies": trustedProxies = try value.strings()
        default:
            throw ConfigurationError(
                "unknown setting '\(key)' (known settings: \(Self.keys.joined(separator: ", ")))")
        }
    }

    // MARK: checking and printing

    /// Throws the first setting's problem (`problem(with:)`), in `keys` order.
    func validate() throws {
        for key in Self.keys {
            if let problem = problem(with: key) { throw ConfigurationError(problem) }
        }
        if let problem = protectedModeProblem { throw ConfigurationError(problem) }
    }

    /// Protected mode (Redis's idea): without keys, only this machine may connect, unless the
    /// operator says otherwise. Checked once every source has spoken: a host from the file and
    /// keys from a flag are fine together.
    var protectedModeProblem: String? {
        guard apiKeysFile.isEmpty, !allowAnonymous, !Self.isLoopback(host) else { return nil }
        return "host \(host) would serve anyone on the network without keys: give --api-keys FILE "
            + "(setting apiKeysFile; make keys with `layoutd keys new NAME --file FILE`), or --allow-anonymous "
            + "(setting allowAnonymous) to serve without keys deliberately"
    }

    /// What is wrong with setting `key` as it stands, or nil. One setting at a time, so that each
    /// source can check the values it gave and name itself (`applyEnvironment`, the file, the flags).
    func problem(with key: String) -> String? {
        if let problem = rangeProblem(of: key) { return problem }
        switch key {
        case "host": if host.isEmpty { return "host must not be empty" }
        case "logLevel":
            if !Self.logLevels.contains(logLevel) {
                return "logLevel must be one of \(Self.logLevels.joined(separator: ", ")), not '\(logLevel)'"
            }
        case "logFormat":
            if LogFormat(rawValue: logFormat) == nil {
                return "logFormat must be one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(logFormat)'"
            }
        case "lockDirectory": if lockDirectory.isEmpty { return "lockDirectory must not be empty" }

        case "store":
            // The value may hold a password: messages show it redacted.
            if case .postgres(let url)? = storeLocation, let problem = PostgresSessionStorage.problem(url: url) {
                return "store: '\(redactedStoreURL(store))' is not a PostgreSQL URL libpq accepts: \(redactedStoreURL(problem))"
            }
            if storeLocation == nil {
                return "store must be memory, sqlite:PATH (e.g. sqlite:data/layoutd.db) or a postgres:// URL "
                    + "(e.g. postgres://layoutd@db.internal:5432/layoutd), not '\(redactedStoreURL(store))'"
            }
        case "sync":
            if StorageSync(rawValue: sync) == nil {
                return "sync must be one of \(StorageSync.allCases.map(\.rawValue).joined(separator: ", ")), not '\(sync)'"
            }
        case "corsOrigins":
            for origin in corsOrigins where !Self.isValidOrigin(origin) {
                return "corsOrigins: '\(origin)' is not an origin: write scheme://host[:port] without a path "
                    + "or a trailing '/' (e.g. https://app.example:8443), scheme://host:* for any port "
                    + "(e.g. http://localhost:*), or * for any origin"
            }
        case "trustedProxies":
            for entry in trustedProxies where AddressBlock(entry) == nil {
                return "trustedProxies: '\(entry)' is not an IP address or CIDR block (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)"
            }
        default: break
        }
        return nil
    }

    /// `*`, `scheme://host[:port]` with nothing after the host and port (browsers send `Origin`
    /// that way, so anything else would never match), or `scheme://host:*` (any port).
    static func isValidOrigin(_ origin: String) -> Bool { CORS.isPattern(origin) }

    /// Where sessions are kept, read from `store`; nil when it names no supported store.
    enum StoreLocation: Equatable { case memory, sqlite(path: String), postgres(url: String) }
    var storeLocation: StoreLocation? {
        if store == "memory" { return .memory }
        if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") { return .postgres(url: store) }
        if store.hasPrefix("sqlite:") && store.count > "sqlite:".count { return .sqlite(path: String(store.dropFirst(7))) }
        return nil
    }

    /// `store` for logs and messages: a password replaced by `***` (`redactedStoreURL`).
    var storeForLog: String { redactedStoreURL(store) }

    var syncValue: StorageSync { StorageSync(rawValue: sync) ?? .everysec }

    /// The settings that belong to the API, as LayoutAPI takes them.
    var apiConfiguration: APIConfiguration {
        APIConfiguration(maxBodyBytes: maxBodyBytes, maxViews: maxViews, maxConstraints: maxConstraints,
                         maxSessions: maxSessions, maxResidentSessions: maxResidentSessions,
                         maxResidentBytes: maxResidentBytes,
                         sessionIdleTimeoutSeconds: sessionIdleTimeoutSeconds,
                         corsOrigins: corsOrigins, maxSubscribersPerSession: maxSubscribersPerSession,
                         maxSubscribers: maxSubscribers)
    }

    /// The body limit given to the transport (libevent), above `maxBodyBytes` so that a body somewhat
    /// over the limit reaches the API and gets its `application/problem+json` 413 on a connection
    /// that stays open. A body over this larger limit (twice `maxBodyBytes`, at least 64 KiB more) is
    /// read and dropped by libevent without being buffered: a 413 (problem+json as well, from
    /// `CProblemReplies/ProblemReplies.c`) and the connection closes.
    var transportMaxBodyBytes: Int {
        let slack = max(maxBodyBytes, 64 << 10)
        return maxBodyBytes > Int.max - slack ? Int.max : maxBodyBytes + slack
    }

    /// How often the daemon sweeps idle sessions: a quarter of the time-out, at most every 30 s;
    /// nil when sessions never expire.
    var sweepIntervalSeconds: Double? {
        sessionIdleTimeoutSeconds > 0 ? min(sessionIdleTimeoutSeconds / 4, 30) : nil
    }

    /// The configuration as a JSON object, one key per line, in `keys` order.
    var jsonText: String {
        let values: [String: String] = [
            "host": jsonString(host),
            "port": String(port),
            "threads": String(threads),
            "maxBodyBytes": String(maxBodyBytes),
            "maxHeaderBytes": String(maxHeaderBytes),
            "timeoutSeconds": jsonNumber(timeoutSeconds),
            "requestDeadlineSeconds": jsonNumber(requestDeadlineSeconds),
            "maxConnections": String(maxConnections),
            "shutdownGraceSeconds": jsonNumber(shutdownGraceSeconds),
            "backlog": String(backlog),
            "logLevel": jsonString(logLevel),
            "logFormat": jsonString(logFormat),
            "lockDirectory": jsonString(lockDirectory),
            "maxViews": String(maxViews),
            "maxConstraints": String(maxConstraints),
            "maxSessions": String(maxSessions),
            "maxResidentSessions": String(maxResidentSessions),
            "maxResidentBytes": String(maxResidentBytes),
            "sessionIdleTimeoutSeconds": jsonNumber(sessionIdleTimeoutSeconds),
            "maxSubscribersPerSession": String(maxSubscribersPerSession),
            "maxSubscribers": String(maxSubscribers),
            "corsOrigins": "[" + corsOrigins.map(jsonString).joined(separator: ", ") + "]",
            "store": jsonString(storeForLog),  // a password never reaches the output
            "sync": jsonString(sync),
            "apiKeysFile": jsonString(apiKeysFile),
            "allowAnonymous": allowAnonymous ? "true" : "false",
            "logFile": jsonString(logFile),
            "trustedProxies": "[" + trustedProxies.map(jsonString).joined(separator: ", ") + "]",
        ]
        let lines = Self.keys.map { "  \(jsonString($0)): \(values[$0]!)" }
        return "{\n" + lines.joined(separator: ",\n") + "\n}"
    }
}

fileprivate struct SettingKey: CodingKey {
    let stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// A configuration file: a JSON object whose keys are settings; any other key is an error.
fileprivate struct ConfigurationFile: Decodable {
    var configuration = DaemonConfiguration()

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: SettingKey.self)
        for key in container.allKeys.map(\.stringValue).sorted() {
            try configuration.set(key, from: FileSetting(key: key, container: container))
            // Checked as read, so the message is this key's even when a later source overrides others.
            if let problem = configuration.problem(with: key) { throw ConfigurationError(problem) }
        }
    }
}

struct ConfigurationError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

func jsonString(_ text: String) -> String {
    var w = JSONWriter(capacity: text.utf8.count + 2)
    w.appendString(text)
    return String(decoding: w.bytes, as: UTF8.self)
}

/// A number as JSON: whole values without a fraction (`30`), others as Swift prints them. The
/// ranges keep settings finite; were one not, `null` keeps the output JSON (Swift prints `inf`).
func jsonNumber(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}

/// A setting's value as one source gives it; `DaemonConfiguration.set(_:from:)` asks for the type
/// the setting has, and the source says, in its own words, when the value is not of it.
protocol SettingValue {
    func string() throws -> String
    func number() throws -> Double
    func integer() throws -> Int
    func strings() throws -> [String]
    func boolean() throws -> Bool
}

/// A value of the configuration file: its JSON type must match the setting's.
private struct FileSetting: SettingValue {
    let key: String
    let container: KeyedDecodingContainer<SettingKey>

    func string() throws -> String {
        do { return try container.decode(String.self, forKey: SettingKey(key)) } catch {
            throw ConfigurationError("'\(key)' must be a string")
        }
    }

    func number() throws -> Double {
        do {
            let value = try container.decode(Double.self, forKey: SettingKey(key))
            guard value.isFinite else { throw ConfigurationError("'\(key)' must be a finite number") }
            return value
        } catch let error as ConfigurationError { throw error } catch {
            throw ConfigurationError("'\(key)' must be a number")
        }
    }

    func integer() throws -> Int {
        let value = try number()
        guard value == value.rounded(), abs(value) < 9.0e15 else {
            throw ConfigurationError("'\(key)' must be a whole number")
        }
        return Int(value)
    }

    func strings() throws -> [String] {
        do { return try container.decode([String].self, forKey: SettingKey(key)) } catch {
            throw ConfigurationError("'\(key)' must be an array of strings")
        }
    }

    func boolean() throws -> Bool {
        do { return try container.decode(Bool.self, forKey: SettingKey(key)) } catch {
            throw ConfigurationError("'\(key)' must be true or false")
        }
    }
}

extension DaemonConfiguration {
    /// Whether `host` reaches only this machine: `localhost`, 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let h = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
