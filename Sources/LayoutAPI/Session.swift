import JSON
import LayoutEngine
import LayoutModel

/// One session: a layout document held in a solver between requests.
///
/// Its state sits behind its own lock, so requests on one session are serialised while
/// different sessions proceed in parallel.
final class Session: Sendable {
    let id: String
    let state: Locked<SessionState>
    /// Subscribers of `GET /v1/sessions/{id}/events`.
    let events = SessionEvents()

    init(id: String, state: SessionState) {
        self.id = id
        self.state = Locked(state)
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
    }
}

extension SessionState {
    /// Brings `frames` up to date with `system` and returns the frames that changed (new views
    /// included), in view order. When the views are the same as before (the usual edit), the
    /// array is updated in place, position by position.
    mutating func refreshFrames() -> [(id: String, frame: Frame)] {
        let views = system.document.views
        var changed: [(id: String, frame: Frame)] = []
        var same = frames.count == views.count
        var i = 0
        while same && i < views.count {
            same = frames[i].id == views[i].id  // the same strings: compared by identity first
            i += 1
        }
        if same {
            for i in views.indices {
                let f = system.frame(at: i, .relative)
                if f != frames[i].frame {
                    frames[i].frame = f
                    changed.append(frames[i])
                }
            }
            return changed
        }
        let after = system.frames(.relative)
        changed = LayoutAPI.changedFrames(from: frames, to: after)
        frames = after
        return changed
    }
}
