import ArgumentParser
import Foundation
import LayoutEngine
import LayoutModel

extension LayoutBench {
    /// `explain`: every view's top and leading explained (`LayoutSystem.explain`, what
    /// `GET /v1/sessions/{id}/explain` answers from a session's system), against a fresh build of
    /// the same document in the same run. A session keeps its diagnostics current
    /// (`refreshDiagnostics`), so the system is explained as a session holds it; the same
    /// questions to a system whose kept ambiguity is stale (a one-shot solve) take the general
    /// path and are reported too (`stale_us_*`), with a check that both answer the same.
    func explainCase(_ document: Document, workload: String, views: Int, reps: Int) throws {
        var builds: [Double] = []
        var system: LayoutSystem?
        for _ in 0..<max(1, reps) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            system = LayoutSystem(document: document)
            builds.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
        }
        let stale = system!
        var kept = stale
        kept.refreshDiagnostics()
        let questions = document.views.flatMap { [($0.id, "top"), ($0.id, "leading")] }
        func time(_ s: LayoutSystem, _ limit: Int) throws -> (times: [Double], answers: [ExplainAnswer]) {
            var times: [Double] = [], answers: [ExplainAnswer] = []
            let began = DispatchTime.now().uptimeNanoseconds
            for (view, attribute) in questions.prefix(limit) {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let a = s.explain(view: view, attribute: attribute)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
                guard case .success(let answer) = a else { throw ValidationError("explain \(view).\(attribute) refused") }
                answers.append(answer)
                if Double(DispatchTime.now().uptimeNanoseconds - began) > maxSeconds * 1e9 { break }
            }
            return (times, answers)
        }
        let session = try time(kept, questions.count)
        let oneShot = try time(stale, session.times.count)
        // The general path may stop sooner (`maxSeconds`): the answers both gave are compared.
        let same = zip(session.answers, oneShot.answers).allSatisfy { $0 == $1 }
        let build = percentile(builds, 50)
        emit(f(["case": "explain", "workload": workload, "views": views, "questions": session.times.count,
                "build_us_p50": build, "fraction_of_build": percentile(session.times, 50) / build,
                "ambiguous": session.answers.filter(\.ambiguous).count,
                "stale_us_p50": percentile(oneShot.times, 50), "stale_us_p99": percentile(oneShot.times, 99),
                "same_answers": same ? "yes" : "NO"])
             + stats(session.times, "us"))
    }
}
