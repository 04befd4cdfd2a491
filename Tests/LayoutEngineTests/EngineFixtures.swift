import Foundation
import JSON
import LayoutModel
@testable import LayoutEngine

/// Fixtures shared with the model and API tests (Tests/Fixtures), found from this file's path.
enum EngineFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func conformanceCases() -> [String] {
        let dir = folder.appendingPathComponent("conformance")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func conformance(_ name: String) throws -> JSONValue {
        let text = try String(contentsOf: folder.appendingPathComponent("conformance").appendingPathComponent(name),
                              encoding: .utf8)
        return try JSONParser.parse(text)
    }

    static func json(_ text: String) -> JSONValue {
        do { return try JSONParser.parse(text) } catch { fatalError("bad JSON in test: \(error)") }
    }

    static func document(_ json: JSONValue) throws -> Document {
        try DocumentParser.parse(json).get()
    }

    static func document(_ text: String) throws -> Document { try document(json(text)) }

    static func frame(_ system: LayoutSystem, _ id: String) -> Frame? {
        system.frames().first { $0.id == id }?.frame
    }
}
