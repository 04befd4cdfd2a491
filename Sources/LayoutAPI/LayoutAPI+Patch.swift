import Primitives
import JSON
import LayoutEngine
import LayoutModel

extension LayoutAPI {
    private enum PatchOutcome {
        case failed(APIResponse)
        case done(revision: Int, frames: ResultEncoder.FrameSelection, diagnostics: Diagnostics, stats: EditStats)
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
        let t0 = MonotonicTime.now
        // The usual patches (one constant, a root's size) are read from the bytes; any other is
        // parsed here, so that a body that is not JSON is a 400 before the session is touched.
        let lane = NumberPatch.body(request.body)
        var parsed: JSONValue? = nil
        if lane == nil {
            do throws(Failure) {
                parsed = try parseJSON(request.body)
            } catch {
                return error.response
            }
        }
        var timing = ServerTiming(parse: MonotonicTime.now - t0)
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))

        let outcome: PatchOutcome = session.withState { st in
            guard st.alive else { return .failed(Problems.sessionNotFound(id)) }
            if let ifMatch, !ifMatch.matchesStrong(revision: st.revision) {
                return .failed(Problems.preconditionFailed(revision: st.revision,
                    detail: "If-Match does not match the current revision \(st.revision)"))
            }
            let t1 = MonotonicTime.now
            if let lane, let edit = PatchPlan.edit(for: lane, canonical: st.canonical, system: st.system, limits: limits) {
                timing.parse += MonotonicTime.now - t1
                return Self.commit(edit, &st, session, options, &timing)
            }
            let patch: JSONValue
            if let parsed {
                patch = parsed
            } else {
                // The lane did not apply: its body is JSON (the scanner accepted it).
                do throws(Failure) {
                    patch = try parseJSON(request.body)
                } catch {
                    return .failed(error.response)
                }
            }
            switch PatchPlan.classify(patch, canonical: st.canonical, system: st.system, context: &st.memberContext,
                                      limits: limits) {
            case .invalid(let problems):
                return .failed(Problems.invalidDocument(problems, patch: true))
            case .members(let edit):
                timing.parse += MonotonicTime.now - t1
                return Self.commit(edit, &st, session, options, &timing)
            case .general:
                let patched = st.canonical.json.applyingMergePatch(patch)
                let next: Document
                do throws(Failure) {
                    next = try validate(patched, patched: true)
                } catch {
                    return .failed(error.response)
                }
                let canonical = CanonicalDocument(DocumentParser.canonicalize(patched))
                timing.parse += MonotonicTime.now - t1
                if canonical == st.canonical { return Self.unchanged(st, options) }
                st.memberContext = nil
                return Self.commit(&st, session, options, &timing, edit: { system in
                                       let stats = system.apply(next)
                                       system.compact()  // a whole-document edit may have grown it
                                       return stats
                                   },
                                   canonical: { $0 = canonical })
            }
        }

        switch outcome {
        case .failed(let response):
            return response
        case .done(let revision, let frames, let diagnostics, let stats):
            let body = ResultEncoder.sessionBody(id: nil, revision: revision, document: nil, frames: frames,
                                                 diagnostics: diagnostics, stats: stats)
            return .json(200, body, etag: EntityTagCondition.etag(revision), timing: timing)
        }
    }

    /// Commits a `members` edit (the answer of `unchanged` when it changes nothing).
    private static func commit(_ edit: MemberEdit, _ st: inout SessionState, _ session: Session,
                               _ options: QueryOptions, _ timing: inout ServerTiming) -> PatchOutcome {
        if edit.isEmpty { return unchanged(st, options) }
        return commit(&st, session, options, &timing, edit: { edit.apply(to: &$0) },
                      canonical: { edit.write(into: &$0) })
    }

    /// The answer to a patch that leaves the document as it was: same revision, nothing solved.
    private static func unchanged(_ st: SessionState, _ options: QueryOptions) -> PatchOutcome {
        if options.strict && !st.diagnostics.broken.isEmpty {
            return .failed(Problems.strictConflict(st.diagnostics.broken))
        }
        let frames: ResultEncoder.FrameSelection
        if !options.allFrames {
            frames = .init([])
        } else if options.absolute {
            frames = .init(st.system.frames(.absolute))
        } else {
            frames = .init(st.frames, keys: st.frameKeys)
        }
        return .done(revision: st.revision, frames: frames, diagnostics: st.diagnostics, stats: EditStats())
    }

    /// Edits the session's system by `edit` (on a copy kept only when nothing is broken, under
    /// `strict`), then moves the session to the next revision with `canonical` applied to its
    /// document. Answers with the frames that changed (all with `frames=all`).
    private static func commit(_ st: inout SessionState, _ session: Session, _ options: QueryOptions,
                               _ timing: inout ServerTiming, edit: (inout LayoutSystem) -> EditStats,
                               canonical: (inout CanonicalDocument) -> Void) -> PatchOutcome {
        let t2 = MonotonicTime.now
        // The default answer (changed frames, relative) comes from refreshing `st.frames` in place.
        let inPlace = !options.allFrames && !options.absolute
        let before: [(id: String, frame: Frame)]? =
            options.allFrames || inPlace ? nil : st.system.frames(.absolute)
        let stats: EditStats
        let diagnostics: Diagnostics
        if options.strict {
            // Edit a copy (copy-on-write) and keep it only when nothing is broken.
            var trial = st.system
            stats = edit(&trial)
            diagnostics = trial.refreshDiagnostics()
            if !diagnostics.broken.isEmpty { return .failed(Problems.strictConflict(diagnostics.broken)) }
            st.system = trial
        } else {
            // Nothing can fail from here on: edit in place.
            stats = edit(&st.system)
            diagnostics = st.system.refreshDiagnostics()
        }
        canonical(&st.canonical)
        st.revision += 1
        st.diagnostics = diagnostics
        let changed = st.refreshFrames()
        session.events.publish(st)
        let frames: ResultEncoder.FrameSelection
        if inPlace {
            frames = .init(st.frames, positions: changed, keys: st.frameKeys)
        } else {
            let after = options.absolute ? st.system.frames(.absolute) : st.frames
            if let before {
                frames = .init(after, positions: changedPositions(from: before, to: after))
            } else {
                frames = .init(after, keys: options.absolute ? nil : st.frameKeys)
            }
        }
        timing.solve = MonotonicTime.now - t2
        return .done(revision: st.revision, frames: frames, diagnostics: diagnostics, stats: stats)
    }

    /// Positions in `after` of the frames that are new or differ from `before`, ascending.
    static func changedPositions(from before: [(id: String, frame: Frame)],
                                 to after: [(id: String, frame: Frame)]) -> [Int] {
        // The usual case: the same views in the same order (compared by position, no hashing).
        if before.count == after.count {
            var out: [Int] = []
            var i = 0
            while i < after.count, before[i].id == after[i].id {
                if before[i].frame != after[i].frame { out.append(i) }
                i += 1
            }
            if i == after.count { return out }
        }
        var old = [String: Frame](minimumCapacity: before.count)
        for (id, f) in before { old[id] = f }
        return after.indices.filter { old[after[$0].id] != after[$0].frame }
    }
}
