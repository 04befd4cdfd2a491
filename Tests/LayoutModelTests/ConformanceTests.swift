import Foundation
import JSON
import Testing
@testable import LayoutModel

@Suite("Conformance documents")
struct ConformanceTests {
    @Test("the conformance fixtures are found through #filePath")
    func fixturesFound() {
        #expect(Fixtures.conformanceCases().count >= 23, "looked in \(Fixtures.conformanceFolder.path)")
    }

    @Test("every conformance document parses without problems", arguments: Fixtures.conformanceCases())
    func parses(_ name: String) throws {
        let file = try Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name))
        let document = try #require(file["document"])
        if case .failure(let e) = DocumentParser.parse(document) {
            let list = e.problems.map(\.description).joined(separator: "\n")
            Issue.record("\(name):\n\(list)")
        }
        if let oracle = file["oracleDocument"], case .failure(let e) = DocumentParser.parse(oracle) {
            let list = e.problems.map(\.description).joined(separator: "\n")
            Issue.record("\(name) oracleDocument:\n\(list)")
        }
    }

    @Test("the canonical form of every conformance document parses to the same document", arguments: Fixtures.conformanceCases())
    func canonicalSame(_ name: String) throws {
        let file = try Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name))
        let document = try #require(file["document"])
        guard case .success(let direct) = DocumentParser.parse(document) else { return }  // reported above
        #expect(DocumentParser.parse(DocumentParser.canonicalize(document)) == .success(direct))
    }

    @Test("ids of inactive and broken expectations are constraint ids of the document", arguments: Fixtures.conformanceCases())
    func expectedIDs(_ name: String) throws {
        let file = try Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name))
        guard case .success(let doc)? = file["document"].map({ DocumentParser.parse($0) }) else { return }
        let ids = Set(doc.constraints.map(\.id))
        for key in ["broken", "inactive"] {
            for id in file["expect"]?[key]?.arrayValue ?? [] {
                #expect(ids.contains(id.stringValue ?? ""), "\(name): \(key) names \(id)")
            }
        }
    }
}
