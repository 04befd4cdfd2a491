import Primitives
import JSON
import LayoutEngine
import LayoutModel

/// One session: a layout document held in a solver between requests.
///
/// Its state sits behind its own lock, so requests on one session are serialised while
/// different sessions proceed in parallel. A session is *resident* (its solver, model and frames
/// in memory, ready for an incremental edit) or *dormant* (only its canonical document text,
/// revision and last frames: about a seventh of the memory). The store puts the least recently
/// used sessions to sleep beyond its resident budget; `withState` wakes one by solving its
/// document again, which gives the solution the session had (see `DormantSession`).
final class Session: Sendable {
    let id: String
    private let slot: Locked<Held>
    /// Subscribers of `GET /v1/sessions/{id}/events`.
    let events = SessionEvents()
    /// The limits the document was validated under (a dormant document is re-read with them).
    let limits: DocumentLimits
    /// What a shared store said of this session (`StoreHint`); its own lock, never the state's.
    let heard: Locked<StoreHint>

    private enum Slot {
        case resident(StateBox)
        case dormant(DormantSession)
        /// Only inside `withLifecycle` on a dormant session: its state is out of the slot.
        case moving
    }

    /// What the lock guards: the slot, and how many times the session woke (for tests).
    private struct Held {
        var slot: Slot
        var wakes = 0
    }

    /// A resident state, edited in place through the reference. Binding an enum's payload in a
    /// `switch` copies it: a `SessionState` held directly in `Slot` was copied (about 45 retains)
    /// and the old copy released on every request.
    private final class StateBox {
        var state: SessionState
        init(_ state: SessionState) { self.state = state }
    }

    /// `epoch`: the API's `noticeEpoch` now (the state was just stored or read from the store).
    init(id: String, state: SessionState, limits: DocumentLimits, epoch: Int = 0) {
        self.id = id
        self.limits = limits
        self.heard = Locked(StoreHint(generation: state.generation, epoch: epoch))
        self.slot = Locked(Held(slot: .resident(StateBox(state))))
    }

    /// A session woken from the session store: dormant until its first request solves it.
    init(id: String, dormant: DormantSession, limits: DocumentLimits, epoch: Int = 0) {
        self.id = id
        self.limits = limits
        self.heard = Locked(StoreHint(generation: dormant.generation, epoch: epoch))
        self.slot = Locked(Held(slot: .dormant(dormant)))
    }

    /// Runs `body` on the session's state under its lock, waking the session first when it is
    /// dormant. Rethrows what `body` throws.
    func withState<R>(_ body: (inout SessionState) throws -> R) rethrows -> R {
        try slot.withLock { held in
            let box = Self.residentBox(&held, limits: limits)
            return try body(&box.state)
        }
    }

    /// `withState` when no other request holds the session now; nil, without waiting, when one
    /// does (a write may be waiting for the session store under the lock: an event loop must not
    /// wait behind it, see `APIRequest.mayWait`).
    func tryWithState<R>(_ body: (inout SessionState) -> R) -> R? {
        slot.tryWithLock { held in
            let box = Self.residentBox(&held, limits: limits)
            return body(&box.state)
        }
    }

    /// `withState`, or `tryWithState` when the caller may not wait (`mayWait` false).
    func withState<R>(mayWait: Bool, _ body: (inout SessionState) -> R) -> R? {
        mayWait ? withState(body) : tryWithState(body)
    }

    /// The resident state's box, waking a dormant session into it.
    private static func residentBox(_ held: inout Held, limits: DocumentLimits) -> StateBox {
        switch held.slot {
        case .resident(let box): return box
        case .dormant(let d):
            let box = StateBox(d.wake(limits: limits))
            held.slot = .resident(box)
            held.wakes += 1
            return box
        case .moving: preconditionFailure("Session state re-entered")
        }
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
    /// session this way, without solving the document it is about to drop.
    func replacing<R>(_ decide: (_ tag: SessionTag, _ writeID: UInt64, _ alive: Bool,
                                 _ canonical: CanonicalDocument) -> Replacement<R>) -> R {
        slot.withLock { held in
            let decision: Replacement<R>
            switch held.slot {
            case .resident(let box): decision = decide(box.state.tag, box.state.writeID, box.state.alive, box.state.canonical)
            case .dormant(let d): decision = decide(d.tag, d.writeID, d.alive, d.canonical)
            case .moving: preconditionFailure("Session.replacing re-entered")
            }
            switch decision {
            case .answer(let result):
                return result
            case .replace(let state, let result):
                if case .resident(let box) = held.slot { box.state = state } else { held.slot = .resident(StateBox(state)) }
                return result
            case .withState(let body):
                let box = Self.residentBox(&held, limits: limits)
                return body(&box.state)
            }
        }
    }

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

    /// Puts a resident, live session to sleep; returns whether it did. A session some request
    /// holds now is in use: left awake (whoever chose it as least recently used runs on a request's
    /// thread, maybe an event loop, and must not wait behind a write to the store).
    @discardableResult
    func sleep() -> Bool {
        slot.tryWithLock { held in
            guard case .resident(let box) = held.slot, box.state.alive else { return false }
            held.slot = .dormant(DormantSession(box.state))
            return true
        } ?? false
    }

    /// Whether the session holds its solver now (for tests and statistics).
    var isResident: Bool {
        slot.withLock { if case .resident = $0.slot { return true } else { return false } }
    }

    /// The size of a dormant session's document text (what waking it parses and solves); nil
    /// while resident. Never wakes it: the daemon asks before choosing where to run a request.
    var dormantBytes: Int? {
        slot.withLock { if case .dormant(let d) = $0.slot { return d.canonical.bytes.count } else { return nil } }
    }

    /// How many times the session was woken (its document solved again) since it was made.
    var wakes: Int { slot.withLock { $0.wakes } }
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
