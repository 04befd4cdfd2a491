import TestSupport
import Foundation
import JSON
import Testing

/// The conformance cases (Tests/Fixtures/conformance, copied from shared/conformance).
enum Fixtures {
    static let conformanceDirectory = URL(fileURLWithPath: #filePath)  // Tests/DaemonTests/Support/APISupport.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent("conformance")

    /// File names, sorted.
    static func conformanceCases() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: conformanceDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func conformance(_ name: String) throws -> JSONValue {
        let bytes = Array(try Data(contentsOf: conformanceDirectory.appendingPathComponent(name)))
        return try JSONParser.parse(bytes)
    }
}

/// A temporary directory removed when dropped.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension RawHTTPResponse {
    /// The body as JSON (throws when it is not).
    func json() throws -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw TestFailure("\(status) body is not JSON (\(error)): \(text.prefix(300))")
        }
    }

    /// `type` of a problem body, or nil.
    var problemType: String? { (try? json())?["type"]?.stringValue }
}

extension RawHTTPConnection {
    func get(_ target: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("GET", target, headers: headers)
    }

    func post(_ target: String, _ body: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("POST", target, headers: headers, body: Array(body.utf8))
    }

    func put(_ target: String, _ body: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("PUT", target, headers: headers, body: Array(body.utf8))
    }

    /// A PATCH with `Content-Type: application/merge-patch+json` (plus `headers`).
    func patch(_ target: String, _ body: String, headers: [(String, String)] = []) throws -> RawHTTPResponse {
        try request("PATCH", target, headers: [("Content-Type", "application/merge-patch+json")] + headers,
                    body: Array(body.utf8))
    }

    /// Sends a request whose body the server may refuse before reading it all, then reads the
    /// answer: a failed send (the server closed early) is not an error as long as an answer came.
    func requestTolerantly(_ method: String, _ target: String, headers: [(String, String)] = [],
                           body: [UInt8]) throws -> RawHTTPResponse {
        do {
            try sendRequest(method, target, headers: headers, body: body)
        } catch {
            // Fall through: the answer may be waiting in the socket already.
        }
        return try readResponse(forMethod: method)
    }
}

/// Judging answers as shared/conformance/README.md says.
enum Judge {

    /// `{id: [x, y, width, height]}` of a `frames` object.
    static func frames(_ value: JSONValue?) -> [String: [Double]] { FrameMaps.frames(value) }

    /// Differences between two frame maps beyond `tolerance`, sorted.
    static func frameDifferences(_ a: [String: [Double]], _ b: [String: [Double]], tolerance: Double = 1e-6) -> [String] {
        FrameMaps.differences(a, b, tolerance: tolerance)
    }

    /// Differences between two `diagnostics` objects: broken ids in order, ambiguous as sets, inactive in order.
    static func diagnosticsDifferences(_ a: JSONValue?, _ b: JSONValue?) -> [String] {
        var out: [String] = []
        if ConformanceJudge.brokenIDs(a) != ConformanceJudge.brokenIDs(b) { out.append("broken \(ConformanceJudge.brokenIDs(a)) vs \(ConformanceJudge.brokenIDs(b))") }
        if Set(ConformanceJudge.strings(a?["ambiguous"])) != Set(ConformanceJudge.strings(b?["ambiguous"])) {
            out.append("ambiguous \(ConformanceJudge.strings(a?["ambiguous"])) vs \(ConformanceJudge.strings(b?["ambiguous"]))")
        }
        if ConformanceJudge.strings(a?["inactive"]) != ConformanceJudge.strings(b?["inactive"]) {
            out.append("inactive \(ConformanceJudge.strings(a?["inactive"])) vs \(ConformanceJudge.strings(b?["inactive"]))")
        }
        return out
    }
}

/// Documents used by several tests.
enum Documents {
    /// A card with a title, as in docs/http.md.
    static let card = """
        {"views": {"root": {"frame": {"width": 375, "height": 667}}, "card": {"parent": "root"},
                   "title": {"parent": "card", "intrinsicSize": {"width": 120, "height": 21}}},
         "constraints": {"card-sides": {"first": "card.horizontal", "second": "root.horizontal", "constant": 16},
                         "card-top": "card.top == root.top + 40",
                         "card-height": {"first": "card.height", "constant": 200},
                         "title-pos": "title.cornerTL == card.cornerTL + (12, 12)"}}
        """

    /// Two required constraints that cannot both hold: `w2` is broken.
    static let conflict = """
        {"views": {"root": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "root"}},
         "constraints": {"pin": "a.cornerTL == root.cornerTL + (10, 10)", "h": "a.height == 50",
                         "w1": "a.width == 100", "w2": "a.width == 200"}}
        """

    /// `count` views in a horizontal chain: a solve that takes a little while.
    static func chain(_ count: Int) -> String {
        var views = [#""root": {"frame": {"width": 100000, "height": 800}}"#]
        var constraints: [String] = []
        for i in 0..<count {
            views.append(#""v\#(i)": {"parent": "root", "intrinsicSize": {"width": 5, "height": 20}}"#)
            let previous = i == 0 ? "root.leading" : "v\(i - 1).trailing"
            constraints.append(#""h\#(i)": "v\#(i).leading == \#(previous) + 1""#)
            constraints.append(#""t\#(i)": "v\#(i).top == root.top + \#(i % 7)""#)
        }
        return #"{"views": {\#(views.joined(separator: ", "))}, "constraints": {\#(constraints.joined(separator: ", "))}}"#
    }
}

extension JSONValue {
    /// Compact JSON text.
    var text: String { JSONWriter.string(self) }
}
