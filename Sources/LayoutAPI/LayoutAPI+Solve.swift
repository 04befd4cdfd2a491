import Primitives
import LayoutEngine

extension LayoutAPI {
    /// `POST /v1/solve`: 200 `{frames, diagnostics}`; nothing is kept.
    func solve(_ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        do throws(Failure) {
            var timing = ServerTiming()
            let t0 = MonotonicTime.now
            let document = try validate(try parseJSON(request.body))
            let t1 = MonotonicTime.now
            let system = LayoutSystem(document: document)
            APIMetrics.counters.add(APIMetrics.coldSolves)
            let diagnostics = system.diagnostics
            if options.strict && !diagnostics.broken.isEmpty { return Problems.strictConflict(diagnostics.broken) }
            let frames = system.frames(options.coordinates)
            timing.parse = t1 - t0
            timing.solve = MonotonicTime.now - t1
            return .json(200, ResultEncoder.solveBody(frames: frames, diagnostics: diagnostics),
                         headers: [timing.header])
        } catch {
            return error.response
        }
    }
}
