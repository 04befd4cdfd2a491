import Storage

extension Serve {
    /// The flags given, each with its setting and its value as a message shows it (a `--store`
    /// value redacted: it may hold a database password).
    var givenFlags: [(key: String, flag: String, value: String)] {
        let all: [(String, String, String?)] = [
            ("host", "--host", host), ("port", "--port", port.map { String($0) }),
            ("threads", "--threads", threads.map { String($0) }),
            ("maxBodyBytes", "--max-body-bytes", maxBodyBytes.map { String($0) }),
            ("maxHeaderBytes", "--max-header-bytes", maxHeaderBytes.map { String($0) }),
            ("timeoutSeconds", "--timeout-seconds", timeoutSeconds.map { String($0) }),
            ("requestDeadlineSeconds", "--request-deadline-seconds", requestDeadlineSeconds.map { String($0) }),
            ("maxConnections", "--max-connections", maxConnections.map { String($0) }),
            ("shutdownGraceSeconds", "--shutdown-grace-seconds", shutdownGraceSeconds.map { String($0) }),
            ("backlog", "--backlog", backlog.map { String($0) }),
            ("logLevel", "--log-level", logLevel), ("logFormat", "--log-format", logFormat),
            ("lockDirectory", "--lock-directory", lockDirectory),
            ("maxViews", "--max-views", maxViews.map { String($0) }),
            ("maxConstraints", "--max-constraints", maxConstraints.map { String($0) }),
            ("maxSessions", "--max-sessions", maxSessions.map { String($0) }),
            ("maxResidentSessions", "--max-resident-sessions", maxResidentSessions.map { String($0) }),
            ("maxResidentBytes", "--max-resident-bytes", maxResidentBytes.map { String($0) }),
            ("sessionIdleTimeoutSeconds", "--session-idle-timeout-seconds", sessionIdleTimeoutSeconds.map { String($0) }),
            ("maxSubscribersPerSession", "--max-subscribers-per-session", maxSubscribersPerSession.map { String($0) }),
            ("maxSubscribers", "--max-subscribers", maxSubscribers.map { String($0) }),
            ("corsOrigins", "--cors-origin", corsOrigins.isEmpty ? nil : corsOrigins.joined(separator: " ")),
            ("store", "--store", store.map { redactedStoreURL($0) }),
            ("sync", "--sync", sync),
            ("apiKeysFile", "--api-keys", apiKeys),
            ("logFile", "--log-file", logFile),
            ("trustedProxies", "--trusted-proxy", trustedProxies.isEmpty ? nil : trustedProxies.joined(separator: " ")),
        ]
        return all.compactMap { key, flag, value in value.map { (key, flag, $0) } }
    }

    /// Throws for the first flag whose value its setting does not allow, naming the flag and the
    /// value (`--timeout-seconds inf: timeoutSeconds must be ...`), as the file and the
    /// environment name themselves. `validate()` then checks what is left (the defaults).
    func checkFlags(_ settings: DaemonConfiguration) throws {
        for given in givenFlags {
            if let problem = settings.problem(with: given.key) {
                throw ConfigurationError("\(given.flag) \(given.value): \(problem)")
            }
        }
    }
}
