/// Settings from environment variables (issue 23: a container needs no configuration file).
///
/// Every key of the configuration file has one: `LAYOUTD_` and the key in upper snake case
/// (`port` → `LAYOUTD_PORT`, `maxBodyBytes` → `LAYOUTD_MAX_BODY_BYTES`); `LAYOUTD_CONFIG` names the
/// file itself. They sit above the file and below the flags. An empty variable counts as unset;
/// `LAYOUTD_CORS_ORIGINS` is a list separated by commas or spaces.
extension DaemonConfiguration {
    /// `LAYOUTD_MAX_BODY_BYTES` for `maxBodyBytes`.
    static func environmentName(of key: String) -> String {
        var name = "LAYOUTD_"
        for c in key {
            if c.isUppercase { name.append("_") }
            name.append(contentsOf: c.uppercased())
        }
        return name
    }

    /// The environment variable of each setting, in `keys` order.
    static var environmentNames: [(key: String, variable: String)] { keys.map { ($0, environmentName(of: $0)) } }

    /// Overlays the settings named in `environment`. Throws naming the variable when a value does
    /// not parse, or is not allowed for its setting (the same rules as `validate()`).
    mutating func applyEnvironment(_ environment: [String: String]) throws {
        for (key, variable) in Self.environmentNames {
            guard let value = environment[variable], !value.isEmpty else { continue }
            do {
                try set(key, fromText: value)
                // Checked alone, on the defaults: a failure can only be this variable's.
                var alone = DaemonConfiguration()
                try alone.set(key, fromText: value)
                try alone.validate()
            } catch let error as ConfigurationError {
                throw ConfigurationError("environment variable \(variable)=\(value): \(error.message)")
            }
        }
    }

    /// Sets `key` from text (an environment variable's value): numbers in decimal, lists separated
    /// by commas or spaces.
    mutating func set(_ key: String, fromText text: String) throws {
        func integer() throws -> Int {
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError("must be a whole number, not '\(text)'")
            }
            return value
        }
        func number() throws -> Double {
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw ConfigurationError("must be a finite number, not '\(text)'")
            }
            return value
        }
        switch key {
        case "host": host = text
        case "port": port = try integer()
        case "threads": threads = try integer()
        case "maxBodyBytes": maxBodyBytes = try integer()
        case "maxHeaderBytes": maxHeaderBytes = try integer()
        case "timeoutSeconds": timeoutSeconds = try number()
        case "requestDeadlineSeconds": requestDeadlineSeconds = try number()
        case "maxConnections": maxConnections = try integer()
        case "shutdownGraceSeconds": shutdownGraceSeconds = try number()
        case "backlog": backlog = try integer()
        case "logLevel": logLevel = text
        case "logFormat": logFormat = text
        case "lockDirectory": lockDirectory = text
        case "maxViews": maxViews = try integer()
        case "maxConstraints": maxConstraints = try integer()
        case "maxSessions": maxSessions = try integer()
        case "maxResidentSessions": maxResidentSessions = try integer()
        case "maxSubscribersPerSession": maxSubscribersPerSession = try integer()
        case "maxSubscribers": maxSubscribers = try integer()
        case "sessionIdleTimeoutSeconds": sessionIdleTimeoutSeconds = try number()
        case "corsOrigins":
            corsOrigins = text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        case "store": store = text
        case "sync": sync = text
        default: throw ConfigurationError("unknown setting '\(key)'")
        }
    }
}
