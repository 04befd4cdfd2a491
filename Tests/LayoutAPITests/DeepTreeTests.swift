import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI

/// A parent chain as deep as `maxViews` (each view's parent is the one before) crashed the daemon
/// on render.svg (a recursive walk overflowed the thread's stack). Every route that walks the
/// tree answers it now; these run on a thread with the 8 MiB stack the daemon's workers have.
@Suite("Deep view trees: a 20,000-deep parent chain on every route")
struct DeepTreeTests {
    static let depth = Int(ProcessInfo.processInfo.environment["DEEP_DEPTH"] ?? "") ?? 20_000

    /// Runs `body` on a thread with an 8 MiB stack (the daemon's worker and offload threads).
    static func onWorkerStack(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
    }

    @Test("solve, session create, GET absolute, render.svg (session and one-shot) all answer 200", .timeLimit(.minutes(10)))
    func everyRoute() {
        Self.onWorkerStack {
            let document = DeepChain.document(Self.depth)
            let c = Client(APIConfiguration(maxBodyBytes: DeepChain.bodyLimit(Self.depth)))
            let deepest = "v\(Self.depth - 1)"

            let solved = c.send("POST", "/v1/solve", query: "coordinates=absolute", body: document)
            #expect(solved.status == 200)
            let body = T.json(solved)
            let inactive = ConformanceJudge.strings(body["diagnostics"]?["inactive"])
            #expect(inactive.isEmpty)
            // Absolute: the deepest view is depth - 1 points from the root's corner.
            #expect(body["frames"]?[deepest]?["x"]?.numberValue == Double(Self.depth - 1))

            #expect(c.put("deep", document).status == 201)
            let absolute = c.send("GET", "/v1/sessions/deep/frames", query: "coordinates=absolute")
            #expect(absolute.status == 200)
            #expect(T.json(absolute)["frames"]?[deepest]?["y"]?.numberValue == Double(Self.depth - 1))

            for svg in [c.send("GET", "/v1/sessions/deep/render.svg"), c.send("POST", "/v1/render.svg", body: document)] {
                #expect(svg.status == 200)
                #expect(svg.text.hasSuffix("</svg>\n"))
                // Every view's group opened and closed: nested as deep as the chain.
                #expect(svg.text.components(separatedBy: "<g class=\"view\"").count - 1 == Self.depth)
                #expect(svg.text.contains("data-id=\"\(deepest)\""))
            }
        }
    }

    @Test("JSON nested at the parser's limit (64) is parsed on every route; one deeper is a 400")
    func jsonDepthLimit() {
        let c = Client()
        #expect(c.put("s", Docs.small).status == 201)
        // A document whose `flags` member nests arrays: depth counts the document object too.
        func nested(_ depth: Int) -> String {
            #"{"views":{"root":{"frame":{"width":10,"height":10}}},"meta":"# + String(repeating: "[", count: depth - 1)
                + String(repeating: "]", count: depth - 1) + "}"
        }
        let routes: [(String, String)] = [("POST", "/v1/solve"), ("POST", "/v1/sessions"), ("PUT", "/v1/sessions/s"),
                                          ("PATCH", "/v1/sessions/s"), ("POST", "/v1/render.svg")]
        for (method, path) in routes {
            let headers: [(name: String, value: String)] = method == "PATCH" ? [("Content-Type", "application/merge-patch+json")] : []
            let atLimit = c.send(method, path, headers: headers, body: nested(64))
            #expect(atLimit.status < 500, "\(method) \(path) at the limit: \(atLimit.status)")
            #expect(atLimit.header("Content-Type") != "application/problem+json"
                    || T.json(atLimit)["type"]?.stringValue?.hasSuffix("invalid-json") != true,
                    "\(method) \(path): depth 64 must parse")
            T.expectProblem(c.send(method, path, headers: headers, body: nested(65)), 400, type: "invalid-json")
        }
    }
}
