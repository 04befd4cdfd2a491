import Foundation
import JSON
import LayoutAPI

extension LayoutBench {
    /// `session-wake`: the bundle's constant changes sent alternately to two in-process sessions
    /// of the document with room for one resident session, so that every PATCH first wakes its
    /// session (a fresh solve of its canonical text) and puts the other to sleep: what the first
    /// request to a dormant session costs, to set against `session-patch`.
    func sessionWakes(_ json: JSONValue, text: [UInt8], workload: String, views: Int) {
        let api = LayoutAPI(configuration: APIConfiguration(maxBodyBytes: max(1 << 20, 2 * text.count),
                                                            maxResidentSessions: 1))
        let paths = ["/v1/sessions/bench-a", "/v1/sessions/bench-b"]
        for path in paths {
            guard createSession(api, path, text, benchCase: "session-wake", workload: workload, views: views) else { return }
        }
        let headers = [(name: "Content-Type", value: "application/merge-patch+json")]
        var times: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        for (i, body) in constantPatches(json).enumerated() {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let r = api.handle(APIRequest(method: "PATCH", path: paths[i % 2], query: "", headers: headers, body: body))
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            guard r.status == 200 else {
                emit(f(["case": "session-wake", "workload": workload, "views": views,
                        "skipped": "PATCH answered \(r.status): \(r.text.prefix(200))"]))
                return
            }
            if Double(DispatchTime.now().uptimeNanoseconds - start) > maxSeconds * 1e9 { break }
        }
        emit(f(["case": "session-wake", "kind": "constant", "workload": workload, "views": views]) + stats(times, "us"))
    }
}
