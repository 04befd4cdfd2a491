/// The check `layoutd serve` runs before it binds: the libevent version, then the probes.
extension LibeventInternals {
    /// The checks by name, as `forcedFailureVariable` names them.
    public enum Check: String, CaseIterable, Sendable {
        /// The libevent loaded and the headers compiled against are in `acceptedVersions`.
        case version
        /// The request fields and the reply path of LibeventInternals.c hold on real requests.
        case requestFields = "request-fields"
        /// libevent's own error replies reach the daemon's `evhttp_send_error` (problem+json).
        case errorReplies = "error-replies"
    }

    /// Makes the named check fail, so that a test can see a failed check stop `layoutd serve`
    /// without a broken libevent. It can only add a failure, never skip or pass a check, so it is
    /// harmless outside tests; the name says what it is for.
    public static let forcedFailureVariable = "LAYOUTD_TEST_FAIL_LIBEVENT_CHECK"

    /// What the start-up check found.
    public struct StartupCheck: Sendable {
        /// `event_get_version()` of the libevent loaded ("2.1.12-stable").
        public let version: String
        /// The checks that ran and held.
        public let held: [Check]
        /// What did not hold, one sentence each; empty when everything held.
        public let failures: [String]
        /// The `Content-Type` of libevent's own error replies, when that probe ran.
        public let errorReplyContentType: String?

        public var holds: Bool { failures.isEmpty }

        /// One line for the operator: the version found, what did not hold, and what to do.
        public var message: String {
            guard !holds else { return "libevent \(version): \(held.map(\.rawValue).joined(separator: ", ")) checked" }
            return """
                libevent \(version) does not hold what layoutd relies on: \(failures.joined(separator: "; ")); \
                install \(acceptedVersionsText), or review CEventHTTPSupport/LibeventInternals.c and \
                CProblemReplies/ProblemReplies.c for this version (docs/operations.md, "libevent")
                """
        }
    }

    /// Runs the checks: the version first, and the probes only when it is accepted (they read and
    /// write `struct evhttp_request` as the 2.1 headers lay it out: on another layout they could
    /// corrupt memory instead of failing). `requireErrorReplyOverride`: whether this process must
    /// answer libevent's own errors as problem+json (the daemon, which links CProblemReplies).
    /// `environment` is looked up for `forcedFailureVariable` only.
    public static func startupCheck(requireErrorReplyOverride: Bool, environment: [String: String] = [:]) -> StartupCheck {
        var failures: [String] = []
        var held: [Check] = []
        var errorReplies: String?
        let forced = environment[forcedFailureVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let forced, Check(rawValue: forced) == nil {
            failures.append("\(forcedFailureVariable)=\(forced) names no check (\(Check.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        func record(_ check: Check, _ problem: String?) {
            if let problem {
                failures.append(problem)
            } else if forced == check.rawValue {
                failures.append("the \(check.rawValue) check was made to fail by \(forcedFailureVariable)")
            } else {
                held.append(check)
            }
        }
        let verdict = judgeVersion(loaded: loadedVersionNumber, compiledAgainst: headerVersionNumber)
        if case .refused(let why) = verdict {
            failures.append(why)
        } else {
            record(.version, nil)
        }
        if verdict == .accepted {
            record(.requestFields, requestFieldsProblem().map { "request fields: \($0)" })
            if requireErrorReplyOverride {
                let contentType = errorReplyContentType()
                errorReplies = contentType
                record(.errorReplies, contentType == "application/problem+json" ? nil : """
                    error replies: libevent answers the requests it rejects by itself with \(contentType ?? "no reply"), \
                    not application/problem+json (the evhttp_send_error override did not take effect)
                    """)
            }
        }
        return StartupCheck(version: loadedVersion, held: held, failures: failures, errorReplyContentType: errorReplies)
    }
}
