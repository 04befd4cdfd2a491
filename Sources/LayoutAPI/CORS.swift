/// Cross-origin resource sharing for the configured origins.
///
/// With no origins configured nothing is added. Otherwise every response gets `Vary: Origin`, and
/// a request whose `Origin` is allowed (listed exactly, or `*` configured) gets
/// `Access-Control-Allow-Origin: <that origin>` and `Access-Control-Expose-Headers`. A preflight
/// (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin also gets the route's
/// methods, the request headers clients may send, and a max age.
struct CORS: Sendable {
    let origins: Set<String>
    let anyOrigin: Bool

    static let exposedHeaders = "ETag, Location, Server-Timing, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate"
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id, Last-Event-ID"
    static let maxAge = "600"

    init(origins: [String]) {
        self.origins = Set(origins.filter { $0 != "*" })
        self.anyOrigin = origins.contains("*")
    }

    var isEnabled: Bool { anyOrigin || !origins.isEmpty }

    func allows(_ origin: String) -> Bool { anyOrigin || origins.contains(origin) }

    /// Adds the headers for `request` to `response`; `route` is set for a preflight.
    func decorate(_ response: inout APIResponse, for request: APIRequest, preflight route: Route?) {
        guard isEnabled else { return }
        response.addHeader("Vary", "Origin")
        guard let origin = request.header("Origin"), allows(origin) else { return }
        response.addHeader("Access-Control-Allow-Origin", origin)
        if let route, request.header("Access-Control-Request-Method") != nil {
            response.addHeader("Access-Control-Allow-Methods", route.allowHeader)
            response.addHeader("Access-Control-Allow-Headers", Self.allowedHeaders)
            response.addHeader("Access-Control-Max-Age", Self.maxAge)
        } else {
            response.addHeader("Access-Control-Expose-Headers", Self.exposedHeaders)
        }
    }
}
