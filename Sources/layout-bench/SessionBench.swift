import ArgumentParser
import Foundation
import JSON
import LayoutAPI

extension LayoutBench {
    /// `session-patch`: the bundle's constant changes and root widths sent as merge patches to an
    /// in-process session through `LayoutAPI.handle` (routing, patch parse, member validation,
    /// edit, diagnostics, changed frames, response body), without sockets: the daemon's own cost
    /// of a PATCH, to set against the HTTP figures.
    func sessionPatches(_ json: JSONValue, text: [UInt8], root: String, workload: String, views: Int) throws {
        // The bundle's document, however large (the daemon's default body limit is 1 MiB).
        let api = LayoutAPI(configuration: APIConfiguration(maxBodyBytes: max(1 << 20, 2 * text.count)))
        let count = max(1, sessions)
        let paths = count == 1 ? ["/v1/sessions/bench"] : (0..<count).map { "/v1/sessions/bench-\($0)" }
        for path in paths {
            guard createSession(api, path, text, benchCase: "session-patch", workload: workload, views: views) else { return }
        }
        let headers = [(name: "Content-Type", value: "application/merge-patch+json")]
        var bodies: [(kind: String, body: [UInt8])] = []
        let widths = (json["widths"]?.arrayValue ?? []).prefix(edits ?? maxOps).compactMap(\.numberValue)
        for (i, body) in constantPatches(json).enumerated() {
            bodies.append(("constant", body))
            if i < widths.count {
                bodies.append(("resize", JSONWriter.serialize(.object(JSONObject([
                    ("views", .object(JSONObject([(root, .object(JSONObject([
                        ("frame", .object(JSONObject([("width", .number(widths[i]))])))])))])))])))))
            }
        }
        var times: [String: [Double]] = ["constant": [], "resize": []]
        var eviction = [UInt64](repeating: 0, count: evictKiB * 128)
        var evictionRound: UInt64 = 0
        var bytes = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let sent = (0..<max(1, rounds)).lazy.flatMap { _ in bodies }
        for (i, (kind, body)) in sent.enumerated() {
            // A stride coprime with the count visits every session, in an order the caches do
            // not follow (`session(1)`: the next one in that order).
            func session(_ offset: Int) -> String { paths[(i * 7919 + i / bodies.count + offset) % count] }
            let path = session(0)
            if !eviction.isEmpty {
                // Written, not read: dirty lines must leave the caches to make room.
                evictionRound &+= 1
                let round = evictionRound
                eviction.withUnsafeMutableBufferPointer { b in
                    for j in stride(from: 0, to: b.count, by: 8) { b[j] = round }
                }
            }
            if warmOther && count > 1 {
                _ = api.handle(APIRequest(method: "PATCH", path: session(1), query: "", headers: headers, body: body))
            }
            let t0 = DispatchTime.now().uptimeNanoseconds
            let r = api.handle(APIRequest(method: "PATCH", path: path, query: "", headers: headers, body: body))
            times[kind, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            guard r.status == 200 else {
                // The patches fit object-form entries only (a bundle written otherwise answers 422).
                emit(f(["case": "session-patch", "workload": workload, "views": views,
                        "skipped": "PATCH answered \(r.status): \(r.text.prefix(200))"]))
                return
            }
            bytes += r.body.count
            if Double(DispatchTime.now().uptimeNanoseconds - start) > maxSeconds * 1e9 { break }
        }
        for kind in ["constant", "resize"] {
            let t = times[kind] ?? []
            emit(f(["case": "session-patch", "kind": kind, "workload": workload, "views": views, "sessions": count,
                    "evict_kib": evictKiB, "warm_other": warmOther ? 1 : 0,
                    "response_bytes_mean": Double(bytes) / Double(max(1, times.values.map(\.count).reduce(0, +)))])
                 + stats(t, "us"))
        }
    }

    /// PUTs `text` as the session at `path`; false (after a `skipped` line for `benchCase`) when
    /// the API does not answer 201.
    func createSession(_ api: LayoutAPI, _ path: String, _ text: [UInt8], benchCase: String,
                       workload: String, views: Int) -> Bool {
        let put = api.handle(APIRequest(method: "PUT", path: path, query: "", headers: [], body: text))
        if put.status == 201 { return true }
        emit(f(["case": benchCase, "workload": workload, "views": views, "skipped": "PUT answered \(put.status)"]))
        return false
    }

    /// The bundle's constant changes (at most `--changes`, else `--max-ops`) as merge patches
    /// `{"constraints": {id: {"constant": c}}}`.
    func constantPatches(_ json: JSONValue) -> [[UInt8]] {
        (json["constantChanges"]?.arrayValue ?? []).prefix(changes ?? maxOps).compactMap { change in
            guard let pair = change.arrayValue, let id = pair.first?.stringValue,
                  let c = pair.last?.numberValue else { return nil }
            return JSONWriter.serialize(.object(JSONObject([
                ("constraints", .object(JSONObject([(id, .object(JSONObject([("constant", .number(c))])))])))])))
        }
    }
}
