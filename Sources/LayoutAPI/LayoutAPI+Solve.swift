import Primitives
import LayoutEngine

extension LayoutAPI {
    /// `POST /v1/solve`: 200 `{frames, diagnostics}`; nothing is kept.
    func solve(_ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        do throws(Failure) {
            var timing = ServerTiming()
            let t0 = MonotonicTime.now
            // The JSON tree is a temporary: gone once the document exists, before the build.
            let document = try validate(try parseJSON(request.body))
            let t1 = MonotonicTime.now
            // Its only reference, so that the one-shot build can let go of the entries' items
            // (LayoutSystem.solveOnce); the system itself is gone before the answer is encoded.
            let solved = LayoutSystem.solveOnce(consume document, coordinates: options.coordinates)
            APIMetrics.counters.add(APIMetrics.coldSolves)
            let diagnostics = solved.diagnostics
            if options.strict && !diagnostics.broken.isEmpty { return Problems.strictConflict(diagnostics.broken) }
            timing.parse = t1 - t0
            timing.solve = MonotonicTime.now - t1
            return .json(200, ResultEncoder.solveBody(frames: solved.frames, diagnostics: diagnostics),
                         headers: [timing.header])
        } catch {
            return error.response
        }
    }
}
