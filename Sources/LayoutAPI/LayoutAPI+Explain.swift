import JSON
import LayoutEngine
import LayoutModel

// `GET /v1/sessions/{id}/explain?view=V&attribute=A` (docs/http.md, "Explain"): a read, answered
// from the session's solved system like its frames (read-only keys and stream tokens may ask; a
// dormant session wakes).

extension LayoutAPI {
    func explainSession(_ id: String, _ request: APIRequest) -> APIResponse {
        var view: String?, attribute: String?
        // The last occurrence wins, as for the other query parameters.
        for (name, value) in QueryOptions.items(request.query) {
            if name == "view" { view = value } else if name == "attribute" { attribute = value }
        }
        // Checked before the session is looked at: a malformed question needs no session.
        for (name, value) in [("view", view), ("attribute", attribute)] where value?.isEmpty ?? true {
            return Problems.missingParameter(name)
        }
        let session: Session
        switch existingSession(id, mayWait: request.mayWait) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        let taken: (tag: SessionTag, answer: Result<ExplainAnswer, ExplainError>)??
        do throws(Failure) {
            taken = try session.withState(mayWait: request.mayWait) { st in
                guard st.alive else { return nil }
                let canonical = st.canonical
                return (st.tag, st.system.explain(view: view!, attribute: attribute!,
                                                  written: { canonical.member(.constraints, at: $0) }))
            }
        } catch {
            return error.response
        }
        guard let taken else { return .waitNeeded }
        guard let snapshot = taken else { return Problems.sessionNotFound(id) }
        switch snapshot.answer {
        case .failure(let error):
            return Problems.explainRefused(error)
        case .success(let answer):
            if let notModified = EntityTagCondition.notModified(request, snapshot.tag) { return notModified }
            var response = APIResponse.json(200, JSONWriter.serialize(answer.json))
            response.addHeader("ETag", EntityTagCondition.etag(snapshot.tag))
            return response
        }
    }
}
