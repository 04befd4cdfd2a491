import JSON
import Primitives

/// The routes of http.md's table, matched on the path as sent: split at its `/`s first, then each
/// segment percent-decoded (RFC 3986: `%2F` is data inside a segment, never a separator, and
/// `/%68ealthz` is `/healthz`, a percent-encoded unreserved character being the character itself).
enum Route: Equatable, Sendable {
    case healthz
    case solve
    case sessions
    case session(String)
    case sessionFrames(String)
    case sessionEvents(String)
    case sessionRender(String)
    /// `POST /v1/sessions/{id}/tokens`: a stream token of the session (access control).
    case sessionTokens(String)
    /// `GET /v1/sessions/{id}/explain?view=V&attribute=A`: why an attribute has its value.
    case sessionExplain(String)
    case render
    case playground
    case clientScript
    case playgroundScript
    // --- operator routes (issue 23: metrics, readiness) ---
    case metrics
    case readyz
    // --- end of operator routes ---
    /// The API's description (docs/openapi.yaml, self-contained) and the layout document's schema.
    case openAPIJSON
    case openAPIYAML
    case layoutDocumentSchema

    /// `sessionsPrefix`, for matching bytes.
    private static let sessionsPrefixBytes: StaticString = "/v1/sessions/"
    static let sessionsPrefix = sessionsPrefixBytes.description

    /// The route for `path` (still percent-encoded), or nil (404). Paths match exactly: no
    /// trailing `/`, no empty segment (`//healthz` is a 404), no empty id.
    static func match(_ path: String) -> Route? {
        if let route = matchSessionASCII(path) { return route }
        guard path.hasPrefix("/") else { return nil }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { percentDecode($0) }
        switch segments.count {
        case 1:
            switch segments[0] {
            case "healthz": return .healthz
            case "": return .playground
            case "client.js": return .clientScript
            case "playground.js": return .playgroundScript
            // --- operator routes ---
            case "metrics": return .metrics
            case "readyz": return .readyz
            // --- end of operator routes ---
            case "openapi.json": return .openAPIJSON
            case "openapi.yaml": return .openAPIYAML
            default: return nil
            }
        case 2 where segments[0] == "schemas":
            return segments[1] == "layout-document.json" ? .layoutDocumentSchema : nil
        case 2 where segments[0] == "v1":
            switch segments[1] {
            case "solve": return .solve
            case "sessions": return .sessions
            case "render.svg": return .render
            default: return nil
            }
        case 3, 4:
            guard segments[0] == "v1", segments[1] == "sessions", !segments[2].isEmpty else { return nil }
            let id = segments[2]
            if segments.count == 3 { return .session(id) }
            switch segments[3] {
            case "frames": return .sessionFrames(id)
            case "events": return .sessionEvents(id)
            case "render.svg": return .sessionRender(id)
            case "tokens": return .sessionTokens(id)
            case "explain": return .sessionExplain(id)
            default: return nil
            }
        default:
            return nil
        }
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
            let raw = UnsafeBufferPointer(rebasing: rest[..<slash])
            // Decoded after the split: an id's `%2F` is part of the id.
            let id = raw.contains(UInt8(ascii: "%")) ? percentDecode(String(decoding: raw, as: UTF8.self))
                : String(decoding: raw, as: UTF8.self)
            if slash == rest.endIndex { return .session(id) }
            let sub = UnsafeBufferPointer(rebasing: rest[(slash + 1)...])
            if sub.hasBytes(of: "frames") { return .sessionFrames(id) }
            if sub.hasBytes(of: "events") { return .sessionEvents(id) }
            if sub.hasBytes(of: "render.svg") { return .sessionRender(id) }
            if sub.hasBytes(of: "tokens") { return .sessionTokens(id) }
            if sub.hasBytes(of: "explain") { return .sessionExplain(id) }
            return nil
        }
    }

    /// Methods answered, for `Allow` and CORS preflights (HEAD wherever GET is, OPTIONS everywhere).
    var allowedMethods: [String] {
        switch self {
        case .healthz, .sessionFrames, .sessionEvents, .sessionRender, .playground, .clientScript, .playgroundScript,
             .openAPIJSON, .openAPIYAML, .layoutDocumentSchema, .sessionExplain:
            return ["GET", "HEAD", "OPTIONS"]
        case .solve, .sessions, .render, .sessionTokens: return ["POST", "OPTIONS"]
        case .metrics, .readyz: return ["GET", "HEAD", "OPTIONS"]  // operator routes
        case .session: return ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]
        }
    }

    var allowHeader: String { allowedMethods.joined(separator: ", ") }
}
