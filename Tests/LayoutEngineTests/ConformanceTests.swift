import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

/// Every case of shared/conformance (copied into Tests/Fixtures/conformance), judged as its
/// README says: determined frames within 1e-5 and never -0, broken ids, ambiguous and inactive
/// sets when listed.
@Suite("Conformance cases through the engine")
struct ConformanceTests {
    @Test("each conformance case solves to its expected frames and diagnostics",
          arguments: EngineFixtures.conformanceCases())
    func conformance(_ name: String) throws {
        let case_ = try EngineFixtures.conformance(name)
        let document = try EngineFixtures.document(case_["document"]!)
        let system = LayoutSystem(document: document)
        let expect = case_["expect"]!
        let frames = Dictionary(uniqueKeysWithValues: system.frames().map { ($0.id, $0.frame) })
        for (id, want) in expect["frames"]!.objectValue!.entries {
            let got = try #require(frames[id], "\(name): no frame for \(id)")
            for (field, value) in [("x", got.x), ("y", got.y), ("width", got.width), ("height", got.height)] {
                let w = want[field]!.numberValue!
                #expect(abs(value - w) < 1e-5, "\(name): \(id).\(field) = \(value), expected \(w)")
                #expect(!(value == 0 && value.sign == .minus), "\(name): -0 in \(id).\(field)")
            }
        }
        let diagnostics = system.diagnostics
        let wantBroken = (expect["broken"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(diagnostics.broken.map(\.id) == wantBroken, "\(name): broken")
        if let amb = expect["ambiguous"]?.arrayValue {
            #expect(Set(diagnostics.ambiguous) == Set(amb.compactMap(\.stringValue)), "\(name): ambiguous")
        }
        if let inactive = expect["inactive"]?.arrayValue {
            #expect(Set(diagnostics.inactive) == Set(inactive.compactMap(\.stringValue)), "\(name): inactive")
        }
    }
}
