import JSON
@testable import LayoutEngine
import TestSupport
import Testing
@testable import LayoutAPI

/// Answers are written in one allocation from a bound, with frame keys a session keeps: every way
/// of naming the frames must write the same bytes as the plain writer would.
@Suite("Result encoder")
struct ResultEncoderTests {
    static func frames(_ count: Int, _ rng: inout SeededGenerator) -> [(id: String, frame: Frame)] {
        let ids = ["root", "a", "view-12", "row#3", "x_y", "\u{e9}t\u{e9}", "quote\"d", "back\\slash", "nl\nx", ""]
        let values: [Double] = [0, -0.0, 1, -1, 12.5, 0.1, 1e-7, 99_999, 123_456.789, -7.25, 1e300, .nan, .infinity]
        return (0..<count).map { k in
            (ids[k % ids.count] + (k >= ids.count ? "\(k)" : ""),
             Frame(x: values.randomElement(using: &rng)!, y: values.randomElement(using: &rng)!,
                   width: Double(Int.random(in: 0...20_000, using: &rng)) / 4,
                   height: values.randomElement(using: &rng)!))
        }
    }

    /// The frames object as `JSONWriter` writes it.
    static func reference(_ frames: [(id: String, frame: Frame)]) -> [UInt8] {
        var w = JSONWriter()
        w.appendRaw("{")
        for (k, f) in frames.enumerated() {
            if k > 0 { w.appendRaw(",") }
            w.appendKey(f.id)
            w.appendRaw("{")
            w.appendKey("x")
            w.appendNumber(f.frame.x)
            w.appendRaw(",")
            w.appendKey("y")
            w.appendNumber(f.frame.y)
            w.appendRaw(",")
            w.appendKey("width")
            w.appendNumber(f.frame.width)
            w.appendRaw(",")
            w.appendKey("height")
            w.appendNumber(f.frame.height)
            w.appendRaw("}")
        }
        w.appendRaw("}")
        return w.bytes
    }

    static func written(_ selection: ResultEncoder.FrameSelection) -> [UInt8] {
        JSONChunk.bytes(capacity: selection.bound) { selection.write(to: &$0) }
    }

    @Test("frames by key or by escaping the id, all or by position, write what the writer writes")
    func frameSelections() {
        var rng = SeededGenerator(seed: 11)
        for count in [0, 1, 2, 9, 40] {
            let frames = Self.frames(count, &rng)
            let keys = ResultEncoder.FrameKeys(frames)
            #expect(Self.written(.init(frames)) == Self.reference(frames))
            #expect(Self.written(.init(frames, keys: keys)) == Self.reference(frames))
            let positions = frames.indices.filter { _ in Bool.random(using: &rng) }
            let chosen = positions.map { frames[$0] }
            #expect(Self.written(.init(frames, positions: positions)) == Self.reference(chosen))
            #expect(Self.written(.init(frames, positions: positions, keys: keys)) == Self.reference(chosen))
            // Keys of other frames (a count that differs) are not used.
            let stale = ResultEncoder.FrameKeys(Array(frames.dropLast()))
            #expect(Self.written(.init(frames, keys: stale)) == Self.reference(frames))
        }
    }

    @Test("a session body is valid JSON with its members in order, diagnostics and stats included")
    func sessionBody() throws {
        var diagnostics = Diagnostics()
        diagnostics.broken = [BrokenConstraint(id: "c\"1", conflictsWith: ["c2", "c3"], group: "g", identifier: nil)]
        diagnostics.ambiguous = ["a"]
        diagnostics.inactive = ["x", "y\n"]
        var stats = EditStats()
        stats.constantsChanged = 1
        stats.pivots = 12_345
        let frames: [(id: String, frame: Frame)] = [("root", Frame(x: 0, y: 0, width: 390.5, height: 20))]
        let body = ResultEncoder.sessionBody(id: "s1", revision: 7, document: Array(#"{"views":{}}"#.utf8),
                                             frames: .init(frames, keys: .init(frames)),
                                             diagnostics: diagnostics, stats: stats)
        let json = try JSONParser.parse(body)
        #expect(json.objectValue?.keys == ["id", "revision", "document", "frames", "diagnostics", "stats"])
        #expect(json["frames"]?["root"]?["width"]?.numberValue == 390.5)
        #expect(json["diagnostics"]?["broken"]?.arrayValue?.first?["id"]?.stringValue == "c\"1")
        #expect(json["diagnostics"]?["inactive"]?.arrayValue?.last?.stringValue == "y\n")
        #expect(json["stats"]?["pivots"]?.numberValue == 12_345)
        #expect(json["stats"]?["rebuilt"]?.boolValue == false)
    }
}
