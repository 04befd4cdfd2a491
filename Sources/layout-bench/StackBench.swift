import ArgumentParser
import Foundation
import JSON
import LayoutEngine
import LayoutModel

extension LayoutBench {
    /// `stack-hide`: a vertical stack of as many arranged views as the bundle has views (at most
    /// 2,000), each hidden and shown again in turn, as a PATCH of `hidden` does
    /// (`LayoutEdit.members`): only that stack's constraints that change are touched
    /// (docs/document.md 2.6). Reports the time per toggle against a fresh solve of the same
    /// document, and checks that the toggled system lands where a fresh solve does.
    func stackHide(workload: String, views: Int) throws {
        let n = max(3, min(views, 2_000))
        var members: [(String, JSONValue)] = [("root", .object(JSONObject([("frame", .object(JSONObject([
            ("width", .number(375))])))])))]
        members.append(("stack", .object(JSONObject([("parent", .string("root")), ("stack", .object(JSONObject([
            ("axis", .string("vertical")), ("spacing", .number(8)),
            ("arranged", .array((0..<n).map { .string("row\($0)") }))])))]))))
        for i in 0..<n {
            members.append(("row\(i)", .object(JSONObject([("intrinsicSize", .object(JSONObject([
                ("width", .number(Double(100 + i % 7))), ("height", .number(Double(20 + i % 5)))])))]))))
        }
        let json = JSONValue.object(JSONObject([
            ("views", .object(JSONObject(members))),
            ("constraints", .object(JSONObject([("pin", .string("stack.cornerTL == root.cornerTL")),
                                                ("sides", .string("stack.horizontal == root.horizontal"))]))),
        ]))
        guard case .success(var document) = DocumentParser.parse(json) else { throw ValidationError("stack document") }
        var builds: [Double] = []
        var system: LayoutSystem?
        for _ in 0..<3 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            system = LayoutSystem(document: document)
            builds.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
        }
        var sys = system!
        var times: [Double] = []
        var touched = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for k in 0..<min(maxOps, 2 * n) {
            let p = 2 + (k / 2) * 7 % n  // row (k/2)*7 mod n: hidden, then shown again
            var view = sys.document.views[p]
            view.hidden.toggle()
            let t0 = DispatchTime.now().uptimeNanoseconds
            let s = sys.apply(.members(views: [view], entries: []))
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            guard !s.rebuilt else { throw ValidationError("stack-hide rebuilt") }
            touched += s.added + s.removed + s.constantsChanged
            document.views[p] = view
            if Double(DispatchTime.now().uptimeNanoseconds - start) > maxSeconds * 1e9 { break }
        }
        let fresh = LayoutSystem(document: document)
        let same = abs(checksum(sys) - checksum(fresh)) < 1e-6 * max(1, abs(checksum(fresh)))
        let build = percentile(builds, 50)
        emit(f(["case": "stack-hide", "workload": workload, "arranged": n, "build_us_p50": build,
                "touched_mean": Double(touched) / Double(max(1, times.count)),
                "fraction_of_build": percentile(times, 50) / build, "same_as_fresh": same ? "yes" : "NO"])
             + stats(times, "us"))
    }
}
