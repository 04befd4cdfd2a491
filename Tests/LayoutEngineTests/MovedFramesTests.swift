import Testing
import TestSupport
import JSON
import LayoutModel
@testable import LayoutEngine

/// `movedFramePositions` may list views that did not move, never miss one that did: a session
/// refreshes only the listed frames.
@Suite("Layout system: which frames an edit moved")
struct MovedFramesTests {
    /// Every view whose relative frame differs between `before` and `system` is listed.
    static func expectCovered(_ system: inout LayoutSystem, _ before: [(id: String, frame: Frame)], _ step: String) {
        let moved = system.movedFramePositions()
        let after = system.frames(.relative)
        guard before.count == after.count else { return }
        let changed = after.indices.filter { after[$0].frame != before[$0].frame }
        if let moved {
            #expect(Set(changed).isSubset(of: Set(moved)), "\(step): missed \(Set(changed).subtracting(moved))")
            #expect(moved == moved.sorted() && Set(moved).count == moved.count, "\(step): not ascending and unique")
        }
    }

    @Test("root resizes and constant changes on every conformance document: no moved frame is missed",
          arguments: EngineFixtures.conformanceCases())
    func covered(_ name: String) throws {
        guard let json = try EngineFixtures.conformance(name)["document"],
              case .success(let document) = DocumentParser.parse(json) else { return }
        var system = LayoutSystem(document: document)
        #expect(system.movedFramePositions() == nil, "a new system does not know what moved")
        system.clearMovedFrames()
        #expect(system.movedFramePositions() == [])
        var rng = SeededGenerator(seed: 3)
        let roots = document.views.filter(\.isRoot).map(\.id)
        for step in 0..<40 {
            let before = system.frames(.relative)
            if Bool.random(using: &rng), let root = roots.randomElement(using: &rng) {
                _ = system.resizeRoot(root, width: Double(Int.random(in: 50...900, using: &rng)),
                                      height: Double(Int.random(in: 50...900, using: &rng)))
            } else if var entry = system.document.constraints.randomElement(using: &rng), !entry.items.isEmpty {
                entry.items[0].constant += Double(Int.random(in: -30...30, using: &rng))
                _ = system.replaceEntry(entry)
            }
            Self.expectCovered(&system, before, "\(name) step \(step)")
            system.clearMovedFrames()
        }
    }

    @Test("a constant change in a long form lists a few views, not all of them")
    func fewViews() throws {
        var views = #""root": {"frame": {"width": 400, "height": 2000}}"#
        var constraints: [String] = []
        for i in 0..<200 {
            views += #", "v\#(i)": {"parent": "root", "frame": {"height": 20}}"#
            constraints.append(#""l\#(i)": "v\#(i).horizontal == root.horizontal""#)
            constraints.append(i == 0 ? #""t0": "v0.top == root.top + 8""# : #""t\#(i)": "v\#(i).top == v\#(i - 1).bottom + 8""#)
        }
        let text = #"{"views": {\#(views)}, "constraints": {\#(constraints.joined(separator: ", "))}}"#
        var system = LayoutSystem(document: try EngineFixtures.document(text))
        system.clearMovedFrames()
        let before = system.frames(.relative)
        var last = system.document.constraints[system.entryPosition("t199")!]
        last.items[0].constant -= 4
        _ = system.replaceEntry(last)
        let found = system.movedFramePositions()
        let moved = try #require(found)
        #expect(moved.count <= 3, "\(moved)")
        Self.expectCovered(&system, before, "t199")
        // A change at the top moves every view below it: every position, or nil (read them all).
        system.clearMovedFrames()
        var first = system.document.constraints[system.entryPosition("t0")!]
        first.items[0].constant -= 4
        _ = system.replaceEntry(first)
        #expect(system.movedFramePositions().map { $0.count >= 200 } ?? true)
    }
}
