import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI

/// In-process client of `LayoutAPI`: builds requests, parses JSON answers.
struct Client {
    let api: LayoutAPI

    init(_ configuration: APIConfiguration = APIConfiguration()) {
        api = LayoutAPI(configuration: configuration)
    }

    init(api: LayoutAPI) { self.api = api }

    @discardableResult
    func send(_ method: String, _ path: String, query: String = "",
              headers: [(name: String, value: String)] = [], body: String? = nil) -> APIResponse {
        api.handle(APIRequest(method: method, path: path, query: query, headers: headers,
                              body: body.map { Array($0.utf8) } ?? []))
    }

    @discardableResult
    func send(_ method: String, _ path: String, query: String = "",
              headers: [(name: String, value: String)] = [], bytes: [UInt8]) -> APIResponse {
        api.handle(APIRequest(method: method, path: path, query: query, headers: headers, body: bytes))
    }

    @discardableResult
    func patch(_ path: String, _ body: String, query: String = "",
               headers: [(name: String, value: String)] = []) -> APIResponse {
        send("PATCH", path, query: query,
             headers: [("Content-Type", "application/merge-patch+json")] + headers, body: body)
    }

    /// PUTs `document` as session `id` and returns the answer.
    @discardableResult
    func put(_ id: String, _ document: String, query: String = "") -> APIResponse {
        send("PUT", "/v1/sessions/\(id)", query: query, body: document)
    }
}

enum T {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func conformanceCases() -> [String] {
        let dir = fixtures.appendingPathComponent("conformance")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func conformance(_ name: String) throws -> JSONValue {
        let url = fixtures.appendingPathComponent("conformance").appendingPathComponent(name)
        return try JSONParser.parse(try String(contentsOf: url, encoding: .utf8))
    }

    /// The body as JSON (a failed parse records an issue and gives `null`).
    static func json(_ r: APIResponse, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
        do {
            return try JSONParser.parse(r.body)
        } catch {
            Issue.record("body is not JSON (\(error)): \(r.text.prefix(200))", sourceLocation: sourceLocation)
            return .null
        }
    }

    static func text(_ v: JSONValue) -> String { JSONWriter.string(v) }

    static func frames(_ value: JSONValue?) -> [String: [Double]] { FrameMaps.frames(value) }

    /// Differences between two frame maps beyond `tolerance`, sorted.
    static func frameDifferences(_ a: [String: [Double]], _ b: [String: [Double]], tolerance: Double = 1e-6) -> [String] {
        FrameMaps.differences(a, b, tolerance: tolerance)
    }

    /// Checks that a session's state equals a fresh `POST /v1/solve` of its canonical document:
    /// same frames (relative and absolute), broken ids, ambiguous and inactive sets.
    static func expectSameAsFresh(_ c: Client, _ id: String, _ step: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let session = json(c.send("GET", "/v1/sessions/\(id)"), sourceLocation: sourceLocation)
        guard let document = session["document"] else {
            Issue.record("\(step): no document", sourceLocation: sourceLocation)
            return
        }
        for coordinates in ["relative", "absolute"] {
            let q = "coordinates=\(coordinates)"
            let fresh = json(c.send("POST", "/v1/solve", query: q, body: text(document)), sourceLocation: sourceLocation)
            let mine = json(c.send("GET", "/v1/sessions/\(id)/frames", query: q), sourceLocation: sourceLocation)
            let diffs = frameDifferences(frames(mine["frames"]), frames(fresh["frames"]))
            #expect(diffs.isEmpty, "\(step) (\(coordinates)): \(diffs)", sourceLocation: sourceLocation)
            let dm = mine["diagnostics"], df = fresh["diagnostics"]
            #expect(ConformanceJudge.brokenIDs(dm) == ConformanceJudge.brokenIDs(df), "\(step): broken", sourceLocation: sourceLocation)
            #expect(Set(ConformanceJudge.strings(dm?["ambiguous"])) == Set(ConformanceJudge.strings(df?["ambiguous"])), "\(step): ambiguous",
                    sourceLocation: sourceLocation)
            #expect(ConformanceJudge.strings(dm?["inactive"]) == ConformanceJudge.strings(df?["inactive"]), "\(step): inactive",
                    sourceLocation: sourceLocation)
        }
    }

    /// A problem+json answer with the given status whose body repeats the status.
    static func expectProblem(_ r: APIResponse, _ status: Int, type: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "status \(r.status), expected \(status): \(r.text.prefix(300))",
                sourceLocation: sourceLocation)
        #expect(r.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
        let body = json(r, sourceLocation: sourceLocation)
        #expect(body["status"]?.numberValue == Double(status), sourceLocation: sourceLocation)
        #expect(body["title"]?.stringValue != nil && body["detail"]?.stringValue != nil,
                sourceLocation: sourceLocation)
        #expect(body["errors"]?.arrayValue != nil, sourceLocation: sourceLocation)
        if let type { #expect(body["type"]?.stringValue == "/problems/\(type)", sourceLocation: sourceLocation) }
    }
}

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double = 1000

    var now: Double {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func advance(_ seconds: Double) {
        lock.lock()
        value += seconds
        lock.unlock()
    }

    func configuration(timeout: Double = 60, maxSessions: Int = 10_000) -> APIConfiguration {
        APIConfiguration(maxSessions: maxSessions, sessionIdleTimeoutSeconds: timeout, clock: { [self] in now })
    }
}

/// Small documents used across the tests.
enum Docs {
    /// A fully determined layout: a header bar, a badge inside it, two stacked views.
    static let stack = """
    {
      "views": {
        "root": { "frame": { "width": 400, "height": 300 } },
        "header": { "parent": "root" },
        "badge": { "parent": "header", "frame": { "width": 20, "height": 20 } },
        "a": { "parent": "root", "intrinsicSize": { "width": 50, "height": 30 } },
        "b": { "parent": "root", "intrinsicSize": { "width": 60, "height": 30 } }
      },
      "constraints": {
        "h-top": { "first": "header.top", "second": "root.top", "constant": 10 },
        "h-sides": "header.horizontal == root.horizontal + 16",
        "h-height": { "first": "header.height", "constant": 44 },
        "badge-y": "badge.centerY == header.centerY",
        "badge-lead": { "expr": "badge.leading == header.leading + 8", "priority": 500 },
        "a-top": { "first": "a.top", "second": "header.bottom", "constant": 8 },
        "a-left": { "first": "a.leading", "second": "root.leading", "constant": 16 },
        "a-collapse": { "expr": "a.height == 0", "activation": "firstInvisible" },
        "b-top": { "first": "b.top", "second": "a.bottom", "constant": 8 },
        "b-left": { "first": "b.leading", "second": "root.leading", "constant": 16 },
        "b-wide": { "first": "b.width", "constant": 200, "activation": "delegate" }
      },
      "delegate": { "b-wide": false }
    }
    """

    /// One view with a width and a second, conflicting, required width.
    static let conflicting = """
    {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root", "frame": {"x": 0, "y": 0, "height": 10}}},
     "constraints": {"w1": "a.width == 10", "w2": "a.width == 20"}}
    """

    static let small = """
    {"views": {"root": {"frame": {"width": 100, "height": 50}}, "a": {"parent": "root"}},
     "constraints": {"c1": {"first": "a.edges", "second": "root.edges", "constant": 5}}}
    """
}
