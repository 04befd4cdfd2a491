import JSON
import LayoutEngine
import LayoutModel

extension LayoutAPI {
    private enum PatchOutcome {
        case failed(APIResponse)
        case done(revision: Int, frames: [(id: String, frame: Frame)], diagnostics: Diagnostics, stats: EditStats)
    }

    /// `PATCH /v1/sessions/{id}`: a JSON merge patch (RFC 7396) against the canonical document.
    ///
    /// Checks in order: 404, 415, 400 (patch not JSON), 412 (`If-Match`), 422 (patched document
    /// invalid, pointers into the patched document), 409 (`strict=true` and broken). Any failure
    /// leaves the session as it was. A patch whose result has the same canonical document changes
    /// nothing and keeps the revision. Answers `{revision, frames, diagnostics, stats}` with only
    /// the frames that changed since the previous revision (all with `frames=all`).
    func patchSession(_ id: String, _ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        guard let session = store.lookup(id) else { return Problems.sessionNotFound(id) }
        let contentType = request.header("Content-Type")
        guard MediaType.isPatch(contentType) else { return Problems.unsupportedMediaType(contentType) }
        let t0 = ContinuousClock.now
        let patch: JSONValue
        do throws(Failure) {
            patch = try parseJSON(request.body)
        } catch {
            return error.response
        }
        var timing = ServerTiming(parse: ContinuousClock.now - t0)
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))

        let outcome: PatchOutcome = session.state.withLock { st in
            guard st.alive else { return .failed(Problems.sessionNotFound(id)) }
            if let ifMatch, !ifMatch.matchesStrong(revision: st.revision) {
                return .failed(Problems.preconditionFailed(revision: st.revision,
                    detail: "If-Match does not match the current revision \(st.revision)"))
            }
            let t1 = ContinuousClock.now
            let patched = st.canonical.applyingMergePatch(patch)
            let next: Document
            do throws(Failure) {
                next = try validate(patched, patched: true)
            } catch {
                return .failed(error.response)
            }
            let canonical = DocumentParser.canonicalize(patched)
            let t2 = ContinuousClock.now
            timing.parse += t2 - t1
            if canonical == st.canonical {
                if options.strict && !st.diagnostics.broken.isEmpty {
                    return .failed(Problems.strictConflict(st.diagnostics.broken))
                }
                let frames = options.allFrames ? (options.absolute ? st.system.frames(.absolute) : st.frames) : []
                return .done(revision: st.revision, frames: frames, diagnostics: st.diagnostics, stats: EditStats())
            }

            let plan = PatchPlan.classify(patch, canonical: st.canonical, current: st.system.document, next: next)
            let before: [(id: String, frame: Frame)]? =
                options.allFrames ? nil : (options.absolute ? st.system.frames(.absolute) : st.frames)
            let stats: EditStats
            let diagnostics: Diagnostics
            if options.strict {
                // Edit a copy (copy-on-write) and keep it only when nothing is broken.
                var trial = st.system
                stats = trial.edit(to: next, plan: plan)
                diagnostics = trial.diagnostics
                if !diagnostics.broken.isEmpty { return .failed(Problems.strictConflict(diagnostics.broken)) }
                st.system = trial
            } else {
                // Nothing can fail from here on: edit in place.
                stats = st.system.edit(to: next, plan: plan)
                diagnostics = st.system.diagnostics
            }
            st.canonical = canonical
            st.revision += 1
            st.diagnostics = diagnostics
            st.frames = st.system.frames(.relative)
            session.events.publish(st)
            let after = options.absolute ? st.system.frames(.absolute) : st.frames
            let frames = before.map { Self.changedFrames(from: $0, to: after) } ?? after
            timing.solve = ContinuousClock.now - t2
            return .done(revision: st.revision, frames: frames, diagnostics: diagnostics, stats: stats)
        }

        switch outcome {
        case .failed(let response):
            return response
        case .done(let revision, let frames, let diagnostics, let stats):
            let body = ResultEncoder.sessionBody(id: nil, revision: revision, document: nil, frames: frames,
                                                 diagnostics: diagnostics, stats: stats)
            return .json(200, body, headers: [("ETag", EntityTagCondition.etag(revision)), timing.header])
        }
    }

    /// The frames of `after` that are new or differ from `before`, in `after`'s order.
    static func changedFrames(from before: [(id: String, frame: Frame)],
                              to after: [(id: String, frame: Frame)]) -> [(id: String, frame: Frame)] {
        var old = [String: Frame](minimumCapacity: before.count)
        for (id, f) in before { old[id] = f }
        return after.filter { old[$0.id] != $0.frame }
    }
}
