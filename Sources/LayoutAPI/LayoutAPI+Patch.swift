import Primitives
import JSON
import LayoutEngine
import LayoutModel

extension LayoutAPI {
    /// `PATCH /v1/sessions/{id}`: a JSON merge patch (RFC 7396) against the canonical document.
    ///
    /// Checks in order: 404, 415, 400 (patch not JSON), 412 (`If-Match`), 422 (patched document
    /// invalid, pointers into the patched document), 409 (`strict=true` and broken). Any failure
    /// leaves the session as it was. A patch whose result has the same canonical document changes
    /// nothing and keeps the revision. Answers `{revision, frames, diagnostics, stats}` with only
    /// the frames that changed since the previous revision (all with `frames=all`).
    ///
    /// One pipeline: the body is read once before the lock (`PatchBody`), the change decided once
    /// under it against the session's current document (`decide`), and committed at the session's
    /// one commit point (`SessionState.commit`), which hands the engine one `LayoutEdit`.
    func patchSession(_ id: String, _ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        var session: Session
        switch existingSession(id) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        let contentType = request.header("Content-Type")
        guard MediaType.isPatch(contentType) else { return Problems.unsupportedMediaType(contentType) }
        let t0 = MonotonicTime.now
        // The usual patches (one constant, a view's sizes) are read by the byte scanner; any other
        // is parsed here, so that a body that is not JSON is a 400 before the session is touched.
        let body: PatchBody
        if let lane = NumberPatch.body(request.body) {
            body = PatchBody(bytes: request.body, read: .lane(lane))
        } else {
            do throws(Failure) {
                body = PatchBody(bytes: request.body, read: .tree(try parseJSON(request.body)))
            } catch {
                return error.response
            }
        }
        var timing = ServerTiming(parse: MonotonicTime.now - t0)
        let ifMatch = EntityTagCondition.parse(request.headers(named: "If-Match"))

        var attempt = 0
        while true {
            let outcome: Result<SessionAnswer, Failure>
            do throws(Failure) {
                outcome = try session.withState { st in
                    guard st.alive else { return .failure(Failure(Problems.sessionNotFound(id))) }
                    if let ifMatch, !ifMatch.matchesStrong(st.tag) {
                        return .failure(Failure(Problems.preconditionFailed(st.tag,
                            detail: "If-Match does not match the current revision \(st.revision)")))
                    }
                    let t1 = MonotonicTime.now
                    let decision = decide(body, &st)
                    timing.parse += MonotonicTime.now - t1
                    switch decision {
                    case .failed(let response):
                        return .failure(Failure(response))
                    case .unchanged:
                        return SessionAnswer.unchanged(st, options)
                    case .change(let change):
                        if let refusal = sizeRefusal(change, st.canonical) { return .failure(Failure(refusal)) }
                        return st.commit(change, options, answering: .changes, events: session.events, timing: &timing,
                                         durable: durable(id))
                    }
                }
            } catch {
                // The session slept without its text and the store could not give it back.
                outcome = .failure(error)
            }
            switch outcome {
            case .failure(let failure) where failure.staleSession && attempt < Self.fencedRetries:
                // Another node wrote the session since this copy was read: catch up, decide again.
                do throws(Failure) { session = try caughtUp(session) } catch { return error.response }
                attempt += 1
            case .failure(let failure):
                return failure.response
            case .success(let answer):
                return answer.response(timing)
            }
        }
    }

    /// A PATCH may not make the document larger than a PUT could send (`maxBodyBytes`): else a
    /// session grows by patches past every limit, in memory and in the store (issue 27). A patch
    /// that does not grow the document is never refused (a canonical document may be a little
    /// longer than the body that made it: ids of array entries become keys). 413, as for a body.
    func sizeRefusal(_ change: SessionChange, _ canonical: CanonicalDocument) -> APIResponse? {
        let size: Int
        switch change.canonical {
        case .members(let members): size = canonical.byteCount(replacing: members)
        case .document(let document): size = document.byteCount
        }
        guard size > configuration.maxBodyBytes, size > canonical.byteCount else { return nil }
        return Problems.documentTooLarge(size, limit: configuration.maxBodyBytes)
    }

    /// How many times a write fenced off by the store (another node wrote first) is decided again
    /// after catching up, before the client gets the 409.
    static let fencedRetries = 3

    /// What `body` does to the session in `st`: the lane's change when the lane applies, else the
    /// parsed patch's, member by member (`PatchPlan.members`) or through the whole patched
    /// document (`PatchPlan.general`).
    func decide(_ body: PatchBody, _ st: inout SessionState) -> PatchDecision {
        if case .lane(let lane) = body.read,
           let decision = PatchPlan.laneChange(lane, canonical: st.canonical, system: st.system, limits: limits,
                                               logged: body.bytes) {
            return decision
        }
        // A lane body the lane cannot apply is classified from the tree of the values it read.
        var patch = body.tree
        var logged = body.bytes
        switch PatchPlan.guarded(patch, canonical: st.canonical, system: st.system) {
        case .failure(let refusal):
            return .failed(Problems.invalidDocument(refusal.problems, patch: true))
        case .success(let meant):
            // A rewritten patch (a constant set in an expression string) is what the store logs:
            // replaying the body as sent would not give the same document.
            if meant != patch { patch = meant; logged = JSONWriter.serialize(meant) }
        }
        switch PatchPlan.classify(patch, canonical: st.canonical, system: st.system, context: &st.memberContext,
                                  limits: limits) {
        case .invalid(let problems):
            return .failed(Problems.invalidDocument(problems, patch: true))
        case .members(let edit):
            return edit.isEmpty ? .unchanged : .change(edit.change(logged: logged))
        case .general:
            let patched = st.canonical.json.applyingMergePatch(patch)
            let next: Document
            do throws(Failure) {
                next = try validate(patched, patched: true)
            } catch {
                return .failed(error.response)
            }
            let canonical = CanonicalDocument(DocumentParser.canonicalize(patched))
            if canonical == st.canonical { return .unchanged }
            return .change(SessionChange(solve: .edit(.document(next)), canonical: .document(canonical),
                                         logged: .mergePatch(logged)))
        }
    }
}

/// A PATCH body, read once before the session's lock is taken: by the byte scanner when it is one
/// of the lanes' patches (`NumberPatch.body`), else by the parser; never both.
struct PatchBody {
    enum Read {
        case lane(NumberPatch.Body)
        case tree(JSONValue)
    }

    /// The body as received: what a store logs (`CommitRecord.Change.mergePatch`).
    let bytes: [UInt8]
    let read: Read

    /// The patch as a JSON tree (for a lane body, made from the values the scanner read).
    var tree: JSONValue {
        switch read {
        case .lane(let lane): return lane.tree
        case .tree(let tree): return tree
        }
    }
}
