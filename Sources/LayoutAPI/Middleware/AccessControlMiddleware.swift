import Access
import Primitives

/// Who may do what (docs/http.md "Access control"): every `/v1/…` request and `/metrics` need a
/// key (`Authorization: Bearer …`), or, for reads of one session's stream, frames or drawing, a
/// stream token of that session (`?access_token=…`); read-only keys and tokens change nothing;
/// a key with a rate is held to it. What stays open: `/healthz` and `/readyz` (probes), the
/// playground and its scripts, and the API's description (no session, no secret in any of them),
/// and every preflight (a browser sends no `Authorization` on one).
///
/// The key is hashed and compared in `KeyRing` (constant time); it is never copied into an
/// answer, a log line or a metric: what leaves is the key's name (`APIResponse.keyName`).
struct AccessControlMiddleware: APIMiddleware {
    let policy: AccessPolicy

    func handle(_ request: APIRequest, _ context: inout RequestContext,
                next: (APIRequest, inout RequestContext) -> APIResponse) -> APIResponse {
        guard let route = context.route, route.needsKey, request.method != "OPTIONS" else {
            return next(request, &context)
        }
        let principal: Principal
        switch admit(request, route) {
        case .success(let p): principal = p
        case .failure(let refusal): return refusal.response
        }
        if principal.readOnly && route.changesSessions(request.method) {
            return Self.attributed(Problems.forbidden(principal.viaToken
                ? "a stream token only reads its session"
                : "the key '\(principal.record.name)' is read-only: it may read sessions and solve, not change them"),
                to: principal)
        }
        if route == .metrics && !principal.record.metrics {
            return Self.attributed(Problems.forbidden("reading /metrics needs a key made with --metrics"), to: principal)
        }
        var limitHeaders: [(name: String, value: String)] = []
        let keyName = principal.record.name
        if let rate = principal.record.rate {
            let decision = policy.limiter.admit(name: keyName, rate: rate)
            limitHeaders = Self.rateLimitHeaders(rate: rate, decision)
            guard decision.allowed else {
                var refused = Problems.rateLimited(rate: rate, retryAfter: decision.retryAfterSeconds)
                refused.headers.append(contentsOf: limitHeaders)
                return Self.attributed(refused, to: principal)
            }
        }
        context.principal = principal
        var response = next(request, &context)
        if response.mustWait {
            // Not answered: the same request comes again from a thread that may wait.
            if !limitHeaders.isEmpty { policy.limiter.refund(name: keyName) }
            return response
        }
        response.headers.append(contentsOf: limitHeaders)
        return Self.attributed(response, to: principal)
    }

    private static func attributed(_ response: APIResponse, to principal: Principal) -> APIResponse {
        var response = response
        response.keyName = principal.record.name
        response.tenant = principal.tenant
        return response
    }

    private struct Refusal: Error { let response: APIResponse }

    /// The principal of a request with a valid key, or of a stream token for the session the
    /// route names; a 401 otherwise.
    private func admit(_ request: APIRequest, _ route: Route) -> Result<Principal, Refusal> {
        // Checked already, before the request was dispatched (`LayoutAPI.isExpensive`).
        if let checked = request.principal { return .success(checked) }
        if let authorization = request.header("Authorization") {
            guard let key = Self.bearer(authorization), let record = policy.keys.authenticate(bearer: key) else {
                return .failure(Refusal(response: Problems.unauthorized(
                    "the key in Authorization is not one of this server's keys (revoked, or mistyped)", invalid: true)))
            }
            return .success(Principal(record: record, viaToken: false))
        }
        if let token = Self.accessToken(request.query) {
            guard route.acceptsStreamToken, request.method == "GET" || request.method == "HEAD",
                  let id = route.sessionID,
                  let record = StreamToken.verify(token, session: id, now: policy.now(), lookup: policy.keys.record(named:))
            else {
                return .failure(Refusal(response: Problems.unauthorized(
                    "the access_token is not valid here: expired, for another session, its key revoked, "
                        + "or on a route that takes only a key", invalid: true)))
            }
            return .success(Principal(record: record, viaToken: true))
        }
        return .failure(Refusal(response: Problems.unauthorized(
            "this server needs a key: send Authorization: Bearer <key>", invalid: false)))
    }

    /// Who `request` would be admitted as, deciding nothing else (no rate limit):
    /// `LayoutAPI.isExpensive` looks the tenant's session up before the request is handled.
    func principal(of request: APIRequest, _ route: Route) -> Principal? {
        guard case .success(let principal) = admit(request, route) else { return nil }
        return principal
    }

    /// The credentials of `Bearer <credentials>` (RFC 6750 §2.1: the scheme in any case, one or
    /// more spaces), or nil for another scheme.
    static func bearer(_ authorization: String) -> String? {
        let u = authorization.utf8
        guard u.count > 7, asciiCaseInsensitiveEquals(String(authorization.prefix(6)), "Bearer"),
              u[u.index(u.startIndex, offsetBy: 6)] == UInt8(ascii: " ") else { return nil }
        let key = authorization.dropFirst(7).drop { $0 == " " }
        return key.isEmpty ? nil : String(key)
    }

    /// The `access_token` query parameter (RFC 6750 §2.3's name), if any.
    static func accessToken(_ query: String) -> String? {
        guard query.utf8.count > 13, query.contains("access_token=") else { return nil }
        return QueryOptions.items(query).last { $0.name == "access_token" }?.value
    }

    /// The IETF draft's (draft-ietf-httpapi-ratelimit-headers) fields for a token bucket of
    /// `rate` a second: the policy as a quota over a one-second window, and what is left of it.
    static func rateLimitHeaders(rate: Double, _ d: RateDecision) -> [(name: String, value: String)] {
        let quota = max(1, Int(rate.rounded(.down)))
        return [("RateLimit-Policy", "\"key\";q=\(quota);w=1"),
                ("RateLimit", "\"key\";r=\(d.remaining);t=\(d.allowed ? d.resetSeconds : d.retryAfterSeconds)")]
    }
}

extension Route {
    /// Whether access control asks this route for a key: the API's routes and the metrics.
    var needsKey: Bool {
        switch self {
        case .healthz, .readyz, .playground, .clientScript, .playgroundScript,
             .openAPIJSON, .openAPIYAML, .layoutDocumentSchema:
            return false
        case .solve, .sessions, .session, .sessionFrames, .sessionEvents, .sessionRender, .sessionTokens,
             .sessionExplain, .render, .metrics:
            return true
        }
    }

    /// Reads a stream token lets in: its session's events, drawing, frames and document.
    var acceptsStreamToken: Bool {
        switch self {
        case .session, .sessionFrames, .sessionEvents, .sessionRender, .sessionExplain: return true
        default: return false
        }
    }

    /// Whether `method` on this route changes a session (what read-only keys may not do).
    /// Solving and drawing a posted document change nothing, and a stream token is a read.
    func changesSessions(_ method: String) -> Bool {
        switch self {
        case .sessions: return method == "POST"
        case .session: return method == "PUT" || method == "PATCH" || method == "DELETE"
        default: return false
        }
    }
}
