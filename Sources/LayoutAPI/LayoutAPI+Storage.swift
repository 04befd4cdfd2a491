import JSON
import Primitives
import Storage

extension LayoutAPI {
    /// The live session `id`: the one in memory, else (with a store) the stored one, woken lazily
    /// (issue 21: a restart reads no session; each is loaded on its first request). Nil when there
    /// is none; a 503 when the store cannot be read for a session that is not in memory.
    /// `mayWait` false (an event loop): a `Failure` of `APIResponse.waitNeeded` instead of any
    /// read of the store.
    func findSession(_ id: String, mayWait: Bool = true) throws(Failure) -> Session? {
        if let session = registry.lookup(id) {
            // Another node may have written it since (see LayoutAPI+SharedStore.swift).
            guard sharedStore, mayBeBehind(session) else { return session }
            guard mayWait else { throw Failure(.waitNeeded) }
            return try catchUp(session)
        }
        guard let repository else { return nil }
        guard mayWait else { throw Failure(.waitNeeded) }
        let epoch = noticeEpoch.withLock { $0 }
        // Listening for the session's writes first, then reading it: a write committed after the
        // read began is heard (targeted notices, LayoutAPI+SharedStore.swift). The registry
        // undoes the follow when the copy leaves it; every other way out here undoes it now.
        repository.follow(id)
        var kept = false
        defer { if !kept { repository.unfollow(id) } }
        // A notice of a write made after the read began may arrive before the copy is in the
        // registry, and find nothing to mark: counted here, checked after the insert.
        let heardBefore = noticesHeard(for: id)
        let stored: StoredSession?
        do throws(StorageError) {
            stored = try repository.load(id: id)
        } catch {
            throw SessionRepository.readFailure(error, id: id)
        }
        guard let stored, !expireIfIdle(stored) else { return nil }
        // The stored document is the canonical text the session answered (replayed by the API's
        // own rule); read back into its member index. It wakes dormant: solved on first use, with
        // the delegate states it remembered, as a session put to sleep would be.
        let json = try readableDocument(of: stored)
        let dormant = DormantSession(canonical: CanonicalDocument(json), revision: stored.revision,
                                     generation: stored.generation, writeID: stored.writeID, delegates: stored.delegates)
        let session = Session(id: id, dormant: dormant, limits: limits, epoch: epoch, repository: repository)
        switch registry.insert(session) {
        case .inserted:
            kept = true
            if sharedStore && noticesHeard(for: id) != heardBefore {
                // Maybe it was for this session: checked against the store on its next use, as
                // after lost notices (an epoch before any).
                session.heard.withLock { $0.epoch = -1 }
            }
            return session
        case .exists(let other): return other  // woken by a concurrent request meanwhile
        case .full: throw Failure(Problems.tooManySessions(limit: configuration.maxSessions))  // no limit with a store
        }
    }

    /// `findSession`, with 404 for a session that does not exist.
    func existingSession(_ id: String, mayWait: Bool = true) -> Result<Session, Failure> {
        do throws(Failure) {
            guard let session = try findSession(id, mayWait: mayWait) else { return .failure(Failure(Problems.sessionNotFound(id))) }
            return .success(session)
        } catch {
            return .failure(error)
        }
    }

    /// Whether a create must answer 429 now (a quick check; `reserveStoredSession` decides).
    var atSessionLimit: Bool {
        repository == nil ? registry.isFull : storedCount.value >= configuration.maxSessions
    }

    /// With a store: counts one more stored session if the limit allows (false: 429). The caller
    /// gives it back (`releaseStoredSession`) when its create does not happen.
    func reserveStoredSession() -> Bool { storedCount.reserve(limit: configuration.maxSessions) }

    func releaseStoredSession() { storedCount.release() }

    /// Stores the new session `state` under `id` before it becomes visible in memory (so nothing
    /// unstored is ever answered, even to a concurrent request) and answers its generation. Without
    /// a store the generation comes from a process-wide counter started from the clock, as a new
    /// store's would: a restarted memory daemon never repeats a tag either.
    func storeNewSession(_ id: String, _ state: SessionState) -> Result<UInt64, Failure> {
        guard let repository else { return .success(Self.memoryGenerations.withLock { $0 += 1; return $0 }) }
        do throws(StorageError) {
            return .success(try repository.create(id: id, revision: state.revision, document: state.canonical.bytes,
                                                           delegates: state.system.rememberedDelegates))
        } catch {
            return .failure(SessionRepository.failure(error, id: id))
        }
    }

    private static let memoryGenerations = Locked(initialGeneration(now: wallClock()))
}
