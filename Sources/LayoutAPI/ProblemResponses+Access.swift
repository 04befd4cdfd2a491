/// The answers of access control (docs/http.md "Access control"). None names the key that was
/// sent: a problem body may be shown to anyone, logged, or pasted into a bug report.
extension Problems {
    /// 401 with `WWW-Authenticate` (RFC 6750 §3: `error="invalid_token"` when credentials were
    /// sent and refused, none when they were missing).
    static func unauthorized(_ detail: String, invalid: Bool) -> APIResponse {
        response(401, type: "unauthorized", title: "Unauthorized", detail: detail,
                 headers: [("WWW-Authenticate", invalid ? "Bearer realm=\"layoutd\", error=\"invalid_token\""
                                                        : "Bearer realm=\"layoutd\"")])
    }

    static func forbidden(_ detail: String) -> APIResponse {
        response(403, type: "forbidden", title: "Forbidden", detail: detail)
    }

    static func rateLimited(rate: Double, retryAfter: Int) -> APIResponse {
        let shown = rate == rate.rounded() ? String(Int(rate)) : String(rate)
        return response(429, type: "rate-limited", title: "Too many requests",
                        detail: "this key may make \(shown) requests a second; retry after \(retryAfter) s",
                        headers: [("Retry-After", String(retryAfter))])
    }

    static func sessionQuota(limit: Int) -> APIResponse {
        response(429, type: "session-quota", title: "Session quota reached",
                 detail: "this key's tenant holds its quota of \(limit) sessions; delete one first",
                 headers: [("Retry-After", "60")])
    }

    /// `POST /v1/sessions/{id}/tokens` on a server without access control: streams need none.
    static func tokensNotNeeded() -> APIResponse {
        response(404, type: "not-found", title: "Not found",
                 detail: "this server runs without access control: its streams and drawings need no token")
    }
}
