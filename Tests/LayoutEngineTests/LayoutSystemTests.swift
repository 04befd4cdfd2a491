import Testing
import JSON
import LayoutModel
@testable import LayoutEngine

@Suite("Layout system")
struct LayoutSystemTests {
    static let panel = """
    {"views": {"panel": {"frame": {"x": 500, "y": 40, "width": 200, "height": 100}},
               "p1": {"parent": "panel"}},
     "constraints": {"h": {"format": "H:|-10-[p1]-10-|"}, "v": {"format": "V:|-10-[p1]-10-|"}}}
    """

    @Test("absolute frames are relative to the view's root; a root keeps its given origin")
    func absoluteIsRelativeToRoot() throws {
        let system = LayoutSystem(document: try EngineFixtures.document(Self.panel))
        let absolute = Dictionary(uniqueKeysWithValues: system.frames(.absolute).map { ($0.id, $0.frame) })
        #expect(absolute["panel"] == Frame(x: 500, y: 40, width: 200, height: 100))
        #expect(absolute["p1"] == Frame(x: 10, y: 10, width: 180, height: 80))
    }

    @Test("a broken entry carries its group and identifier into diagnostics")
    func brokenLabels() throws {
        let system = LayoutSystem(document: try EngineFixtures.document("""
        {"views": {"r": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "r"}},
         "constraints": {"w1": "a.width == 10", "w2": {"expr": "a.width == 20", "group": "g", "identifier": "wide"}}}
        """))
        #expect(system.diagnostics.broken == [BrokenConstraint(id: "w2", conflictsWith: ["w1"], group: "g", identifier: "wide")])
    }

    @Test("a root resize is an edit suggestion and equals a fresh solve")
    func resizeRoot() throws {
        let doc = try EngineFixtures.document(Self.panel)
        var system = LayoutSystem(document: doc)
        let result = system.resizeRoot("panel", width: 300, height: nil)
        let stats = try #require(result)
        #expect(stats.editsSuggested == 1 && stats.added == 0 && stats.removed == 0)
        var resized = doc
        resized.views[0].frame.width = 300
        let fresh = LayoutSystem(document: resized)
        #expect(system.frames().map(\.frame) == fresh.frames().map(\.frame))
    }

    @Test("a changed constant goes through the solver in place and equals a fresh solve")
    func replaceEntryConstant() throws {
        let text = """
        {"views": {"r": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "r"}},
         "constraints": {"l": {"first": "a.left", "second": "r.left", "constant": 10},
                         "t": {"first": "a.top", "second": "r.top", "constant": 10},
                         "s": "a.size == (50, 60)"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        let changed = try EngineFixtures.document(text.replacingOccurrences(of: "\"constant\": 10}", with: "\"constant\": 35}"))
        let result = system.replaceEntry(changed.constraints[0])
        let stats = try #require(result)
        #expect(stats.constantsChanged == 1 && stats.added == 0 && stats.removed == 0)
        #expect(EngineFixtures.frame(system, "a") == Frame(x: 35, y: 35, width: 50, height: 60)
                || EngineFixtures.frame(system, "a") == Frame(x: 35, y: 10, width: 50, height: 60))
        var expected = try EngineFixtures.document(text)
        expected.constraints[0] = changed.constraints[0]
        #expect(system.frames().map(\.frame) == LayoutSystem(document: expected).frames().map(\.frame))
    }

    @Test("applying a whole new document equals a fresh solve, removals first")
    func applyDocument() throws {
        let before = try EngineFixtures.document(Self.panel)
        let after = try EngineFixtures.document("""
        {"views": {"panel": {"frame": {"x": 500, "y": 40, "width": 200, "height": 100}},
                   "p1": {"parent": "panel", "hidden": true}, "p2": {"parent": "panel"}},
         "constraints": {"h": {"format": "H:|-20-[p1]-20-|"}, "v": {"format": "V:|-10-[p1]-10-|"},
                         "h2": {"expr": "p2.width == p1.width", "activation": "bothVisible"}, "h3": "p2.left == panel.left",
                         "v2": "p2.top == panel.top ~ 500", "v3": "p2.height == 5"}}
        """)
        var system = LayoutSystem(document: before)
        let stats = system.apply(after)
        let fresh = LayoutSystem(document: after)
        #expect(system.frames().map(\.frame) == fresh.frames().map(\.frame))
        #expect(system.diagnostics == fresh.diagnostics)
        #expect(stats.constantsChanged > 0 && stats.added > 0)
        #expect(system.diagnostics.inactive == ["h2"])
    }

    @Test("an entry changed to a visibility rule is judged against the views' visibility")
    func replaceEntryWithVisibilityRule() throws {
        let text = """
        {"views": {"r": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "r", "hidden": true}},
         "constraints": {"w": {"expr": "a.width == 50"}, "l": "a.left == r.left", "t": "a.top == r.top",
                         "h": "a.height == 10", "w0": "a.width == 0 ~ 250"}}
        """
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        let changed = try EngineFixtures.document(text.replacingOccurrences(
            of: "{\"expr\": \"a.width == 50\"}", with: "{\"expr\": \"a.width == 50\", \"activation\": \"bothVisible\"}"))
        _ = system.replaceEntry(changed.constraints[0])
        #expect(system.diagnostics.inactive == ["w"])
        #expect(EngineFixtures.frame(system, "a")?.width == 0)
        #expect(system.frames().map(\.frame) == LayoutSystem(document: changed).frames().map(\.frame))
    }
}
