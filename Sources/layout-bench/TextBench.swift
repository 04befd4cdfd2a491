import ArgumentParser
import Foundation
import JSON
import LayoutEngine
import LayoutModel

extension LayoutBench {
    /// `text-resize`: a page of as many wrapped labels as the bundle has views (at most 1,000),
    /// one below the other, each pinned to both sides of the root, whose width is resized as a
    /// PATCH of the root's width does (`LayoutEdit.sizes`): an edit suggestion, then the labels
    /// whose width moved are measured again and their heights changed in place until they settle
    /// (docs/document.md 2.7). Reports the time per resize against a fresh solve of the same
    /// document, and checks that the resized system lands where a fresh solve does.
    func textResize(workload: String, views: Int) throws {
        let n = max(3, min(views, 1_000))
        func document(width: Double) throws -> Document {
            var members: [(String, JSONValue)] = [("root", .object(JSONObject([("frame", .object(JSONObject([
                ("width", .number(width)), ("height", .number(Double(n) * 60))])))])))]
            var constraints: [(String, JSONValue)] = []
            for i in 0..<n {
                // 6 to 15 words of 20 to 69 points: one to five lines between 300 and 800 points.
                let words = (0..<(6 + i % 10)).map { JSONValue.number(Double(20 + ($0 * 7 + i * 3) % 50)) }
                members.append(("l\(i)", .object(JSONObject([("parent", .string("root")), ("text", .object(JSONObject([
                    ("wordWidths", .array(words)), ("spaceWidth", .number(4)), ("lineHeight", .number(18))])))]))))
                constraints.append(("s\(i)", .string("l\(i).horizontal == root.horizontal")))
                constraints.append(("t\(i)", .string(i == 0 ? "l0.top == root.top" : "l\(i).top == l\(i - 1).bottom + 6")))
            }
            let json = JSONValue.object(JSONObject([("views", .object(JSONObject(members))),
                                                    ("constraints", .object(JSONObject(constraints)))]))
            guard case .success(let d) = DocumentParser.parse(json) else { throw ValidationError("text document") }
            return d
        }
        let start = try document(width: 375)
        var builds: [Double] = []
        var system: LayoutSystem?
        for _ in 0..<3 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            system = LayoutSystem(document: start)
            builds.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
        }
        var sys = system!
        var times: [Double] = []
        var changed = 0
        var width = 375.0
        let began = DispatchTime.now().uptimeNanoseconds
        for k in 0..<min(maxOps, 400) {
            // A window dragged wider and narrower: 300 to 800 points in steps of 7.
            width = 300 + Double((k * 7) % 500)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let s = sys.apply(.sizes(view: 0, width: width, height: nil))
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            guard !s.rebuilt else { throw ValidationError("text-resize rebuilt") }
            changed += s.constantsChanged
            if Double(DispatchTime.now().uptimeNanoseconds - began) > maxSeconds * 1e9 { break }
        }
        let fresh = LayoutSystem(document: try document(width: width))
        let same = abs(checksum(sys) - checksum(fresh)) < 1e-6 * max(1, abs(checksum(fresh)))
        let build = percentile(builds, 50)
        emit(f(["case": "text-resize", "workload": workload, "labels": n, "build_us_p50": build,
                "heights_changed_mean": Double(changed) / 2 / Double(max(1, times.count)),
                "fraction_of_build": percentile(times, 50) / build, "same_as_fresh": same ? "yes" : "NO"])
             + stats(times, "us"))
    }
}
