import JSON

/// The routes of http.md's table, matched on the percent-decoded path.
enum Route: Equatable, Sendable {
    case healthz
    case solve
    case sessions
    case session(String)
    case sessionFrames(String)
    case sessionEvents(String)
    case sessionRender(String)
    case render
    case playground
    case clientScript

    /// `sessionsPrefix`, for matching bytes.
    private static let sessionsPrefixBytes: StaticString = "/v1/sessions/"
    static let sessionsPrefix = sessionsPrefixBytes.description

    /// The route for `path`, or nil (404). Paths match exactly: no trailing `/`, no empty id.
    static func match(_ path: String) -> Route? {
        if let route = matchSessionASCII(path) { return route }
        switch path {
        case "/healthz": return .healthz
        case "/v1/solve": return .solve
        case "/v1/sessions": return .sessions
        case "/v1/render.svg": return .render
        case "/": return .playground
        case "/client.js": return .clientScript
        default: break
        }
        guard path.hasPrefix(sessionsPrefix) else { return nil }
        let rest = path.dropFirst(sessionsPrefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let id = parts.first, !id.isEmpty else { return nil }
        if parts.count == 1 { return .session(String(id)) }
        if parts.count == 2 {
            switch parts[1] {
            case "frames": return .sessionFrames(String(id))
            case "events": return .sessionEvents(String(id))
            case "render.svg": return .sessionRender(String(id))
            default: return nil
            }
        }
        return nil
    }

    /// The session routes (nearly every request) of an all-ASCII path, matched on its bytes:
    /// the general match splits `Character`s and compares strings by canonical equivalence,
    /// which for ASCII (one byte a character, CR LF aside, which is never `/`) decides the same.
    /// nil when the path is not ASCII or not a session route: the general match then decides.
    private static func matchSessionASCII(_ path: String) -> Route? {
        var path = path
        return path.withUTF8 { bytes -> Route? in
            let prefix = sessionsPrefixBytes
            guard bytes.count > prefix.utf8CodeUnitCount, bytes.hasPrefix(prefix),
                  bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[prefix.utf8CodeUnitCount...])
            let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            guard slash > 0 else { return nil }
            let id = String(decoding: UnsafeBufferPointer(rebasing: rest[..<slash]), as: UTF8.self)
            if slash == rest.endIndex { return .session(id) }
            let sub = UnsafeBufferPointer(rebasing: rest[(slash + 1)...])
            if sub.hasBytes(of: "frames") { return .sessionFrames(id) }
            if sub.hasBytes(of: "events") { return .sessionEvents(id) }
            if sub.hasBytes(of: "render.svg") { return .sessionRender(id) }
            return nil
        }
    }

    /// Methods answered, for `Allow` and CORS preflights (HEAD wherever GET is, OPTIONS everywhere).
    var allowedMethods: [String] {
        switch self {
        case .healthz, .sessionFrames, .sessionEvents, .sessionRender, .playground, .clientScript:
            return ["GET", "HEAD", "OPTIONS"]
        case .solve, .sessions, .render: return ["POST", "OPTIONS"]
        case .session: return ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]
        }
    }

    var allowHeader: String { allowedMethods.joined(separator: ", ") }
}
