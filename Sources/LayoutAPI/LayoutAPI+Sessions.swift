import Primitives
import JSON
import LayoutEngine
import LayoutModel
import Storage

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

    /// 201 with a server-chosen id (128 random bits), `Location`, `ETag: "1-<generation>"`.
    func createSession(_ request: APIRequest, _ options: QueryOptions, _ principal: Principal?) -> APIResponse {
        do throws(Failure) {
            let prepared = try prepare(request.body, options) {
                if atSessionLimit { return Problems.tooManySessions(limit: configuration.maxSessions) }
                if atTenantQuota(principal) { return Problems.sessionQuota(limit: principal?.record.maxSessions ?? 0) }
                return nil
            }
            var state = SessionState(canonical: prepared.canonical, system: prepared.system, revision: 1,
                                     generation: 0, diagnostics: prepared.diagnostics)
            // 128 random bits collide with a live id essentially never; retry if they do.
            for _ in 0..<8 {
                let id = SessionID.key(SessionID.random(), tenant: principal?.tenant)
                switch insertNew(id, &state) {
                case .created: return created(id, state, options, prepared.timing)
                case .taken: continue
                case .failed(let response): return response
                }
            }
            return Problems.busy("could not pick a free session id; try again")
        } catch {
            return error.response
        }
    }

    private enum NewSession {
        case created
        /// The id is in use (in memory or in the store): look again.
        case taken
        case failed(APIResponse)
    }

    /// Makes `state` the new session `id` (POST, PUT of an absent id): stored first (its
    /// generation set in `state`), then added to the registry, so that no request ever sees a
    /// session that is not stored. With a store, `maxSessions` is checked against the store.
    private func insertNew(_ id: String, _ state: inout SessionState) -> NewSession {
        // What every store computes for a create (the chain's first link).
        state.writeID = WriteChain.created(state.canonical.bytes)
        if repository != nil && !reserveStoredSession() {
            return .failed(Problems.tooManySessions(limit: configuration.maxSessions))
        }
        // Listening for the new session's writes before it exists: another node may write it as
        // soon as it is stored. The registry undoes the follow when the copy leaves it.
        repository?.follow(id)
        var kept = false
        defer { if !kept { repository?.unfollow(id) } }
        switch storeNewSession(id, state) {
        case .success(let generation):
            state.generation = generation
        case .failure(let failure):
            if repository != nil { releaseStoredSession() }
            // A conflict: the id is stored already (created concurrently): look again.
            return failure.staleSession ? .taken : .failed(failure.response)
        }
        let session = Session(id: id, state: state, limits: limits, epoch: noticeEpoch.withLock { $0 },
                              repository: repository)
        for _ in 0..<4 {
            switch registry.insert(session) {
            case .inserted:
                kept = true
                return .created
            case .full:
                return .failed(Problems.tooManySessions(limit: configuration.maxSessions))
            case .exists(let other):
                guard let repository else { return .taken }
                guard let tag = other.liveTag else {
                    // A deleted session not yet out of the registry (its store delete came first).
                    registry.remove(other)
                    continue
                }
                // A concurrent request woke the session just stored: it is this one.
                if tag.generation == state.generation { return .created }
                try? repository.delete(id: id, generation: state.generation)
                releaseStoredSession()
                return .taken
            }
        }
        return .taken
    }

    /// The store and the session's id for the commit point (nil: no store).
    func durable(_ id: String) -> (store: SessionRepository, id: String, limits: DocumentLimits)? {
        repository.map { ($0, id, limits) }
    }

    private func created(_ id: String, _ state: SessionState, _ options: QueryOptions,
                         _ timing: ServerTiming) -> APIResponse {
        var r = SessionAnswer.session(id, state, options, status: 201).response(timing)
        r.addHeader("Location", Self.location(id))
        return r
    }

    /// `/v1/sessions/<id>` with `#` escaped (the only id character that is not URL-safe).
    static func location(_ key: String) -> String {
        Route.sessionsPrefix + SessionID.visible(key).split(separator: "#", omittingEmptySubsequences: false).joined(separator: "%23")
    }

    // MARK: PUT /v1/sessions/{id}

    private enum PutOutcome {
        case retry
        case failed(APIResponse)
        /// The store fenced the replacement off: drop the copy in memory.
        case stale
        case done(SessionAnswer)
    }

    /// Creates (201) or replaces (200) the session. A replacement with the same canonical document
    /// changes nothing (same revision, same solver state); another one is a fresh solve at the
    /// next revision. `If-Match` must match an existing session; `If-None-Match: *` makes the PUT
    /// create-only.
    func putSession(_ id: String, _ request: APIRequest, _ options: QueryOptions, _ principal: Principal?) -> APIResponse {
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))
        let ifNoneMatch = EntityTagCondition.parse(request.headers(named: "If-None-Match"))

        /// nil when the preconditions hold against `tag` (nil: no session).
        func preconditionFailure(_ tag: SessionTag?) -> APIResponse? {
            guard let tag else {
                if ifMatch != nil {
                    return Problems.preconditionFailed(nil,
                        detail: "If-Match was given but there is no session '\(SessionID.visible(id))'")
                }
                return nil
            }
            if let ifMatch, !ifMatch.matchesStrong(tag) {
                return Problems.preconditionFailed(tag,
                    detail: "If-Match does not match the current revision \(tag.revision)")
            }
            if let ifNoneMatch, ifNoneMatch.matchesWeak(tag) {
                return Problems.preconditionFailed(tag,
                    detail: "If-None-Match: session '\(SessionID.visible(id))' exists at revision \(tag.revision)")
            }
            return nil
        }

        do throws(Failure) {
            let prepared = try prepare(request.body, options) {
                // Preconditions before the document is validated, as for PATCH; checked again
                // under the session's lock when committing.
                let current: SessionTag?
                do throws(Failure) { current = try findSession(id)?.liveTag } catch { return error.response }
                if let failure = preconditionFailure(current) { return failure }
                if current == nil && atSessionLimit { return Problems.tooManySessions(limit: configuration.maxSessions) }
                if current == nil && atTenantQuota(principal) {
                    return Problems.sessionQuota(limit: principal?.record.maxSessions ?? 0)
                }
                return nil
            }
            for _ in 0..<16 {
                if let session = try findSession(id) {
                    // A changed document replaces the state without looking at it: a dormant
                    // session is not woken (its document solved) only to be dropped.
                    let outcome: PutOutcome = try session.replacing { tag, writeID, alive, canonical in
                        guard alive else { return .answer(.retry) }
                        if let failure = preconditionFailure(tag) { return .answer(.failed(failure)) }
                        guard canonical != prepared.canonical else {
                            return .withState { st in .done(.session(id, st, options, status: 200)) }
                        }
                        // The new document was solved by `prepare`: its state, at the current
                        // revision, goes through the commit point, which makes it the next one.
                        var st = SessionState(canonical: prepared.canonical, system: prepared.system,
                                              revision: tag.revision, generation: tag.generation,
                                              diagnostics: prepared.diagnostics, writeID: writeID)
                        let change = SessionChange(solve: .solved, canonical: .document(prepared.canonical),
                                                   logged: .document(prepared.canonical))
                        var timing = prepared.timing
                        switch st.commit(change, options, answering: .session(id: id, status: 200),
                                         events: session.events, timing: &timing, durable: durable(id)) {
                        case .success(let answer): return .replace(st, .done(answer))
                        case .failure(let failure):
                            return .answer(failure.staleSession ? .stale : .failed(failure.response))
                        }
                    }
                    switch outcome {
                    case .retry:
                        registry.remove(session)
                        continue
                    case .failed(let r):
                        return r
                    case .stale:
                        // Another node wrote the session first: catch up, decide again.
                        _ = try catchUp(session)
                        continue
                    case .done(let answer):
                        return answer.response(prepared.timing)
                    }
                }
                if let failure = preconditionFailure(nil) { return failure }
                var state = SessionState(canonical: prepared.canonical, system: prepared.system, revision: 1,
                                         generation: 0, diagnostics: prepared.diagnostics)
                switch insertNew(id, &state) {
                case .created: return created(id, state, options, prepared.timing)
                case .taken: continue
                case .failed(let response): return response
                }
            }
            return Problems.busy("session '\(SessionID.visible(id))' is being created and deleted concurrently; try again")
        } catch {
            return error.response
        }
    }

    // MARK: GET /v1/sessions/{id}, GET /v1/sessions/{id}/frames

    /// `{id, revision, document, frames, diagnostics}` or, for `/frames`, `{revision, frames,
    /// diagnostics}`; `ETag`; 304 when `If-None-Match` names the current revision.
    func getSession(_ id: String, _ request: APIRequest, _ options: QueryOptions, withDocument: Bool) -> APIResponse {
        let session: Session
        switch existingSession(id, mayWait: request.mayWait) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        typealias Snapshot = (canonical: CanonicalDocument, tag: SessionTag, diagnostics: Diagnostics,
                              frames: ResultEncoder.FrameSelection)
        let taken: Snapshot??
        do throws(Failure) {
            taken = try session.withState(mayWait: request.mayWait) { st in
                guard st.alive else { return nil }
                return (st.canonical, st.tag, st.diagnostics,
                        options.absolute ? .init(st.system.frames(.absolute)) : .init(st.frames, keys: st.frameKeys))
            }
        } catch {
            return error.response
        }
        guard let taken else { return .waitNeeded }
        guard let snapshot = taken else { return Problems.sessionNotFound(id) }
        if let notModified = EntityTagCondition.notModified(request, snapshot.tag) { return notModified }
        let etag = EntityTagCondition.etag(snapshot.tag)
        let body = ResultEncoder.sessionBody(id: withDocument ? SessionID.visible(id) : nil, revision: snapshot.tag.revision,
                                             document: withDocument ? snapshot.canonical.bytes : nil,
                                             frames: snapshot.frames, diagnostics: snapshot.diagnostics,
                                             stats: nil)
        return .json(200, body, headers: [("ETag", etag)])
    }

    // MARK: DELETE /v1/sessions/{id}

    /// 204 without a body; 412 when `If-Match` does not match. With a store, the session is
    /// deleted from it (under the session's lock, before it is marked dead) before the 204.
    func deleteSession(_ id: String, _ request: APIRequest) -> APIResponse {
        var session: Session
        switch existingSession(id) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))
        var attempt = 0
        while true {
            let failure: Failure? = session.withLifecycle { tag, alive in
                guard alive else { return Failure(Problems.sessionNotFound(id)) }
                if let ifMatch, !ifMatch.matchesStrong(tag) {
                    return Failure(Problems.preconditionFailed(tag,
                        detail: "If-Match does not match the current revision \(tag.revision)"))
                }
                if let repository {
                    do throws(StorageError) {
                        try repository.delete(id: id, generation: tag.generation)
                    } catch {
                        return SessionRepository.failure(error, id: id)
                    }
                }
                alive = false
                return nil
            }
            guard let failure else { break }
            guard failure.staleSession, attempt < Self.fencedRetries else { return failure.response }
            // The id was deleted (and perhaps created again) by another node: catch up, decide again.
            do throws(Failure) { session = try caughtUp(session) } catch { return error.response }
            attempt += 1
        }
        if repository != nil { storedCount.removed(1) }
        registry.remove(session)
        session.events.end(sessionID: id, .deleted)
        return APIResponse(status: 204)
    }
}
