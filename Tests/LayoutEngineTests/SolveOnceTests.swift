import Testing
import TestSupport
import JSON
import LayoutModel
@testable import LayoutEngine

/// `LayoutSystem.solveOnce` (POST /v1/solve, `layoutd solve`) is a private detail of the general
/// path: whatever it lets go of, it answers what `LayoutSystem(document:)` answers.
@Suite("Layout system: a one-shot solve")
struct SolveOnceTests {
    static func expectSameAnswer(_ document: Document, _ name: String) {
        let general = LayoutSystem(document: document)
        for coordinates in [Coordinates.relative, .absolute] {
            let once = LayoutSystem.solveOnce(document, coordinates: coordinates)
            let frames = general.frames(coordinates)
            #expect(once.frames.map(\.id) == frames.map(\.id), "\(name): view order")
            #expect(once.frames.map(\.frame) == frames.map(\.frame), "\(name) (\(coordinates)): frames differ")
            #expect(once.diagnostics == general.diagnostics, "\(name): \(once.diagnostics) vs \(general.diagnostics)")
        }
    }

    @Test("every conformance document: the same frames in both coordinate spaces and the same diagnostics",
          arguments: EngineFixtures.conformanceCases())
    func conformance(_ name: String) throws {
        guard let json = try EngineFixtures.conformance(name)["document"],
              case .success(let document) = DocumentParser.parse(json) else { return }
        Self.expectSameAnswer(document, name)
    }

    /// Broken constraints with their labels and conflicts, switched-off entries, `delegate`
    /// entries, ambiguous views: everything the diagnostics read after the entries' items are gone.
    static let diagnosticsDocument = """
        {"views": {"root": {"frame": {"width": 300, "height": 200}},
                   "a": {"parent": "root", "intrinsicSize": {"width": 50, "height": 20}},
                   "b": {"parent": "root"}, "free": {"parent": "root"}},
         "constraints": {
           "a-left": {"first": "a.left", "relation": "==", "second": "root.left", "constant": 10},
           "a-top": {"first": "a.top", "relation": "==", "second": "root.top", "constant": 10},
           "a-wide": {"first": "a.width", "relation": "==", "constant": 80, "group": "sizes", "identifier": "wide"},
           "a-narrow": {"first": "a.width", "relation": "==", "constant": 40, "identifier": "narrow"},
           "b-after": {"first": "b.left", "relation": "==", "second": "a.right", "constant": 8},
           "b-top": {"first": "b.top", "relation": "==", "second": "a.top"},
           "b-size": {"first": "b.width", "relation": "==", "constant": 60},
           "b-height": {"first": "b.height", "relation": ">=", "constant": 10, "priority": 250},
           "off": {"first": "b.left", "relation": "==", "second": "root.left", "active": false},
           "asked": {"first": "b.height", "relation": "==", "constant": 30, "activation": "delegate"}
         },
         "delegate": {"asked": true}}
        """

    @Test("a document with broken, labelled, switched-off, delegate and ambiguous entries answers as the general path")
    func diagnostics() throws {
        let document = try EngineFixtures.document(Self.diagnosticsDocument)
        let general = LayoutSystem(document: document)
        #expect(general.diagnostics.broken.map(\.id) == ["a-narrow"], "the case must break something")
        #expect(general.diagnostics.inactive == ["off"])
        #expect(!general.diagnostics.ambiguous.isEmpty, "the case must leave a view free")
        Self.expectSameAnswer(document, "diagnostics")
    }

    @Test("a one-shot build lets go of the entries' items; a session's build and a document with text keep them")
    func releasesItems() throws {
        let document = try EngineFixtures.document(Self.diagnosticsDocument)
        let (once, _) = LayoutSystem.timedBuild(document: document, once: true) { 0 }
        let itemsLeft = once.document.constraints.reduce(0) { $0 + $1.items.count }
        #expect(itemsLeft == 0)
        #expect(once.document.constraints.map(\.id) == document.constraints.map(\.id), "the entries themselves stay")
        let (general, _) = LayoutSystem.timedBuild(document: document) { 0 }
        #expect(general.document.constraints == document.constraints)

        let text = try EngineFixtures.document("""
            {"views": {"root": {"frame": {"width": 200, "height": 300}},
                       "l": {"parent": "root", "text": {"wordWidths": [60, 70, 80], "spaceWidth": 4, "lineHeight": 18}}},
             "constraints": {"l-left": {"first": "l.left", "relation": "==", "second": "root.left"},
                             "l-top": {"first": "l.top", "relation": "==", "second": "root.top"},
                             "l-width": {"first": "l.width", "relation": "==", "constant": 100}}}
            """)
        let (textOnce, _) = LayoutSystem.timedBuild(document: text, once: true) { 0 }
        #expect(textOnce.document.constraints == text.constraints, "settling text may rebuild from the items")
        Self.expectSameAnswer(text, "text")
    }
}
