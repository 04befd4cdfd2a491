import Primitives
import Storage

/// Idle expiry that survives a restart (issue 21). The registry (`SessionRegistry`) knows when each
/// session in memory was last used; the session store knows it only from writes. So that a session
/// that is only read does not expire after a restart, and a stored session nobody asks for after
/// a restart does expire, each sweep (the daemon's timer, `LayoutAPI.sweep`):
/// 1. records in the store, in one write, the sessions used since the last sweep, each with the
///    time of its last use (not a write per read: a GET costs nothing more);
/// 2. deletes the stored sessions whose last recorded use is older than the idle time-out.
/// A stored session woken after its idle time-out (before a sweep saw it) is expired instead.
/// Both ask the store in one conditional statement on its last use, so no node deletes a session
/// another node used since; the registry's own idle expiry only drops this node's copy.
extension LayoutAPI {
    /// Overlap between two sweeps' windows of uses: a lookup reads the clock before it takes the
    /// registry's lock, so a use stamped just before a sweep may land just after it.
    private static let useOverlapSeconds = 1.0

    /// The store's time (seconds since 1970, as `StoredSession.lastUsed`) at the API's clock
    /// reading `now`: the wall clock when the API was made, moved on by the API's clock (monotonic;
    /// injected by tests) since, so that both agree on how much time has passed.
    func storeTime(_ repository: SessionRepository, now: Double) -> Double {
        now + repository.storeClockOffset
    }

    /// The sweep's part for the session store; answers how many stored sessions it expired.
    func sweepStored() -> Int {
        guard let repository else { return 0 }
        let now = configuration.clock()
        guard recordUses(repository, now: now) else { return 0 }
        let idle = configuration.sessionIdleTimeoutSeconds
        let cutoff = storeTime(repository, now: now) - idle
        guard idle > 0, let expired = try? repository.expire(before: cutoff), !expired.isEmpty else { return 0 }
        storedCount.removed(expired.count)
        for key in expired {
            // Only a copy of that very session (one made anew under the id is not idle).
            guard let session = registry.peek(key.id), session.generation == key.generation else { continue }
            registry.remove(session)
            session.retire()
            session.events.end(sessionID: key.id, .expired)
        }
        return expired.count
    }

    /// Touches in the store every session used since the last call. False when the store refused:
    /// the sweep then expires nothing, since the store's times may be behind the real uses.
    private func recordUses(_ repository: SessionRepository, now: Double) -> Bool {
        let since = repository.usesRecorded.withLock { $0 }
        let offset = repository.storeClockOffset
        let used = registry.used(since: since - Self.useOverlapSeconds).compactMap { use in
            use.session.generation.map { SessionUse(id: use.session.id, generation: $0, time: use.at + offset) }
        }
        do throws(StorageError) {
            try repository.touch(used)
        } catch {
            return false
        }
        repository.usesRecorded.withLock { $0 = now }
        return true
    }

    /// Whether `stored` (not in memory, about to wake) has been idle past the time-out: then it is
    /// expired as a sweep would have, and the request finds no session. The store decides, in one
    /// conditional step on its own record of the last use: a use by another node since `stored`
    /// was read keeps it (and the request wakes it). A store that cannot answer expires nothing.
    func expireIfIdle(_ stored: StoredSession) -> Bool {
        let idle = configuration.sessionIdleTimeoutSeconds
        guard let repository, idle > 0 else { return false }
        let cutoff = storeTime(repository, now: configuration.clock()) - idle
        guard stored.lastUsed < cutoff,
              (try? repository.expire(id: stored.id, generation: stored.generation, before: cutoff)) == true
        else { return false }
        storedCount.removed(1)
        return true
    }
}
