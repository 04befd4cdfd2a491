import Foundation
import Testing
import LayoutModel
@testable import LayoutEngine

/// Cold solves of large documents cost about linear time: 20,000 views left free (each with free
/// directions of its own) once took half a minute, because every view was tested against every
/// direction when the ambiguous set was found.
@Suite("Layout system: cold solves of large documents")
struct ColdSolveScalingTests {
    static func document(views n: Int, chain: Bool) throws -> Document {
        var json = #"{"views": {"root": {"frame": {"width": 1000, "height": 1000}}"#
        for i in 0..<n {
            let parent = chain && i > 0 ? "v\(i - 1)" : "root"
            json += #", "v\#(i)": {"parent": "\#(parent)"}"#
        }
        return try EngineFixtures.document(json + "}}")
    }

    @Test("every free view is ambiguous, found without testing every view against every direction",
          arguments: [false, true])
    func freeViewsAreAmbiguous(chain: Bool) throws {
        let document = try Self.document(views: 4_000, chain: chain)
        let started = Date()
        let system = LayoutSystem(document: document)
        let seconds = Date().timeIntervalSince(started)
        #expect(system.diagnostics.ambiguous.count == 4_000)
        #expect(system.diagnostics.ambiguous.first == "v0" && system.diagnostics.ambiguous.last == "v3999")
        // A debug build takes about 0.4 s here; the walk of every view against every direction
        // took about a minute. The bound leaves a busy machine 50 times the room.
        #expect(seconds < 20, "4,000 free views took \(seconds) s")
    }
}
