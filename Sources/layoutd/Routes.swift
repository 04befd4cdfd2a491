import EventHTTP

/// The one place where HTTP (EventHTTP's `HTTPRequest`/`HTTPResponse`) meets the application.
///
/// `Serve` builds one `Router` at start-up and calls `respond(to:)` for every request, on the
/// worker thread that owns the connection (wrapped in the access log, see `AccessLog.swift`).
/// EventHTTP already drops the body of HEAD, 204 and 304 answers, so routes never need to.
///
/// Today only `GET /healthz` exists. To serve the LayoutAPI module instead, keep the struct and
/// swap its insides (plus `import LayoutAPI`), e.g.:
///
/// ```swift
/// private let api: LayoutAPI
/// init(configuration: DaemonConfiguration) {
///     api = LayoutAPI(configuration: APIConfiguration(maxBodyBytes: configuration.maxBodyBytes /* … */))
/// }
/// func respond(to request: HTTPRequest) -> HTTPResponse {
///     let reply = api.handle(APIRequest(method: request.method, path: request.path, query: request.query,
///                                       headers: request.headers, body: request.body))
///     return HTTPResponse(status: reply.status, headers: reply.headers, body: reply.body)
/// }
/// ```
struct Router: Sendable {
    private let routes: [String: Route]

    init(configuration: DaemonConfiguration) {
        routes = [
            "/healthz": Route(get: { _ in .json(status: 200, #"{"status":"ok"}"#) })
        ]
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let route = routes[request.path] else {
            return Problems.notFound(request)
        }
        return route.respond(to: request)
    }
}

/// The handlers of one path, by method. HEAD is answered like GET (without the body) and
/// OPTIONS with the list of methods, unless a route gives handlers of its own for them.
struct Route: Sendable {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    private var handlers: [String: Handler] = [:]

    init(get: Handler? = nil, post: Handler? = nil, put: Handler? = nil, patch: Handler? = nil,
         delete: Handler? = nil) {
        handlers["GET"] = get
        handlers["POST"] = post
        handlers["PUT"] = put
        handlers["PATCH"] = patch
        handlers["DELETE"] = delete
    }

    /// The methods the route answers, for `Allow`.
    var allowedMethods: [String] {
        var methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter {
            handlers[$0] != nil || ($0 == "HEAD" && handlers["GET"] != nil)
        }
        methods.append("OPTIONS")
        return methods
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if let handler = handlers[request.method] { return handler(request) }
        if request.method == "HEAD", let get = handlers["GET"] { return get(request) }
        let allow = allowedMethods.joined(separator: ", ")
        if request.method == "OPTIONS" { return HTTPResponse(status: 204, headers: [("Allow", allow)]) }
        return Problems.methodNotAllowed(request, allow: allow)
    }
}

/// RFC 9457 problem responses (`application/problem+json`) for routing errors.
enum Problems {
    static func notFound(_ request: HTTPRequest) -> HTTPResponse {
        .problem(status: 404, type: "/problems/not-found", title: "Not found",
                 detail: "no route for \(request.method) \(request.path)")
    }

    static func methodNotAllowed(_ request: HTTPRequest, allow: String) -> HTTPResponse {
        .problem(status: 405, type: "/problems/method-not-allowed", title: "Method not allowed",
                 detail: "\(request.method) is not allowed on \(request.path); allowed: \(allow)",
                 headers: [("Allow", allow)])
    }
}
