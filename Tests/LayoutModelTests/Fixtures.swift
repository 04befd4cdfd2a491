import Foundation
import JSON
@testable import LayoutModel

/// Shared JSON fixtures (Tests/Fixtures), found from this file's path: no SwiftPM resources.
enum Fixtures {
    /// `Tests/Fixtures`.
    static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // LayoutModelTests
        .deletingLastPathComponent()   // Tests
        .appendingPathComponent("Fixtures")

    static var conformanceFolder: URL { folder.appendingPathComponent("conformance") }

    /// File names of the conformance cases, sorted.
    static func conformanceCases() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: conformanceFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func load(_ url: URL) throws -> JSONValue {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try JSONParser.parse(text)
    }
}

/// Helpers of the document-layer tests (namespaced: other test files of this target have their own).
enum DocTest {
    /// Parses JSON text written in a test (traps on a typo in the test itself).
    static func json(_ text: String) -> JSONValue {
        do { return try JSONParser.parse(text) } catch { fatalError("bad JSON in test: \(error)\n\(text)") }
    }

    static func parseDocument(_ text: String, limits: DocumentLimits = .default) -> Result<Document, ValidationError> {
        DocumentParser.parse(json(text), limits: limits)
    }

    /// The problems of an invalid document (empty when it is valid).
    static func problems(_ text: String, limits: DocumentLimits = .default) -> [Problem] {
        if case .failure(let e) = parseDocument(text, limits: limits) { return e.problems }
        return []
    }

    /// (pointer, code) pairs, for compact expectations.
    static func pointersAndCodes(_ text: String, limits: DocumentLimits = .default) -> [String] {
        problems(text, limits: limits).map { "\($0.pointer) \($0.code)" }
    }

    /// The document of a valid text, or nil (the test then fails on the nil with the problems printed).
    static func document(_ text: String) -> Document? {
        switch parseDocument(text) {
        case .success(let d): return d
        case .failure(let e):
            print("unexpected problems:\n" + e.problems.map(\.description).joined(separator: "\n"))
            return nil
        }
    }

    /// A minimal tree used by many tests: root 375×667 with children a, b, c and a guide g.
    static let smallTree = """
    "root": {"frame": {"width": 375, "height": 667}},
    "a": {"parent": "root"}, "b": {"parent": "root"}, "c": {"parent": "root"},
    "g": {"parent": "root", "kind": "guide"}
    """
}
