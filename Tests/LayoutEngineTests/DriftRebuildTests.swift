import Testing
import LayoutModel
@testable import LayoutEngine

/// Every `rebuildInterval` incremental edits the system is solved again from its document, which
/// bounds how far rounding can carry its values from a fresh solve's.
@Suite("Layout system: periodic rebuild")
struct DriftRebuildTests {
    static let text = """
    {"views": {"r": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "r"}, "b": {"parent": "r"}},
     "constraints": {"l": {"first": "a.left", "second": "r.left", "constant": 10},
                     "gap": {"first": "b.left", "second": "a.right", "constant": 8},
                     "t": "a.top == r.top", "tb": "b.top == a.bottom", "s": "a.size == (50, 60)",
                     "bw": "b.width == r.width * 0.25", "bh": "b.height == 20"}}
    """

    @Test("the edit that reaches the interval rebuilds, says so, and lands where a fresh solve does")
    func rebuildsAtTheInterval() throws {
        var system = LayoutSystem(document: try EngineFixtures.document(Self.text))
        system.rebuildInterval = 5
        let gap = try #require(system.entryPosition("gap"))
        var rebuiltAt: [Int] = []
        // Resizes and constant changes both count.
        for k in 1...12 {
            let result = k % 3 == 0
                ? system.setConstant(ofEntry: gap, to: Double(k))
                : system.resizeRoot("r", width: 400 + Double(k), height: nil)
            let stats = try #require(result)
            if stats.rebuilt { rebuiltAt.append(k) }
            let fresh = LayoutSystem(document: system.document)
            #expect(system.frames().map(\.frame) == fresh.frames().map(\.frame), "after edit \(k)")
        }
        #expect(rebuiltAt == [5, 10])
        #expect(system.editsSinceBuild == 2)
    }

    @Test("by default a system rebuilds after 4,096 incremental edits, not before")
    func defaultInterval() throws {
        var system = LayoutSystem(document: try EngineFixtures.document(Self.text))
        #expect(system.rebuildInterval == 4096)
        var rebuilds = 0
        for k in 1...4096 {
            let result = system.resizeRoot("r", width: 300 + Double(k % 200), height: nil)
            let stats = try #require(result)
            if stats.rebuilt {
                rebuilds += 1
                #expect(k == 4096)
            }
        }
        #expect(rebuilds == 1)
        #expect(system.frames().map(\.frame) == LayoutSystem(document: system.document).frames().map(\.frame))
    }

    @Test("a rebuild for another reason starts the count again")
    func otherRebuildsReset() throws {
        var system = LayoutSystem(document: try EngineFixtures.document(Self.text))
        system.rebuildInterval = 3
        _ = system.resizeRoot("r", width: 410, height: nil)
        _ = system.resizeRoot("r", width: 420, height: nil)
        // A whole new document with a required conflict: `apply` rebuilds so that broken
        // constraints follow processing order.
        var conflicting = system.document
        conflicting.constraints.append(try EngineFixtures.document("""
        {"views": {"r": {"frame": {"width": 400, "height": 300}}, "a": {"parent": "r"}, "b": {"parent": "r"}},
         "constraints": {"bh2": "b.height == 30"}}
        """).constraints[0])
        let stats = system.apply(conflicting)
        #expect(stats.rebuilt)
        #expect(system.editsSinceBuild == 0)
    }
}
