import Primitives
import JSON
import LayoutEngine
import LayoutModel
import Synchronization

/// One session: a layout document held in a solver between requests.
///
/// Its state sits behind its own lock, so requests on one session are serialised while
/// different sessions proceed in parallel. A session is *resident* (its solver, model and frames
/// in memory, ready for an incremental edit) or *dormant* (its revision and last frames, and its
/// canonical document text unless a session store holds it: about a seventh of the memory, or
/// nearly nothing). The store puts the least recently used sessions to sleep beyond its resident
/// budgets; `withState` wakes one by solving its document again, which gives the solution the
/// session had (see `DormantSession`).
final class Session: Sendable {
    let id: String
    private let slot: Locked<Held>
    /// Subscribers of `GET /v1/sessions/{id}/events`.
    let events = SessionEvents()
    /// The limits the document was validated under (a dormant document is re-read with them).
    let limits: DocumentLimits
    /// What a shared store said of this session (`StoreHint`); its own lock, never the state's.
    let heard: Locked<StoreHint>
    /// The session store that holds the session (nil: `store: memory`): a session asleep drops
    /// its text and reads it back from there when it wakes.
    let repository: SessionRepository?
    /// `footprint` now, readable without the session's lock (the registry reads it under its own
    /// to choose sleepers), and what putting the session to sleep would give back.
    private let bytes = Atomic<Int>(0)
    private let reclaimable = Atomic<Int>(0)

    private enum Slot {
        case resident(StateBox)
        case dormant(DormantSession)
        /// Only inside `withLifecycle` on a dormant session: its state is out of the slot.
        case moving
    }

    /// Whether the session's bytes are in a registry's total (`MemoryAccount`): from its insert
    /// to its removal, and never again after (a request may still hold a removed session).
    private enum Accounting {
        case pending
        case counted(MemoryAccount)
        case done
    }

    /// What the lock guards: the slot, how many times the session woke (for tests), and what the
    /// session's memory was last counted as.
    private struct Held {
        var slot: Slot
        var wakes = 0
        var footprint = 0
        var accounting = Accounting.pending
    }

    /// A resident state, edited in place through the reference. Binding an enum's payload in a
    /// `switch` copies it: a `SessionState` held directly in `Slot` was copied (about 45 retains)
    /// and the old copy released on every request.
    private final class StateBox {
        var state: SessionState
        init(_ state: SessionState) { self.state = state }
    }

    /// `epoch`: the API's `noticeEpoch` now (the state was just stored or read from the store).
    init(id: String, state: SessionState, limits: DocumentLimits, epoch: Int = 0, repository: SessionRepository? = nil) {
        self.id = id
        self.limits = limits
        self.repository = repository
        self.heard = Locked(StoreHint(generation: state.generation, epoch: epoch))
        self.slot = Locked(Held(slot: .resident(StateBox(state))))
        slot.withLock { measure(&$0) }
    }

    /// A session woken from the session store: dormant until its first request solves it.
    init(id: String, dormant: DormantSession, limits: DocumentLimits, epoch: Int = 0,
         repository: SessionRepository? = nil) {
        self.id = id
        self.limits = limits
        self.repository = repository
        self.heard = Locked(StoreHint(generation: dormant.generation, epoch: epoch))
        self.slot = Locked(Held(slot: .dormant(dormant)))
        slot.withLock { measure(&$0) }
    }

    /// Runs `body` on the session's state under its lock, waking the session first when it is
    /// dormant. Throws only when the session slept without its text and the store cannot give
    /// it back (503; the session stays asleep).
    func withState<R>(_ body: (inout SessionState) -> R) throws(LayoutAPI.Failure) -> R {
        let result: Result<R, LayoutAPI.Failure> = slot.withLock { held in
            let box: StateBox
            do throws(LayoutAPI.Failure) {
                box = try residentBox(&held)
            } catch {
                return .failure(error)
            }
            defer { measure(&held) }
            return .success(body(&box.state))
        }
        return try result.get()
    }

    /// `withState` when no other request holds the session now and waking it needs no read of
    /// the store; nil, without waiting, otherwise (a write may be waiting for the session store
    /// under the lock: an event loop must not wait behind it, see `APIRequest.mayWait`).
    func tryWithState<R>(_ body: (inout SessionState) -> R) -> R? {
        let taken: R?? = slot.tryWithLock { held in
            if case .dormant(let d) = held.slot, d.canonical == nil { return nil }
            guard let box = try? residentBox(&held) else { return nil }
            defer { measure(&held) }
            return body(&box.state)
        }
        return taken ?? nil
    }

    /// `withState`, or `tryWithState` when the caller may not wait (`mayWait` false): nil then
    /// when it would have to.
    func withState<R>(mayWait: Bool, _ body: (inout SessionState) -> R) throws(LayoutAPI.Failure) -> R? {
        mayWait ? try withState(body) : tryWithState(body)
    }

    /// The resident state's box, waking a dormant session into it (its text read back from the
    /// store first when it slept without).
    private func residentBox(_ held: inout Held) throws(LayoutAPI.Failure) -> StateBox {
        switch held.slot {
        case .resident(let box): return box
        case .dormant:
            try reloadText(&held)
            guard case .dormant(let d) = held.slot else { preconditionFailure("Session text reloaded into another slot") }
            let box = StateBox(d.wake(limits: limits))
            held.slot = .resident(box)
            held.wakes += 1
            return box
        case .moving: preconditionFailure("Session state re-entered")
        }
    }

    /// A live dormant session that slept without its text gets it back from the store
    /// (`DormantSession.reloaded`); any other slot is left as it is.
    private func reloadText(_ held: inout Held) throws(LayoutAPI.Failure) {
        guard case .dormant(let d) = held.slot, d.canonical == nil, d.alive, let repository else { return }
        held.slot = .dormant(try d.reloaded(id: id, from: repository))
    }

    /// What `replacing` does with the session, decided from its revision, liveness and
    /// canonical document.
    enum Replacement<R> {
        /// Leaves the session as it is.
        case answer(R)
        /// Makes `state` the session's state (a dormant session becomes resident with it).
        case replace(SessionState, R)
        /// Runs the closure on the session's state (waking a dormant session first).
        case withState((inout SessionState) -> R)
    }

    /// Runs `decide` under the session's lock on its revision, liveness and canonical document,
    /// and does what it answers: a dormant session is woken only for `.withState`. PUT replaces a
    /// session this way, without solving the document it is about to drop (a session asleep
    /// without its text reads it back from the store to compare, without solving it). Throws the
    /// store's 503 when that read fails.
    func replacing<R>(_ decide: (_ tag: SessionTag, _ writeID: UInt64, _ alive: Bool,
                                 _ canonical: CanonicalDocument) -> Replacement<R>)
        throws(LayoutAPI.Failure) -> R {
        let result: Result<R, LayoutAPI.Failure> = slot.withLock { held in
            defer { measure(&held) }
            do throws(LayoutAPI.Failure) {
                try reloadText(&held)
                let decision: Replacement<R>
                switch held.slot {
                case .resident(let box): decision = decide(box.state.tag, box.state.writeID, box.state.alive, box.state.canonical)
                // A dead session's document is never compared (PUT looks again): one that slept
                // without its text has none to give.
                case .dormant(let d): decision = decide(d.tag, d.writeID, d.alive, d.canonical ?? Self.noDocument)
                case .moving: preconditionFailure("Session.replacing re-entered")
                }
                switch decision {
                case .answer(let result):
                    return .success(result)
                case .replace(let state, let result):
                    if case .resident(let box) = held.slot { box.state = state } else { held.slot = .resident(StateBox(state)) }
                    return .success(result)
                case .withState(let body):
                    let box = try residentBox(&held)
                    return .success(body(&box.state))
                }
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static let noDocument = CanonicalDocument(.object(JSONObject()))

    /// Runs `body` on the session's revision and liveness under its lock, without waking it:
    /// for the checks that need nothing else (DELETE, expiry, PUT's preconditions).
    func withLifecycle<R>(_ body: (_ tag: SessionTag, _ alive: inout Bool) -> R) -> R {
        slot.withLock { held in
            switch held.slot {
            case .resident(let box):
                return body(box.state.tag, &box.state.alive)
            case .dormant(var d):
                held.slot = .moving
                defer { held.slot = .dormant(d) }
                return body(d.tag, &d.alive)
            case .moving:
                preconditionFailure("Session.withLifecycle re-entered")
            }
        }
    }

    /// The revision while the session is alive; nil once deleted or expired. Never wakes it.
    var liveRevision: Int? { liveTag?.revision }

    /// The revision and its write id while the session is alive; nil once deleted or expired.
    /// Never wakes it.
    var liveVersion: (revision: Int, writeID: UInt64)? {
        slot.withLock { held in
            switch held.slot {
            case .resident(let box): return box.state.alive ? (box.state.revision, box.state.writeID) : nil
            case .dormant(let d): return d.alive ? (d.revision, d.writeID) : nil
            case .moving: return nil
            }
        }
    }

    /// The tag while the session is alive; nil once deleted or expired. Never wakes it.
    var liveTag: SessionTag? { withLifecycle { tag, alive in alive ? tag : nil } }

    /// The generation, also once dead (for deleting an expired session from the store); nil while
    /// the slot is being moved (never outside `withLifecycle`).
    var generation: UInt64? {
        slot.withLock { held in
            switch held.slot {
            case .resident(let box): return box.state.generation
            case .dormant(let d): return d.generation
            case .moving: return nil
            }
        }
    }

    /// Marks the session dead (deleted or expired) without waking it.
    func retire() { withLifecycle { _, alive in alive = false } }

    /// Puts a resident, live session to sleep; returns whether it did. With a store its text goes
    /// too, unless someone watches its events (a catch-up from the store must publish each
    /// revision to them, which a wake from the stored document would fold into one). A dormant
    /// session that holds its text with a store (read from the store by a request that did not
    /// wake it: a DELETE, a 415) drops it. A session some request holds now is in use: left
    /// awake (whoever chose it as least recently used runs on a request's thread, maybe an event
    /// loop, and must not wait behind a write to the store).
    @discardableResult
    func sleep() -> Bool {
        slot.tryWithLock { held in
            let keepText = repository == nil || events.count > 0
            switch held.slot {
            case .resident(let box) where box.state.alive:
                held.slot = .dormant(DormantSession(box.state, keepText: keepText))
            case .dormant(let d) where d.alive && d.canonical != nil && !keepText:
                held.slot = .dormant(d.withoutText)
            default:
                return false
            }
            measure(&held)
            return true
        } ?? false
    }

    /// Whether the session holds its solver now (for tests and statistics).
    var isResident: Bool {
        slot.withLock { if case .resident = $0.slot { return true } else { return false } }
    }

    /// The size of a dormant session's document text (what waking it parses and solves), held or
    /// not; nil while resident. Never wakes it: the daemon asks before choosing where to run a
    /// request.
    var dormantBytes: Int? { dormantText?.bytes }

    /// A dormant session's text size and whether it holds the text (false: waking reads the
    /// store); nil when resident. Never wakes it.
    var dormantText: (bytes: Int, held: Bool)? {
        slot.withLock { if case .dormant(let d) = $0.slot { return (d.textBytes, d.canonical != nil) } else { return nil } }
    }

    /// The document text the session holds in memory now, in bytes: a resident session's, a
    /// dormant one's when it kept it, 0 when the store holds it (tests check the last).
    var heldTextBytes: Int {
        slot.withLock { held in
            switch held.slot {
            case .resident(let box): return box.state.canonical.byteCount
            case .dormant(let d): return d.canonical?.byteCount ?? 0
            case .moving: return 0
            }
        }
    }

    /// How many times the session was woken (its document solved again) since it was made.
    var wakes: Int { slot.withLock { $0.wakes } }

    // MARK: memory

    /// The estimated bytes the session holds (`MemoryEstimate`), without taking its lock.
    var footprint: Int { bytes.load(ordering: .relaxed) }

    /// About what `sleep()` would give back now: 0 unless resident.
    var reclaimableBytes: Int { reclaimable.load(ordering: .relaxed) }

    /// Counts the session's bytes in `account` from now on (the registry took it in). Outside
    /// the registry's lock (lock order: see `SessionRegistry`).
    func count(in account: MemoryAccount) {
        slot.withLock { held in
            guard case .pending = held.accounting else { return }
            held.accounting = .counted(account)
            account.add(held.footprint)
        }
    }

    /// Takes the session's bytes out of its registry's total for good (it left the registry).
    func uncount() {
        slot.withLock { held in
            if case .counted(let account) = held.accounting { account.add(-held.footprint) }
            held.accounting = .done
        }
    }

    /// Measures the slot again after anything that may have changed it, and moves the
    /// registry's total by the difference. Under the session's lock.
    private func measure(_ held: inout Held) {
        let now: Int, spare: Int
        switch held.slot {
        case .resident(let box):
            now = box.state.footprint
            let views = box.state.system.document.views.count
            // What stays when it sleeps: the frames, and the text unless the store holds it.
            let kept = views * MemoryEstimate.bytesPerFrame + MemoryEstimate.bytesPerSession
                + (repository == nil ? box.state.canonical.byteCount : 0)
            spare = max(0, now - kept)
        case .dormant(let d):
            // Only the text, and only when the store holds it (`sleep`).
            (now, spare) = (d.footprint, repository == nil ? 0 : d.canonical?.byteCount ?? 0)
        case .moving:
            return
        }
        bytes.store(now, ordering: .relaxed)
        reclaimable.store(spare, ordering: .relaxed)
        let delta = now - held.footprint
        held.footprint = now
        if delta != 0, case .counted(let account) = held.accounting { account.add(delta) }
    }
}

/// Everything a session is: what GET returns and what the next PATCH starts from.
///
/// A failed request never writes to it, so it stays byte-for-byte what it was.
struct SessionState: Sendable {
    /// The canonical JSON form of the document (views and constraints keyed by id).
    var canonical: CanonicalDocument
    var system: LayoutSystem
    var revision: Int
    /// New each time the session's id is created (`SessionTag`); kept by the store.
    var generation: UInt64
    /// The write id of `revision` (`WriteChain`): what the store's fence compares, so that a copy
    /// holding a revision the store lost is refused rather than built on. Kept with or without a
    /// store (a hash of each change: cheap next to parsing it).
    var writeID: UInt64
    /// Diagnostics of `system`, computed once per revision.
    var diagnostics: Diagnostics
    /// Frames of `system` relative to the parent, in view order (compared by the next PATCH).
    var frames: [(id: String, frame: Frame)]
    /// The frames' keys as answers write them (rebuilt whenever `frames` gets other views).
    var frameKeys: ResultEncoder.FrameKeys
    /// The view list `frames` and `frameKeys` were made for (`LayoutSystem.viewList`).
    var framesViewList: ViewList
    /// For validating single constraint entries of PATCHes (made on first use; dropped when a
    /// PATCH goes through the whole document, which may change what it was made from).
    var memberContext: MemberContext?
    /// False once the session is deleted or expired; a request that looked it up before then
    /// answers 404 instead of editing a session nobody can see.
    var alive = true

    init(canonical: CanonicalDocument, system: LayoutSystem, revision: Int, generation: UInt64,
         diagnostics: Diagnostics, writeID: UInt64 = 0) {
        self.writeID = writeID
        self.canonical = canonical
        self.system = system
        self.revision = revision
        self.generation = generation
        self.diagnostics = diagnostics
        self.frames = system.frames(.relative)
        self.frameKeys = ResultEncoder.FrameKeys(frames)
        self.framesViewList = system.viewList
    }

    /// What the session's `ETag` names now.
    var tag: SessionTag { SessionTag(revision: revision, generation: generation) }
}

extension SessionState {
    /// `document` solved for a session to keep (its spare capacity given back), and its
    /// diagnostics: how a session is made, and how a dormant one wakes.
    static func solve(_ document: Document, delegateMemory: [String: Bool] = [:])
        -> (system: LayoutSystem, diagnostics: Diagnostics) {
        var system = LayoutSystem(document: document, delegateMemory: delegateMemory)
        APIMetrics.counters.add(APIMetrics.coldSolves)
        system.compact()
        return (system, system.refreshDiagnostics())
    }
}
