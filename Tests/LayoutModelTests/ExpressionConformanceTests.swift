import Foundation
import JSON
import Testing
@testable import LayoutModel

@Suite("Expressions against the conformance cases' object-form oracles")
struct ExpressionConformanceTests {
    /// Entries whose oracle is a hand rewrite with a different (but equivalent in that layout) form:
    /// 08's b4 uses root.height = 300, a fixed input, as the constant 50.
    static let rewritten: Set<String> = ["08-expressions-relations-priorities.json/b4"]

    static func casesWithOracle() -> [String] {
        Fixtures.conformanceCases().filter { name in
            (try? Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name)))?["oracleDocument"] != nil
        }
    }

    /// `terms by anchor`, constant, relation, priority, rounded to 1e-9.
    static func key(_ item: LinearConstraint) -> String {
        let terms = item.terms.map { "\($0.anchor)=\(ExprFixture.number($0.coefficient))" }.sorted()
        return "\(terms.joined(separator: ",")) c=\(ExprFixture.number(item.constant)) \(item.relation.rawValue) @\(ExprFixture.number(item.priority))"
    }

    @Test("every expression entry compiles to the items of its object-form oracle", arguments: casesWithOracle())
    func matchesOracle(_ name: String) throws {
        let file = try Fixtures.load(Fixtures.conformanceFolder.appendingPathComponent(name))
        let document = try #require(file["document"]), oracle = try #require(file["oracleDocument"])
        guard case .success(let doc) = DocumentParser.parse(document),
              case .success(let ref) = DocumentParser.parse(oracle) else {
            Issue.record("\(name) does not parse"); return
        }
        let raw = try #require(document["constraints"]?.objectValue)
        var compared = 0
        for entry in doc.constraints {
            let value = raw[entry.id]
            guard value?.stringValue != nil || value?["expr"] != nil,
                  !Self.rewritten.contains("\(name)/\(entry.id)"),
                  let expected = ref.constraints.first(where: { $0.id == entry.id }) else { continue }
            #expect(entry.items.map(Self.key) == expected.items.map(Self.key), "\(name)/\(entry.id)")
            compared += 1
        }
        if name.hasPrefix("03") || name.hasPrefix("08") { #expect(compared >= 9, "\(name)") }
    }
}
