import ArgumentParser
import Foundation
import JSON
import LayoutModel

extension LayoutBench {
    /// `parse`: `DocumentParser.parse` alone (validation and constraint compilation, no JSON
    /// parsing, no solve) on the bundle's already-parsed document, p50 over `reps` runs, so that
    /// the constraint spellings of one layout (object form, expressions) can be compared directly.
    func parseCase(_ documentJSON: JSONValue, workload: String, views: Int, reps: Int) throws {
        var samples: [Double] = []
        samples.reserveCapacity(reps)
        var constraints = 0
        for _ in 0..<reps {
            let t0 = DispatchTime.now().uptimeNanoseconds
            guard case .success(let d) = DocumentParser.parse(documentJSON) else { throw ArgumentParser.ValidationError("invalid document") }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            constraints = d.constraints.count
        }
        emit(f(["case": "parse", "workload": workload, "views": views, "constraints": constraints, "reps": reps,
                "ms_min": samples.min()!, "ms_p50": percentile(samples, 50), "ms_max": samples.max()!]))
    }
}
