import JSON
import Storage

extension SessionRepository {
    /// The answer to a store failure while *reading* a session (waking or catching it up): a 503
    /// in the words of a read. `failure(_:id:)` is for writes, and said "the change was not made"
    /// to a GET (issue 27). A fence conflict cannot happen on a read; it is answered as one anyway.
    static func readFailure(_ error: StorageError, id: String) -> LayoutAPI.Failure {
        switch error {
        case .conflict: return failure(error, id: id)
        // The store's own description names files on the server: the client gets the kind only.
        case .unavailable: return LayoutAPI.Failure(Problems.storeUnreadable("the session store is unavailable"))
        case .io: return LayoutAPI.Failure(Problems.storeUnreadable("the session store could not read it"))
        case .corrupt: return LayoutAPI.Failure(Problems.storeUnreadable("session '\(SessionID.visible(id))': the session store found damage"))
        }
    }
}

extension LayoutAPI {
    /// The document of `stored`, replayed and read, ready to wake: a 503 when its patches do not
    /// replay (a damaged session: kept, not answered as absent), and a 503 naming the setting when
    /// it is beyond this server's limits (it would otherwise wake dead and answer 404 "never
    /// existed" while still stored and counted, issue 27). Never deletes anything.
    func readableDocument(of stored: StoredSession) throws(Failure) -> JSONValue {
        guard let json = SessionRepository.document(of: stored) else {
            throw Failure(Problems.storeUnreadable("session '\(SessionID.visible(stored.id))': its stored patches do not replay"))
        }
        if let excess = limits.exceeded(by: json) {
            throw Failure(Problems.sessionBeyondLimits(stored.id, excess))
        }
        return json
    }
}
