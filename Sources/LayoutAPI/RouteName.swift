/// A route's name in metrics (`layoutd_http_requests_total{route=…}`): one per `Route` case,
/// whatever its path parameters, and `unknown` for a path no route matches (404). A small closed
/// set, so that a scan of random paths cannot grow the number of series.
public enum RouteName: Int, CaseIterable, Sendable {
    case unknown
    case healthz, solve, sessions, session, sessionFrames, sessionEvents, sessionRender, render
    case sessionTokens
    case sessionExplain
    case playground, clientScript, playgroundScript
    case metrics, readyz
    case openAPIJSON, openAPIYAML, layoutDocumentSchema

    /// The `route` label value.
    public var label: String {
        switch self {
        case .unknown: return "unknown"
        case .healthz: return "healthz"
        case .solve: return "solve"
        case .sessions: return "sessions"
        case .session: return "session"
        case .sessionFrames: return "session_frames"
        case .sessionEvents: return "session_events"
        case .sessionRender: return "session_render"
        case .render: return "render"
        case .sessionTokens: return "session_tokens"
        case .sessionExplain: return "session_explain"
        case .playground: return "playground"
        case .clientScript: return "client_js"
        case .playgroundScript: return "playground_js"
        case .metrics: return "metrics"
        case .readyz: return "readyz"
        case .openAPIJSON: return "openapi_json"
        case .openAPIYAML: return "openapi_yaml"
        case .layoutDocumentSchema: return "document_schema"
        }
    }
}

extension Route {
    /// Exhaustive on purpose: a new route does not compile until it has a name of its own.
    var name: RouteName {
        switch self {
        case .healthz: return .healthz
        case .solve: return .solve
        case .sessions: return .sessions
        case .session: return .session
        case .sessionFrames: return .sessionFrames
        case .sessionEvents: return .sessionEvents
        case .sessionRender: return .sessionRender
        case .render: return .render
        case .sessionTokens: return .sessionTokens
        case .sessionExplain: return .sessionExplain
        case .playground: return .playground
        case .clientScript: return .clientScript
        case .playgroundScript: return .playgroundScript
        case .metrics: return .metrics
        case .readyz: return .readyz
        case .openAPIJSON: return .openAPIJSON
        case .openAPIYAML: return .openAPIYAML
        case .layoutDocumentSchema: return .layoutDocumentSchema
        }
    }
}
