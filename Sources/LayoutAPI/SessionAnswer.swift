import LayoutEngine

/// What a request on a session answers: decided under the session's lock, written into a response
/// after it is released (the frames are a copy-on-write snapshot of the session's).
struct SessionAnswer {
    /// Which form the answer takes.
    enum Form {
        /// PATCH: `{revision, frames, diagnostics, stats}` with the frames that changed (all of
        /// them with `frames=all`).
        case changes
        /// PUT, POST: `{id, revision, frames, diagnostics}` with every frame.
        case session(id: String, status: Int)
    }

    var id: String?
    var status: Int
    var revision: Int
    var generation: UInt64
    var frames: ResultEncoder.FrameSelection
    var diagnostics: Diagnostics
    var stats: EditStats?

    /// The whole session as it is: every frame (relative, or absolute with `absolute=true`).
    static func session(_ id: String, _ st: SessionState, _ options: QueryOptions, status: Int) -> SessionAnswer {
        SessionAnswer(id: id, status: status, revision: st.revision, generation: st.generation,
                      frames: allFrames(st, options),
                      diagnostics: st.diagnostics, stats: nil)
    }

    /// Every frame of `st` in the coordinates asked for.
    static func allFrames(_ st: SessionState, _ options: QueryOptions) -> ResultEncoder.FrameSelection {
        options.absolute ? .init(st.system.frames(.absolute)) : .init(st.frames, keys: st.frameKeys)
    }

    /// The answer to a PATCH that leaves the document as it was: same revision, nothing solved;
    /// 409 under `strict` when the session has broken constraints.
    static func unchanged(_ st: SessionState, _ options: QueryOptions) -> Result<SessionAnswer, LayoutAPI.Failure> {
        if options.strict && !st.diagnostics.broken.isEmpty {
            return .failure(LayoutAPI.Failure(Problems.strictConflict(st.diagnostics.broken)))
        }
        return .success(SessionAnswer(id: nil, status: 200, revision: st.revision, generation: st.generation,
                                      frames: options.allFrames ? allFrames(st, options) : .init([]),
                                      diagnostics: st.diagnostics, stats: EditStats()))
    }

    /// The response, with `ETag` and `Server-Timing`.
    func response(_ timing: ServerTiming) -> APIResponse {
        let body = ResultEncoder.sessionBody(id: id.map(SessionID.visible), revision: revision, document: nil, frames: frames,
                                             diagnostics: diagnostics, stats: stats)
        return .json(status, body, etag: EntityTagCondition.etag(SessionTag(revision: revision, generation: generation)), timing: timing)
    }
}
