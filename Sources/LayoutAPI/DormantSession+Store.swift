import JSON
import Storage

extension DormantSession {
    /// This sleeping session with its text read back from the session store, which holds it
    /// (`canonical` nil: it slept with a store). Under the session's lock, before a wake or a PUT
    /// compares documents.
    ///
    /// The store is the truth, and a wake must never answer another session:
    /// - the same generation and revision: this session, with the frames it last answered;
    /// - the same generation, another revision (another node wrote it meanwhile, or the store lost
    ///   a revision this copy had): the stored revision, solved afresh when it wakes (only a
    ///   session without event streams drops its text, so no subscriber misses the revision);
    /// - no session, or another generation under the id: this one was deleted: it wakes dead and
    ///   answers 404 (`LayoutAPI.catchUp` drops such a copy before a request when a notice said so).
    ///
    /// Throws the 503 of a store that cannot be read (the session stays asleep, without text, and
    /// the next request tries again).
    func reloaded(id: String, from repository: SessionRepository) throws(LayoutAPI.Failure) -> DormantSession {
        let stored: StoredSession?
        do throws(StorageError) {
            stored = try repository.load(id: id)
        } catch {
            throw SessionRepository.failure(error, id: id)
        }
        guard let stored, stored.generation == generation else {
            var gone = self
            gone.alive = false
            return gone
        }
        guard let canonical = SessionRepository.canonical(of: stored) else {
            throw LayoutAPI.Failure(Problems.storeUnavailable("session '\(SessionID.visible(id))': its stored patches do not replay"))
        }
        let same = stored.revision == revision && stored.writeID == writeID
        var woken = DormantSession(canonical: canonical, revision: stored.revision, generation: generation,
                                   writeID: stored.writeID, delegates: same ? delegates : stored.delegates,
                                   frames: same ? frames : [])
        woken.alive = alive
        return woken
    }
}

extension SessionRepository {
    /// The canonical document of a stored session: its patches replayed by the API's own rule and
    /// read back into its member index; nil when they do not replay.
    static func canonical(of stored: StoredSession) -> CanonicalDocument? {
        document(of: stored).map(CanonicalDocument.init)
    }

    /// The stored session's document: its patches replayed by the API's own rule, parsed; nil
    /// when they do not replay. The one place a stored session is read back.
    static func document(of stored: StoredSession) -> JSONValue? {
        guard let bytes = try? stored.document(replay: replay) else { return nil }
        return try? JSONParser.parse(bytes, maxDepth: 1024)
    }
}
