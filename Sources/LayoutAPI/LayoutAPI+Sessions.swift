import Primitives
import JSON
import LayoutEngine
import LayoutModel

extension LayoutAPI {
    /// A document validated and solved outside any lock, ready to become a session's state.
    struct Prepared {
        var canonical: CanonicalDocument
        var system: LayoutSystem
        var diagnostics: Diagnostics
        var timing: ServerTiming
    }

    /// Parses, validates and solves `body`; 409 when strict and something is broken.
    /// `beforeValidation` runs after the JSON parse (PUT checks its preconditions there).
    func prepare(_ body: [UInt8], _ options: QueryOptions,
                 beforeValidation: () -> APIResponse? = { nil }) throws(Failure) -> Prepared {
        let t0 = MonotonicTime.now
        let json = try parseJSON(body)
        if let early = beforeValidation() { throw Failure(early) }
        let document = try validate(json)
        let t1 = MonotonicTime.now
        let (system, diagnostics) = SessionState.solve(document)
        if options.strict && !diagnostics.broken.isEmpty { throw Failure(Problems.strictConflict(diagnostics.broken)) }
        let timing = ServerTiming(parse: t1 - t0, solve: MonotonicTime.now - t1)
        return Prepared(canonical: CanonicalDocument(DocumentParser.canonicalize(json)), system: system,
                        diagnostics: diagnostics, timing: timing)
    }

    // MARK: POST /v1/sessions

    /// 201 with a server-chosen id (128 random bits), `Location`, `ETag: "1"`.
    func createSession(_ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        do throws(Failure) {
            let prepared = try prepare(request.body, options) {
                store.isFull ? Problems.tooManySessions(limit: store.maxSessions) : nil
            }
            let state = SessionState(canonical: prepared.canonical, system: prepared.system, revision: 1,
                                     diagnostics: prepared.diagnostics)
            // 128 random bits collide with a live id essentially never; retry if they do.
            for _ in 0..<8 {
                let session = Session(id: SessionID.random(), state: state, limits: limits)
                switch store.insert(session) {
                case .inserted: return created(session.id, state, options, prepared.timing)
                case .exists: continue
                case .full: return Problems.tooManySessions(limit: store.maxSessions)
                }
            }
            return Problems.busy("could not pick a free session id; try again")
        } catch {
            return error.response
        }
    }

    private func created(_ id: String, _ state: SessionState, _ options: QueryOptions,
                         _ timing: ServerTiming) -> APIResponse {
        var r = SessionAnswer.session(id, state, options, status: 201).response(timing)
        r.addHeader("Location", Self.location(id))
        return r
    }

    /// `/v1/sessions/<id>` with `#` escaped (the only id character that is not URL-safe).
    static func location(_ id: String) -> String {
        Route.sessionsPrefix + id.split(separator: "#", omittingEmptySubsequences: false).joined(separator: "%23")
    }

    // MARK: PUT /v1/sessions/{id}

    private enum PutOutcome {
        case retry
        case failed(APIResponse)
        case done(SessionAnswer)
    }

    /// Creates (201) or replaces (200) the session. A replacement with the same canonical document
    /// changes nothing (same revision, same solver state); another one is a fresh solve at the
    /// next revision. `If-Match` must match an existing session; `If-None-Match: *` makes the PUT
    /// create-only.
    func putSession(_ id: String, _ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        guard SessionID.isValid(id) else { return Problems.invalidSessionID(id) }
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))
        let ifNoneMatch = EntityTagCondition.parse(request.headers(named: "If-None-Match"))

        /// nil when the preconditions hold against `revision` (nil: no session).
        func preconditionFailure(_ revision: Int?) -> APIResponse? {
            guard let revision else {
                if ifMatch != nil {
                    return Problems.preconditionFailed(revision: nil,
                        detail: "If-Match was given but there is no session '\(id)'")
                }
                return nil
            }
            if let ifMatch, !ifMatch.matchesStrong(revision: revision) {
                return Problems.preconditionFailed(revision: revision,
                    detail: "If-Match does not match the current revision \(revision)")
            }
            if let ifNoneMatch, ifNoneMatch.matchesWeak(revision: revision) {
                return Problems.preconditionFailed(revision: revision,
                    detail: "If-None-Match: session '\(id)' exists at revision \(revision)")
            }
            return nil
        }

        do throws(Failure) {
            let prepared = try prepare(request.body, options) {
                // Preconditions before the document is validated, as for PATCH; checked again
                // under the session's lock when committing.
                let current = store.lookup(id)?.liveRevision
                if let failure = preconditionFailure(current) { return failure }
                if current == nil && store.isFull { return Problems.tooManySessions(limit: store.maxSessions) }
                return nil
            }
            for _ in 0..<16 {
                if let session = store.lookup(id) {
                    // A changed document replaces the state without looking at it: a dormant
                    // session is not woken (its document solved) only to be dropped.
                    let outcome: PutOutcome = session.replacing { revision, alive, canonical in
                        guard alive else { return .answer(.retry) }
                        if let failure = preconditionFailure(revision) { return .answer(.failed(failure)) }
                        guard canonical != prepared.canonical else {
                            return .withState { st in .done(.session(id, st, options, status: 200)) }
                        }
                        // The new document was solved by `prepare`: its state, at the current
                        // revision, goes through the commit point, which makes it the next one.
                        var st = SessionState(canonical: prepared.canonical, system: prepared.system,
                                              revision: revision, diagnostics: prepared.diagnostics)
                        let change = SessionChange(solve: .solved, canonical: .document(prepared.canonical),
                                                   logged: .document(prepared.canonical))
                        var timing = prepared.timing
                        switch st.commit(change, options, answering: .session(id: id, status: 200),
                                         events: session.events, timing: &timing) {
                        case .success(let answer): return .replace(st, .done(answer))
                        case .failure(let failure): return .answer(.failed(failure.response))
                        }
                    }
                    switch outcome {
                    case .retry:
                        store.remove(session)
                        continue
                    case .failed(let r):
                        return r
                    case .done(let answer):
                        return answer.response(prepared.timing)
                    }
                }
                if let failure = preconditionFailure(nil) { return failure }
                let state = SessionState(canonical: prepared.canonical, system: prepared.system, revision: 1,
                                         diagnostics: prepared.diagnostics)
                switch store.insert(Session(id: id, state: state, limits: limits)) {
                case .inserted: return created(id, state, options, prepared.timing)
                case .exists: continue
                case .full: return Problems.tooManySessions(limit: store.maxSessions)
                }
            }
            return Problems.busy("session '\(id)' is being created and deleted concurrently; try again")
        } catch {
            return error.response
        }
    }

    // MARK: GET /v1/sessions/{id}, GET /v1/sessions/{id}/frames

    /// `{id, revision, document, frames, diagnostics}` or, for `/frames`, `{revision, frames,
    /// diagnostics}`; `ETag`; 304 when `If-None-Match` names the current revision.
    func getSession(_ id: String, _ request: APIRequest, _ options: QueryOptions, withDocument: Bool) -> APIResponse {
        guard let session = store.lookup(id) else { return Problems.sessionNotFound(id) }
        typealias Snapshot = (canonical: CanonicalDocument, revision: Int, diagnostics: Diagnostics,
                              frames: ResultEncoder.FrameSelection)
        let snapshot: Snapshot? = session.withState { st in
            guard st.alive else { return nil }
            return (st.canonical, st.revision, st.diagnostics,
                    options.absolute ? .init(st.system.frames(.absolute)) : .init(st.frames, keys: st.frameKeys))
        }
        guard let snapshot else { return Problems.sessionNotFound(id) }
        let etag = EntityTagCondition.etag(snapshot.revision)
        if let inm = EntityTagCondition.parse(request.headers(named: "If-None-Match")),
           inm.matchesWeak(revision: snapshot.revision) {
            return APIResponse(status: 304, headers: [("ETag", etag)])
        }
        let body = ResultEncoder.sessionBody(id: withDocument ? id : nil, revision: snapshot.revision,
                                             document: withDocument ? snapshot.canonical.bytes : nil,
                                             frames: snapshot.frames, diagnostics: snapshot.diagnostics,
                                             stats: nil)
        return .json(200, body, headers: [("ETag", etag)])
    }

    // MARK: DELETE /v1/sessions/{id}

    /// 204 without a body; 412 when `If-Match` does not match.
    func deleteSession(_ id: String, _ request: APIRequest) -> APIResponse {
        guard let session = store.lookup(id) else { return Problems.sessionNotFound(id) }
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))
        let failure: APIResponse? = session.withLifecycle { revision, alive in
            guard alive else { return Problems.sessionNotFound(id) }
            if let ifMatch, !ifMatch.matchesStrong(revision: revision) {
                return Problems.preconditionFailed(revision: revision,
                    detail: "If-Match does not match the current revision \(revision)")
            }
            alive = false
            return nil
        }
        if let failure { return failure }
        store.remove(session)
        session.events.end(sessionID: id, reason: "deleted")
        return APIResponse(status: 204)
    }
}
