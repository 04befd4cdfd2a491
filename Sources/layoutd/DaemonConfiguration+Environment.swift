import Storage

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
                try set(key, from: TextSetting(text: value))
                // Checked as read: a failure can only be this variable's.
                if let problem = problem(with: key) { throw ConfigurationError(problem) }
            } catch let error as ConfigurationError {
                // LAYOUTD_STORE may hold a database password.
                let shown = key == "store" ? redactedStoreURL(value) : value
                throw ConfigurationError("environment variable \(variable)=\(shown): \(error.message)")
            }
        }
    }
}

/// An environment variable's value: numbers in decimal, lists separated by commas or spaces.
struct TextSetting: SettingValue {
    let text: String

    func string() throws -> String { text }

    func number() throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError("must be a finite number, not '\(text)'")
        }
        return value
    }

    func integer() throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("must be a whole number, not '\(text)'")
        }
        return value
    }

    func strings() throws -> [String] { text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }

    func boolean() throws -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError("must be true or false, not '\(text)'")
        }
    }
}
