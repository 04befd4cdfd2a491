import Access
import JSON
import Storage

extension LayoutAPI {
    // MARK: POST /v1/sessions/{id}/tokens

    /// A stream token of the session for the key that asks (`StreamToken`): `EventSource` and
    /// `<img src>` cannot send `Authorization`, and a key must never travel in a URL; a token
    /// reads one session, for `tokenLifetimeSeconds`, and dies with its key.
    func issueStreamToken(_ key: String, _ request: APIRequest, _ principal: Principal?) -> APIResponse {
        guard let policy = configuration.access, let principal else { return Problems.tokensNotNeeded() }
        let session: Session
        switch existingSession(key, mayWait: request.mayWait) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        guard session.liveTag != nil else { return Problems.sessionNotFound(key) }
        let lifetime = policy.tokenLifetimeSeconds
        let token = StreamToken.issue(for: principal.record, session: SessionID.visible(key),
                                      expires: policy.now() + lifetime)
        var w = JSONWriter(capacity: 160)
        w.appendRaw("{\"token\":")
        w.appendString(token)
        w.appendRaw(",\"expiresIn\":")
        w.appendInteger(Int64(lifetime))
        w.appendRaw("}")
        // A credential: no cache may keep it.
        return .json(201, w.bytes, headers: [("Cache-Control", "no-store")])
    }

    // MARK: tenant quotas

    /// Whether the tenant of `principal` holds its key's quota of sessions already (429
    /// `/problems/session-quota`). Counted where the sessions are: the store (a range of its
    /// ids: `tenant/…`), or this process's registry without one. Creates in flight at the same
    /// moment may pass the quota by their number, as for `maxSessions`.
    func atTenantQuota(_ principal: Principal?) -> Bool {
        guard let principal, let limit = principal.record.maxSessions else { return false }
        let prefix = SessionID.key("", tenant: principal.tenant)
        if let repository {
            // A store that cannot count answers the create's own write with 503 anyway.
            return ((try? repository.count(prefix: prefix, upTo: limit)) ?? 0) >= limit
        }
        return registry.count(prefix: prefix, upTo: limit) >= limit
    }
}

extension Route {
    /// The route with its session id replaced by the key the tenant's session is held under
    /// (`SessionID.key`); unchanged without a tenant.
    func scoped(to tenant: String?) -> Route {
        guard let tenant else { return self }
        switch self {
        case .session(let id): return .session(SessionID.key(id, tenant: tenant))
        case .sessionFrames(let id): return .sessionFrames(SessionID.key(id, tenant: tenant))
        case .sessionEvents(let id): return .sessionEvents(SessionID.key(id, tenant: tenant))
        case .sessionRender(let id): return .sessionRender(SessionID.key(id, tenant: tenant))
        case .sessionTokens(let id): return .sessionTokens(SessionID.key(id, tenant: tenant))
        case .sessionExplain(let id): return .sessionExplain(SessionID.key(id, tenant: tenant))
        default: return self
        }
    }
}
