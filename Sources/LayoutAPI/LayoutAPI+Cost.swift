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
    public func isExpensive(_ request: APIRequest) -> Bool {
        if request.body.count >= configuration.expensiveBytes { return true }
        // Only a wake costs more than the body: without a store no session is loaded, and every
        // session held is resident until the resident budget first puts one to sleep.
        guard durability != nil || store.mayHoldSleepers else { return false }
        guard request.method != "DELETE", request.method != "OPTIONS",
              let id = Route.match(request.path)?.sessionID else { return false }
        guard let session = store.peek(id) else { return durability != nil }
        return (session.dormantBytes ?? 0) >= configuration.expensiveBytes
    }
}

extension Route {
    /// The session a route names, if any.
    var sessionID: String? {
        switch self {
        case .session(let id), .sessionFrames(let id), .sessionEvents(let id), .sessionRender(let id): return id
        default: return nil
        }
    }
}
