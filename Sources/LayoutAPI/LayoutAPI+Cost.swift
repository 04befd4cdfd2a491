extension LayoutAPI {
    /// Whether answering `request` may take long (milliseconds to seconds): the daemon answers
    /// such a request on an offload thread so that its worker goes on serving its other
    /// connections. Cheap and side-effect free (no session is marked used or woken).
    ///
    /// Expensive: a body of at least `expensiveBytes` (a document to parse, validate and solve),
    /// or a request that wakes a dormant session whose document text is at least that large
    /// (waking solves it again: a 40-byte PATCH to a dormant 10,000-view session held its worker
    /// for 11 s when only the body's size was looked at). With a session store, a session not in
    /// memory is expensive too: it is read from the store, its patches replayed and it is solved
    /// (350 ms for a stored 1,000-view session), and its size is not known before it is read.
    /// DELETE and OPTIONS never wake.
    ///
    /// With a session store, also every request that may wait for it (issue 28: an event loop
    /// never waits for a store): a write (POST, PUT, PATCH, DELETE of a session; a store that
    /// stalls would stall every connection of the worker), and a read that must load or check the
    /// session first (not in memory; on a shared store, possibly behind). What stays on the loop is
    /// a read of a session in memory, made with `mayWait` false: should another request hold the
    /// session meanwhile (a write waiting for the store), the API answers `mustWait` and the
    /// daemon sends the request off the loop then (`readsMustNotWait`, layoutd's `Router`).
    public func isExpensive(_ request: APIRequest) -> Bool {
        var request = request
        return isExpensive(resolving: &request)
    }

    /// `isExpensive`, keeping in `request` who makes it when access control had to find that out
    /// (a session's key depends on its tenant): the request's handling then does not check the
    /// key again.
    public func isExpensive(resolving request: inout APIRequest) -> Bool {
        if request.body.count >= configuration.expensiveBytes { return true }
        // Only a wake costs more than the body: without a store no session is loaded, and every
        // session held is resident until the resident budget first puts one to sleep.
        let explains = request.path.hasSuffix("/explain")
        guard repository != nil || registry.mayHoldSleepers || explains else { return false }
        let method = request.method
        guard method != "OPTIONS", let route = Route.match(request.path) else { return false }
        if repository != nil, method != "GET", method != "HEAD", route.writesSessions { return true }
        guard method != "DELETE", let id = route.sessionID else { return false }
        if let access = configuration.access, request.principal == nil {
            request.principal = AccessControlMiddleware(policy: access).principal(of: request, route)
        }
        let key = SessionID.key(id, tenant: request.principal?.tenant)
        guard let session = registry.peek(key) else { return repository != nil }
        // An explanation walks the session's whole tableau (its free directions): a large
        // session's is answered off the loop. The footprint is read without the session's lock.
        if case .sessionExplain = route, session.footprint >= configuration.expensiveBytes { return true }
        if sharedStore && mayBeBehind(session) { return true }
        guard let dormant = session.dormantText else { return false }
        // Asleep without its text: the wake reads the store.
        return !dormant.held || dormant.bytes >= configuration.expensiveBytes
    }

    /// Whether requests answered on an event loop must be made with `mayWait` false: with a
    /// session store (see `isExpensive`).
    public var readsMustNotWait: Bool { repository != nil }
}

extension Route {
    /// Whether a write on this route may change a stored session (create, replace, patch, delete).
    var writesSessions: Bool {
        switch self {
        case .sessions, .session: return true
        default: return false
        }
    }
}

extension Route {
    /// The session a route names, if any.
    var sessionID: String? {
        switch self {
        case .session(let id), .sessionFrames(let id), .sessionEvents(let id), .sessionRender(let id),
             .sessionTokens(let id), .sessionExplain(let id):
            return id
        default: return nil
        }
    }
}
