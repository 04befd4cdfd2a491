/// The routes of http.md's table, matched on the percent-decoded path.
enum Route: Equatable, Sendable {
    case healthz
    case solve
    case sessions
    case session(String)
    case sessionFrames(String)

    static let sessionsPrefix = "/v1/sessions/"

    /// The route for `path`, or nil (404). Paths match exactly: no trailing `/`, no empty id.
    static func match(_ path: String) -> Route? {
        switch path {
        case "/healthz": return .healthz
        case "/v1/solve": return .solve
        case "/v1/sessions": return .sessions
        default: break
        }
        guard path.hasPrefix(sessionsPrefix) else { return nil }
        let rest = path.dropFirst(sessionsPrefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let id = parts.first, !id.isEmpty else { return nil }
        if parts.count == 1 { return .session(String(id)) }
        if parts.count == 2 && parts[1] == "frames" { return .sessionFrames(String(id)) }
        return nil
    }

    /// Methods answered, for `Allow` and CORS preflights (HEAD wherever GET is, OPTIONS everywhere).
    var allowedMethods: [String] {
        switch self {
        case .healthz, .sessionFrames: return ["GET", "HEAD", "OPTIONS"]
        case .solve, .sessions: return ["POST", "OPTIONS"]
        case .session: return ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]
        }
    }

    var allowHeader: String { allowedMethods.joined(separator: ", ") }
}
