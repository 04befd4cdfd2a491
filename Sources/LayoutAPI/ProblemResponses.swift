import JSON
import LayoutEngine
import LayoutModel

/// RFC 9457 problem responses (`application/problem+json`), shaped like http.md's example:
/// `{type, title, status, detail, errors: [{pointer, code, detail, suggestion?}]}` plus, for some types,
/// extension members after `errors` (`revision` on a 412, `broken` on a 409, `line`/`column` on
/// a 400). `errors` is always present (empty when there is nothing to point at).
enum Problems {
    static func response(_ status: Int, type: String, title: String, detail: String,
                         errors: [Problem] = [], headers: [(name: String, value: String)] = [],
                         extensions: (inout JSONWriter) -> Void = { _ in }) -> APIResponse {
        var w = JSONWriter(capacity: 256 + errors.count * 96)
        w.appendRaw("{\"type\":")
        w.appendString("/problems/" + type)
        w.appendRaw(",\"title\":")
        w.appendString(title)
        w.appendRaw(",\"status\":")
        w.appendInteger(Int64(status))
        w.appendRaw(",\"detail\":")
        w.appendString(detail)
        w.appendRaw(",\"errors\":[")
        for (i, p) in errors.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendRaw("{\"pointer\":")
            w.appendString(p.pointer)
            w.appendRaw(",\"code\":")
            w.appendString(p.code)
            w.appendRaw(",\"detail\":")
            w.appendString(p.detail)
            // Present only when there is one: a client can offer the fix ("did you mean").
            if let suggestion = p.suggestion {
                w.appendRaw(",\"suggestion\":")
                w.appendString(suggestion)
            }
            w.appendRaw("}")
        }
        w.appendRaw("]")
        extensions(&w)
        w.appendRaw("}")
        return APIResponse(status: status, headers: [("Content-Type", MediaType.problem)] + headers, body: w.bytes)
    }

    static func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    // MARK: 4xx

    static func invalidJSON(_ error: JSONParseError) -> APIResponse {
        response(400, type: "invalid-json", title: "Body is not JSON",
                 detail: "the body is not JSON: \(error.message) at line \(error.line), column \(error.column)",
                 errors: [Problem(pointer: "", code: "invalid_json", detail: error.description)]) { w in
            w.appendRaw(",\"line\":")
            w.appendInteger(Int64(error.line))
            w.appendRaw(",\"column\":")
            w.appendInteger(Int64(error.column))
        }
    }

    static func invalidQuery(_ q: QueryOptions.Invalid) -> APIResponse {
        response(400, type: "invalid-query", title: "Invalid query parameter",
                 detail: "query parameter '\(q.parameter)' must be one of \(q.allowed), not '\(q.value)'",
                 errors: [Problem(pointer: "", code: "invalid_query",
                                  detail: "\(q.parameter)=\(q.value): allowed values are \(q.allowed)")])
    }

    static func invalidSessionID(_ id: String) -> APIResponse {
        response(400, type: "invalid-session-id", title: "Invalid session id",
                 detail: "a session id is 1 to 128 letters, digits, '_', '-' or '#'",
                 errors: [Problem(pointer: "", code: "invalid_id", detail: "session id '\(id)' does not follow the id rules")])
    }

    static func invalidDocument(_ problems: [Problem], patch: Bool = false) -> APIResponse {
        response(422, type: "invalid-document", title: "Invalid layout document",
                 detail: count(problems.count, "problem") + (patch ? " in the patched document" : ""),
                 errors: problems)
    }

    static func routeNotFound(_ method: String, _ path: String) -> APIResponse {
        response(404, type: "not-found", title: "Not found", detail: "no route for \(method) \(path)")
    }

    /// `key`: the session's key (`SessionID.key`), named as its tenant knows it; `raw`: an id that
    /// breaks the id rules, named as sent (it names no key).
    static func sessionNotFound(_ key: String, raw: Bool = false) -> APIResponse {
        response(404, type: "session-not-found", title: "No such session",
                 detail: "no session '\(raw ? key : SessionID.visible(key))' (it never existed, was deleted, or expired)")
    }

    static func methodNotAllowed(_ method: String, _ path: String, route: Route) -> APIResponse {
        response(405, type: "method-not-allowed", title: "Method not allowed",
                 detail: "\(method) is not allowed on \(path); allowed: \(route.allowHeader)",
                 headers: [("Allow", route.allowHeader)])
    }

    static func strictConflict(_ broken: [BrokenConstraint]) -> APIResponse {
        let errors = broken.map { b in
            Problem(pointer: pointer(forBroken: b.id), code: "broken",
                    detail: b.conflictsWith.isEmpty ? "required constraint '\(b.id)' cannot be satisfied"
                        : "required constraint '\(b.id)' conflicts with " + b.conflictsWith.joined(separator: ", "))
        }
        return response(409, type: "required-conflict", title: "Required constraints conflict",
                        detail: count(broken.count, "broken constraint") + " (strict=true): nothing was changed",
                        errors: errors) { w in
            w.appendRaw(",\"broken\":[")
            for (i, b) in broken.enumerated() {
                if i > 0 { w.appendRaw(",") }
                w.appendRaw("{\"id\":")
                w.appendString(b.id)
                w.appendRaw(",\"conflictsWith\":")
                ResultEncoder.appendStrings(b.conflictsWith, to: &w)
                w.appendRaw("}")
            }
            w.appendRaw("]")
        }
    }

    /// `/constraints/<id>` for an entry, `/views/<id>/frame/width` for a view-generated
    /// constraint (`id.frame.width`, `id.intrinsicSize.width.hugging`).
    static func pointer(forBroken id: String) -> String {
        if let dot = id.firstIndex(of: ".") {
            let view = id[..<dot]
            var path = id[id.index(after: dot)...].split(separator: ".").map(String.init)
            if path.first == "intrinsicSize" && path.count > 2 { path = Array(path.prefix(2)) }
            return "/views/" + jsonPointerToken(String(view)) + "/" + path.joined(separator: "/")
        }
        return "/constraints/" + jsonPointerToken(id)
    }

    static func preconditionFailed(_ tag: SessionTag?, detail: String) -> APIResponse {
        response(412, type: "precondition-failed", title: "Precondition failed", detail: detail,
                 headers: tag.map { [("ETag", EntityTagCondition.etag($0))] } ?? []) { w in
            if let tag {
                w.appendRaw(",\"revision\":")
                w.appendInteger(Int64(tag.revision))
            }
        }
    }

    static func bodyTooLarge(_ size: Int, limit: Int) -> APIResponse {
        response(413, type: "body-too-large", title: "Body too large",
                 detail: "the body has \(size) bytes; the limit is \(limit)")
    }

    /// A PATCH whose patched document would be larger than a body may be (`sizeRefusal`).
    static func documentTooLarge(_ size: Int, limit: Int) -> APIResponse {
        response(413, type: "body-too-large", title: "Body too large",
                 detail: "the patched document would have \(size) bytes; maxBodyBytes (\(limit)) limits a session's document as it limits a body")
    }

    static func unsupportedMediaType(_ contentType: String?) -> APIResponse {
        response(415, type: "unsupported-media-type", title: "Unsupported media type",
                 detail: "a PATCH body must be \(MediaType.mergePatch) (or \(MediaType.json)), not "
                    + (contentType.map { "'\($0)'" } ?? "without a Content-Type"),
                 headers: [("Accept-Patch", MediaType.acceptPatch)])
    }

    static func tooManySessions(limit: Int) -> APIResponse {
        response(429, type: "too-many-sessions", title: "Too many sessions",
                 detail: "the server holds its limit of \(limit) sessions; delete one or wait for idle ones to expire",
                 headers: [("Retry-After", "60")])
    }

    /// Beyond `maxSubscribersPerSession` (429: this session is watched enough; others are not).
    static func tooManySubscribers(session id: String, limit: Int) -> APIResponse {
        response(429, type: "too-many-subscribers", title: "Too many subscribers",
                 detail: "session '\(SessionID.visible(id))' already has its limit of \(limit) event streams; close one or retry later",
                 headers: [("Retry-After", "10")])
    }

    /// Beyond `maxSubscribers` over all sessions (503: the server as a whole is full).
    static func subscribersFull(limit: Int) -> APIResponse {
        response(503, type: "too-many-subscribers", title: "Too many subscribers",
                 detail: "the server holds its limit of \(limit) event streams; retry later",
                 headers: [("Retry-After", "10")])
    }

    /// The session store could not make a change durable (disk full, file removed, database
    /// away): nothing changed; the client retries after a while.
    static func storeUnavailable(_ detail: String) -> APIResponse {
        response(503, type: "store-unavailable", title: "Session store unavailable",
                 detail: "the change was not made because it could not be stored: \(detail)",
                 headers: [("Retry-After", "1")])
    }

    /// A session the store holds could not be read (the store away, or its records damaged):
    /// nothing was changed; the session is still stored. The words of a read, not of a write.
    static func storeUnreadable(_ detail: String) -> APIResponse {
        response(503, type: "store-unavailable", title: "Session store unavailable",
                 detail: "the session could not be read from the session store: \(detail)",
                 headers: [("Retry-After", "1")])
    }

    /// A stored session with more views or constraints than this server's limits (it was stored
    /// under larger ones: before a restart with lower limits, or by another node). It stays stored,
    /// untouched; this server cannot serve it until the operator raises the limit. No
    /// `Retry-After`: waiting does not help here (another node may have the limits).
    static func sessionBeyondLimits(_ id: String, _ excess: String) -> APIResponse {
        response(503, type: "session-beyond-limits", title: "Stored session beyond this server's limits",
                 detail: "session '\(SessionID.visible(id))' is stored with \(excess): it is kept, but this server cannot serve it; "
                     + "raise the setting (--max-views, --max-constraints or their LAYOUTD_ variables) to serve it")
    }

    /// A write fenced off by the store: another writer (another node) changed the stored session
    /// since this one read it. The copy in memory is dropped; the next request reads the stored one.
    static func staleSession(_ id: String, _ detail: String) -> APIResponse {
        response(409, type: "stale-session", title: "Session changed elsewhere",
                 detail: "session '\(SessionID.visible(id))' was changed by another writer; GET it and try again (\(detail))")
    }

    static func busy(_ detail: String) -> APIResponse {
        response(503, type: "busy", title: "Service busy", detail: detail, headers: [("Retry-After", "1")])
    }
}

extension Problems {
    /// `GET /readyz` while the daemon cannot take traffic (its store does not answer).
    static func notReady(_ detail: String) -> APIResponse {
        response(503, type: "not-ready", title: "Not ready", detail: detail, headers: [("Retry-After", "1")])
    }
}
