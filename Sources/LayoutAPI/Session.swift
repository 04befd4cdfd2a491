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
    private let slot: Locked<Slot>
    /// Subscribers of `GET /v1/sessions/{id}/events`.
    let events = SessionEvents()
    /// The limits the document was validated under (a dormant document is re-read with them).
    let limits: DocumentLimits

    private enum Slot {
        case resident(StateBox)
        case dormant(DormantSession)
        /// Only inside `withLifecycle` on a dormant session: its state is out of the slot.
        case moving
    }

    /// A resident state, edited in place through the reference. Binding an enum's payload in a
    /// `switch` copies it: a `SessionState` held directly in `Slot` was copied (about 45 retains)
    /// and the old copy released on every request.
    private final class StateBox {
        var state: SessionState
        init(_ state: SessionState) { self.state = state }
    }

    init(id: String, state: SessionState, limits: DocumentLimits) {
        self.id = id
        self.limits = limits
        self.slot = Locked(.resident(StateBox(state)))
    }

    /// Runs `body` on the session's state under its lock, waking the session first when it is
    /// dormant. Rethrows what `body` throws.
    func withState<R>(_ body: (inout SessionState) throws -> R) rethrows -> R {
        try slot.withLock { slot in
            let box: StateBox
            switch slot {
            case .resident(let b): box = b
            case .dormant(let d):
                box = StateBox(d.wake(limits: limits))
                slot = .resident(box)
            case .moving: preconditionFailure("Session.withState re-entered")
            }
            return try body(&box.state)
        }
    }

    /// Runs `body` on the session's revision and liveness under its lock, without waking it:
    /// for the checks that need nothing else (DELETE, expiry, PUT's preconditions).
    func withLifecycle<R>(_ body: (_ revision: Int, _ alive: inout Bool) -> R) -> R {
        slot.withLock { slot in
            switch slot {
            case .resident(let box):
                return body(box.state.revision, &box.state.alive)
            case .dormant(var d):
                slot = .moving
                defer { slot = .dormant(d) }
                return body(d.revision, &d.alive)
            case .moving:
                preconditionFailure("Session.withLifecycle re-entered")
            }
        }
    }

    /// The revision while the session is alive; nil once deleted or expired. Never wakes it.
    var liveRevision: Int? { withLifecycle { revision, alive in alive ? revision : nil } }

    /// Marks the session dead (deleted or expired) without waking it.
    func retire() { withLifecycle { _, alive in alive = false } }

    /// Puts a resident, live session to sleep; returns whether it did.
    @discardableResult
    func sleep() -> Bool {
        slot.withLock { slot in
            guard case .resident(let box) = slot, box.state.alive else { return false }
            slot = .dormant(DormantSession(box.state))
            return true
        }
    }

    /// Whether the session holds its solver now (for tests and statistics).
    var isResident: Bool {
        slot.withLock { if case .resident = $0 { return true } else { return false } }
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

    init(canonical: CanonicalDocument, system: LayoutSystem, revision: Int, diagnostics: Diagnostics) {
        self.canonical = canonical
        self.system = system
        self.revision = revision
        self.diagnostics = diagnostics
        self.frames = system.frames(.relative)
        self.frameKeys = ResultEncoder.FrameKeys(frames)
        self.framesViewList = system.viewList
    }
}

extension SessionState {
    /// `document` solved for a session to keep (its spare capacity given back), and its
    /// diagnostics: how a session is made, and how a dormant one wakes.
    static func solve(_ document: Document, delegateMemory: [String: Bool] = [:])
        -> (system: LayoutSystem, diagnostics: Diagnostics) {
        var system = LayoutSystem(document: document, delegateMemory: delegateMemory)
        system.compact()
        return (system, system.refreshDiagnostics())
    }
}
