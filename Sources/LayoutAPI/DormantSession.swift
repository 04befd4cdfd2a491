import JSON
import LayoutEngine
import LayoutModel

/// A session asleep: its canonical document as text, its revision, and the frames it last
/// answered, without the solver, the document model or the engine (about 23 KiB instead of
/// about 285 KiB for a 50-view form).
///
/// Waking solves the document again, with the delegate states the session remembered. A
/// session's frames are always those of such a solve of its canonical document (edits are checked
/// against fresh sessions; a session that outgrows its solver rebuilds the same way), so a woken
/// session answers what it answered before it slept.
/// The frames it last answered are kept all the same (4 numbers a view): the next PATCH reports
/// the frames that changed since then, whatever the solve gives.
///
/// With a session store the text is not kept either (`canonical` nil): the store holds it, and
/// the wake reads it back (`reloaded`), as a restart would. Sessions padded to the body limit
/// would otherwise keep a megabyte each in memory for as long as they live (issue 27).
struct DormantSession: Sendable {
    /// The canonical document: its text, and where its members are (8 bytes a member; waking
    /// would otherwise write the text again to find them). Nil when the session store holds it.
    let canonical: CanonicalDocument?
    /// The text's length when it fell asleep, kept or not: what a wake will parse and solve
    /// (`LayoutAPI.isExpensive`).
    let textBytes: Int
    let revision: Int
    let generation: UInt64
    let writeID: UInt64
    var alive: Bool
    /// Relative frames at the time it fell asleep, in view order.
    let frames: [Frame]
    /// The last state of its `delegate` constraints: the one thing a session holds beyond its
    /// document (a delegate constraint without a `delegate` entry keeps its last state).
    let delegates: [String: Bool]

    /// - Parameter keepText: false when a session store holds the document (the wake reads it).
    init(_ state: SessionState, keepText: Bool = true) {
        canonical = keepText ? state.canonical.stored : nil
        textBytes = state.canonical.byteCount
        revision = state.revision
        generation = state.generation
        writeID = state.writeID
        alive = state.alive
        frames = state.frames.map(\.frame)
        delegates = state.system.rememberedDelegates
    }

    /// A session as the session store holds it (its document replayed to canonical form): it has
    /// no frames yet; its first wake solves them, as any wake would.
    init(canonical: CanonicalDocument, revision: Int, generation: UInt64, writeID: UInt64, delegates: [String: Bool],
         frames: [Frame] = []) {
        self.init(canonical: canonical, textBytes: canonical.byteCount, revision: revision, generation: generation,
                  writeID: writeID, delegates: delegates, frames: frames)
    }

    private init(canonical: CanonicalDocument?, textBytes: Int, revision: Int, generation: UInt64, writeID: UInt64,
                 delegates: [String: Bool], frames: [Frame]) {
        self.canonical = canonical
        self.textBytes = textBytes
        self.revision = revision
        self.generation = generation
        self.writeID = writeID
        self.alive = true
        self.frames = frames
        self.delegates = delegates
    }

    /// What the session holds in memory asleep, estimated (`Session.footprint`): its text when
    /// kept, its last frames (4 doubles a view), and its delegate memory.
    var footprint: Int {
        (canonical?.byteCount ?? 0) + frames.count * MemoryEstimate.bytesPerFrame
            + delegates.count * MemoryEstimate.bytesPerDelegate + MemoryEstimate.bytesPerSession
    }

    var tag: SessionTag { SessionTag(revision: revision, generation: generation) }

    /// The same session without its text (the session store holds it: `reloaded`).
    var withoutText: DormantSession {
        var d = DormantSession(canonical: nil, textBytes: textBytes, revision: revision, generation: generation,
                               writeID: writeID, delegates: delegates, frames: frames)
        d.alive = alive
        return d
    }

    /// The resident state again: the document re-read from its text, solved and diagnosed.
    ///
    /// The text is a canonical document that validated under `limits` when it was stored, so it
    /// reads back; if it ever did not, the session wakes dead (it answers 404 like a deleted one)
    /// rather than trapping the daemon.
    func wake(limits: DocumentLimits) -> SessionState {
        guard let canonical, let json = try? JSONParser.parse(canonical.bytes, maxDepth: 1024),
              case .success(let document) = DocumentParser.parse(json, limits: limits) else {
            var dead = SessionState(canonical: CanonicalDocument(.object(JSONObject())),
                                    system: LayoutSystem(document: Document()), revision: revision,
                                    generation: generation, diagnostics: Diagnostics(), writeID: writeID)
            dead.alive = false
            return dead
        }
        let (system, diagnostics) = SessionState.solve(document, delegateMemory: delegates)
        var state = SessionState(canonical: canonical, system: system, revision: revision,
                                 generation: generation, diagnostics: diagnostics, writeID: writeID)
        if state.frames.count == frames.count {
            for i in frames.indices { state.frames[i].frame = frames[i] }
        }
        state.alive = alive
        return state
    }
}
