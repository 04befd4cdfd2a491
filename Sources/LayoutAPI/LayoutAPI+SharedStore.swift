import JSON
import Storage

/// Several nodes on one store (issue 22). Each node keeps the sessions it served in memory; any
/// node may write any session, so a copy can fall behind the stored session. Three things keep a
/// node from answering from a stale copy or losing an update:
///
/// - **Fencing.** Every write names the revision it builds on (`SessionStorage`); a write from a
///   stale copy fails with a conflict and changes nothing. The node then catches up (`catchUp`) and
///   runs the request again against the stored state: a PATCH or PUT without `If-Match` applies to
///   the current document, as on one node; one with `If-Match` now answers 412.
/// - **Notices.** The store tells every node of every write (`StoreNotice`, LISTEN/NOTIFY on
///   PostgreSQL). A notice only marks the copy (`StoreHint`); the next request on it catches up
///   first, so a node stops answering from a stale copy as soon as the notice arrives. Sessions
///   with event streams catch up at once, applying the patch the notice carries, so their
///   subscribers see every revision whichever node made it.
/// - **Lost notices.** When the store's listening connection was down, every copy is checked
///   against the store on its next use (`noticeEpoch`).
///
/// Catching up applies the stored patches the copy has not seen, one revision at a time through
/// the same decide-and-commit path as a PATCH (each one published to the event streams); when
/// they were folded into a snapshot meanwhile, the stored document is solved afresh and its frames
/// published as one revision.
extension LayoutAPI {
    /// A notice from the shared store, on its listening thread: marks the copy, queues a catch-up
    /// for sessions with subscribers; nothing here waits for a session's state lock.
    func heard(_ notice: StoreNotice) {
        switch notice {
        case .changed(let id, let generation, let revision, let writeID, let patch):
            countNotice(for: id)
            guard let session = registry.peek(id) else { return }
            let change = Change(generation: generation, revision: revision, writeID: writeID,
                                patch: patch.map { StoredPatch(revision: revision, bytes: $0) })
            mark(session, change) { hint in
                guard generation == hint.generation else { hint.otherGeneration = true; return }
                if revision >= hint.revision {
                    hint.revision = revision
                    hint.writeID = writeID
                }
            }
        case .deleted(let id, let generation):
            countNotice(for: id)
            guard let session = registry.peek(id) else { return }
            mark(session, nil) { hint in if generation == hint.generation { hint.otherGeneration = true } }
        case .lost:
            noticeEpoch.withLock { $0 += 1 }
            for session in registry.all() { mark(session, nil) { _ in } }
        }
    }

    /// Counts a notice for `id` in its stripe of `noticesHeard`, before its copy is looked up.
    private func countNotice(for id: String) {
        let stripe = Self.noticeStripe(id)
        noticesHeard.withLock { $0[stripe] &+= 1 }
    }

    /// Which of `noticesHeard`'s 64 counters counts the notices for `id`.
    static func noticeStripe(_ id: String) -> Int {
        var h: UInt32 = 2_166_136_261  // FNV-1a
        for byte in id.utf8 { h = (h ^ UInt32(byte)) &* 16_777_619 }
        return Int(h & 63)
    }

    /// The count of notices heard so far in the stripe of `id` (`noticesHeard`).
    func noticesHeard(for id: String) -> Int {
        let stripe = Self.noticeStripe(id)
        return noticesHeard.withLock { $0[stripe] }
    }

    /// A write a notice told of.
    private struct Change {
        var generation: UInt64
        var revision: Int
        var writeID: UInt64?
        var patch: StoredPatch?
    }

    /// Updates the session's hint and, when someone watches its events, catches it up at once
    /// (jobs run in notice order, so a stream gets each revision in turn): up to the notice's
    /// revision, with the patch it carries when that is the next revision (no store read).
    /// `change` nil (a delete, lost notices): whatever the store holds now.
    private func mark(_ session: Session, _ change: Change?, _ update: (inout StoreHint) -> Void) {
        session.heard.withLock { update(&$0) }
        guard session.events.count > 0 else { return }
        catchUpQueue.async { [weak self] in
            guard let self else { return }
            if let change {
                // Later notices have their own jobs: catching up past this revision here would
                // fold their revisions into one event.
                switch self.follow(change, session) {
                case .done: return
                case .needsStore: break
                }
            } else if !self.mayBeBehind(session) {
                return
            }
            _ = try? self.catchUp(session)
        }
    }

    private enum Applied {
        case done
        case needsStore
    }

    /// Brings the copy to the notice's revision from the notice alone when it can.
    private func follow(_ change: Change, _ session: Session) -> Applied {
        // A session asleep without its text whose store read fails: the store is asked again.
        (try? session.withState { st -> Applied in
            guard st.alive, st.generation == change.generation else { return .needsStore }
            if st.revision > change.revision { return .done }
            // The same revision with other content: this copy holds a revision the store lost.
            if st.revision == change.revision { return change.writeID.map { $0 == st.writeID } ?? true ? .done : .needsStore }
            if let patch = change.patch, st.revision == patch.revision - 1, apply(patch, to: &st, events: session.events),
               change.writeID.map({ $0 == st.writeID }) ?? true {
                return .done
            }
            return .needsStore
        }) ?? .needsStore
    }

    /// Whether the store may hold a later state of `session` than this node: a notice named a
    /// later revision or another generation, or notices were lost since it was last checked.
    func mayBeBehind(_ session: Session) -> Bool {
        let epoch = noticeEpoch.withLock { $0 }
        let hint = session.heard.withLock { $0 }
        if hint.otherGeneration || hint.epoch < epoch { return true }
        // Own writes are noticed too: behind only when the copy has not reached the revision, or
        // holds it with other content (a revision the store lost, made again by another node).
        guard hint.revision > 0, let live = session.liveVersion else { return false }
        return live.revision < hint.revision
            || (live.revision == hint.revision && hint.writeID.map { $0 != live.writeID } ?? false)
    }

    /// `catchUp` for a request that goes on with the session: a 404 when it was deleted elsewhere.
    func caughtUp(_ session: Session) throws(Failure) -> Session {
        guard let current = try catchUp(session) else { throw Failure(Problems.sessionNotFound(session.id)) }
        return current
    }

    /// Brings `session` up to the stored session and answers the session to use for its id:
    /// `session` itself, the stored one when the id was deleted and created again elsewhere, or
    /// nil when it was deleted (its event streams end with `deleted`). A 503 when the store cannot
    /// be read.
    func catchUp(_ session: Session) throws(Failure) -> Session? {
        guard let repository else { return session }
        let epoch = noticeEpoch.withLock { $0 }
        let stored: StoredSession?
        do throws(StorageError) {
            stored = try repository.load(id: session.id)
        } catch {
            throw SessionRepository.readFailure(error, id: session.id)
        }
        let generation = session.heard.withLock { $0.generation }
        guard let stored, stored.generation == generation else {
            session.retire()
            registry.remove(session)
            session.events.end(sessionID: session.id, .deleted)
            return stored == nil ? nil : try findSession(session.id)
        }
        var lost: (held: Int, stored: Int)? = nil
        let unreadable: Failure? = try session.withState { st in
            guard st.alive else { return nil }
            // The copy is ahead of the store, or at its revision with other content: the store lost
            // acknowledged revisions (a server crash with asynchronous commits). Said in the log.
            if st.revision > stored.revision || (st.revision == stored.revision && st.writeID != stored.writeID) {
                lost = (st.revision, stored.revision)
            }
            return synchronize(&st, with: stored, events: session.events)
        }
        if let lost { storeHealth.lostRevisions(held: lost.held, stored: lost.stored) }
        if let unreadable {
            // The stored session does not read back here (damaged, or beyond this node's limits):
            // drop the copy; the next request answers the same rather than frames the store no
            // longer has. The stored session itself is left alone.
            session.retire()
            registry.remove(session)
            throw unreadable
        }
        session.heard.withLock { $0.epoch = max($0.epoch, epoch) }
        return session
    }

    /// Applies to `st` the stored revisions it has not seen (see the type's comment); the answer
    /// to give when the stored session cannot be read back here (`readableDocument`), else nil.
    /// Under the session's lock.
    private func synchronize(_ st: inout SessionState, with stored: StoredSession, events: SessionEvents) -> Failure? {
        if stored.revision == st.revision && stored.writeID == st.writeID { return nil }
        // Stored patches apply on top of the copy only when it is an earlier state of the stored
        // session: the write ids must meet at the end, or the copy held a revision the store lost.
        if stored.revision > st.revision && stored.snapshotRevision <= st.revision {
            for patch in stored.patches where patch.revision > st.revision {
                guard apply(patch, to: &st, events: events) else { break }
            }
            if st.revision == stored.revision && st.writeID == stored.writeID { return nil }
        }
        let json: JSONValue
        do throws(Failure) { json = try readableDocument(of: stored) } catch { return error }
        let dormant = DormantSession(canonical: CanonicalDocument(json), revision: stored.revision,
                                     generation: stored.generation, writeID: stored.writeID, delegates: stored.delegates)
        st = dormant.wake(limits: limits)
        events.publish(st)
        return nil
    }

    /// One stored patch through PATCH's own path (decided against the copy, committed without
    /// writing to the store, published); false when it does not make exactly its revision here
    /// (a node with other document limits may refuse what another accepted): the caller then
    /// solves the stored document afresh.
    private func apply(_ patch: StoredPatch, to st: inout SessionState, events: SessionEvents) -> Bool {
        let body: PatchBody
        if let lane = NumberPatch.body(patch.bytes) {
            body = PatchBody(bytes: patch.bytes, read: .lane(lane))
        } else {
            guard let tree = try? JSONParser.parse(patch.bytes, maxDepth: configuration.maxJSONDepth) else { return false }
            body = PatchBody(bytes: patch.bytes, read: .tree(tree))
        }
        guard case .change(let change) = decide(body, &st) else { return false }
        var timing = ServerTiming()
        guard case .success = st.commit(change, QueryOptions(), answering: .changes, events: events, timing: &timing)
        else { return false }
        return st.revision == patch.revision
    }
}
