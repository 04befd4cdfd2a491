import JSON
import LayoutEngine

/// Writes solve results as the API's JSON (`{frames, diagnostics}` and friends) straight into
/// bytes, without building a JSON tree.
///
/// Bodies are written in one allocation sized by an upper bound computed first (`…Bound`
/// functions: every string at its most escaped, every number at its longest): an answer is
/// mostly frames, and appending them piece by piece to a growing array cost more than
/// formatting them.
public enum ResultEncoder {
    /// Each frame's key as answers write it, `"id":{"x":`, kept by a session so that writing a
    /// frame copies its id instead of escaping it again (escaping an id through the string's
    /// storage cost more than the frame's four numbers).
    public struct FrameKeys: Sendable {
        private var bytes: [UInt8] = []
        /// Where key i ends in `bytes` (it starts where key i - 1 ends).
        private var ends: [Int32] = []

        public init(_ frames: [(id: String, frame: Frame)]) {
            let bound = frames.reduce(0) { $0 + JSONChunk.maxStringLength($1.id) + 8 }
            var ends: [Int32] = []
            ends.reserveCapacity(frames.count)
            bytes = JSONChunk.bytes(capacity: bound) { c in
                for f in frames {
                    ResultEncoder.writeKey(f.id, to: &c)
                    ends.append(Int32(c.written))
                }
            }
            self.ends = ends
        }

        var count: Int { ends.count }

        /// Appends key `i` (which must exist).
        @inline(__always)
        func write(_ i: Int, to c: inout JSONChunk) {
            let start = i == 0 ? 0 : Int(ends[i - 1]), end = Int(ends[i])
            bytes.withUnsafeBufferPointer { c.bytes(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        }
    }

    /// Frames to write: all of `frames`, or (`positions` given) the ones at those positions, in
    /// that order. A PATCH answers with the frames that changed: naming them by position spares
    /// building a second list of (id, frame) pairs. `keys`, when it has one key per frame, gives
    /// the frames' keys already written.
    public struct FrameSelection {
        public var frames: [(id: String, frame: Frame)]
        public var positions: [Int]?
        var keys: FrameKeys?

        public init(_ frames: [(id: String, frame: Frame)], positions: [Int]? = nil, keys: FrameKeys? = nil) {
            self.frames = frames
            self.positions = positions
            self.keys = keys.flatMap { $0.count == frames.count ? $0 : nil }
        }

        var bound: Int {
            var n = 2
            if let positions {
                for i in positions { n += ResultEncoder.frameBound(frames[i].id) }
            } else {
                for f in frames { n += ResultEncoder.frameBound(f.id) }
            }
            return n
        }

        func write(to c: inout JSONChunk) {
            c.raw("{")
            if let positions {
                for (k, i) in positions.enumerated() { write(i, first: k == 0, to: &c) }
            } else {
                for i in frames.indices { write(i, first: i == 0, to: &c) }
            }
            c.raw("}")
        }

        @inline(__always)
        private func write(_ i: Int, first: Bool, to c: inout JSONChunk) {
            if !first { c.raw(",") }
            if let keys {
                keys.write(i, to: &c)
            } else {
                ResultEncoder.writeKey(frames[i].id, to: &c)
            }
            let f = frames[i].frame
            c.number(f.x)
            c.raw(",\"y\":")
            c.number(f.y)
            c.raw(",\"width\":")
            c.number(f.width)
            c.raw(",\"height\":")
            c.number(f.height)
            c.raw("}")
        }
    }

    /// A frame's key as answers write it: `"id":{"x":`.
    static func writeKey(_ id: String, to c: inout JSONChunk) {
        c.string(id)
        c.raw(":{\"x\":")
    }

    static func frameBound(_ id: String) -> Int { JSONChunk.maxStringLength(id) + 40 + 4 * JSONChunk.maxNumberLength }

    /// `{"id":{"x":…,"y":…,"width":…,"height":…},…}`.
    public static func appendFrames(_ frames: [(id: String, frame: Frame)], to w: inout JSONWriter) {
        let selection = FrameSelection(frames)
        w.appendChunk(capacity: selection.bound) { selection.write(to: &$0) }
    }

    static func stringsBound(_ s: [String]) -> Int {
        s.reduce(2) { $0 + JSONChunk.maxStringLength($1) + 1 }
    }

    static func diagnosticsBound(_ d: Diagnostics) -> Int {
        var n = 48 + stringsBound(d.ambiguous) + stringsBound(d.inactive) + 16 + stringsBound(d.unsettled)
        for b in d.broken {
            n += 48 + JSONChunk.maxStringLength(b.id) + stringsBound(b.conflictsWith)
            if let g = b.group { n += 12 + JSONChunk.maxStringLength(g) }
            if let i = b.identifier { n += 16 + JSONChunk.maxStringLength(i) }
        }
        return n
    }

    static func writeStrings(_ s: [String], to c: inout JSONChunk) {
        c.raw("[")
        for (i, x) in s.enumerated() {
            if i > 0 { c.raw(",") }
            c.string(x)
        }
        c.raw("]")
    }

    static func writeDiagnostics(_ d: Diagnostics, to c: inout JSONChunk) {
        c.raw("{\"broken\":[")
        for (i, b) in d.broken.enumerated() {
            if i > 0 { c.raw(",") }
            c.raw("{\"id\":")
            c.string(b.id)
            c.raw(",\"conflictsWith\":")
            writeStrings(b.conflictsWith, to: &c)
            if let group = b.group {
                c.raw(",\"group\":")
                c.string(group)
            }
            if let identifier = b.identifier {
                c.raw(",\"identifier\":")
                c.string(identifier)
            }
            c.raw("}")
        }
        c.raw("],\"ambiguous\":")
        writeStrings(d.ambiguous, to: &c)
        c.raw(",\"inactive\":")
        writeStrings(d.inactive, to: &c)
        // Only text views that did not settle: most answers have none, and keep their shape.
        if !d.unsettled.isEmpty {
            c.raw(",\"unsettled\":")
            writeStrings(d.unsettled, to: &c)
        }
        c.raw("}")
    }

    public static func appendDiagnostics(_ d: Diagnostics, to w: inout JSONWriter) {
        w.appendChunk(capacity: diagnosticsBound(d)) { writeDiagnostics(d, to: &$0) }
    }

    public static func appendStrings(_ s: [String], to w: inout JSONWriter) {
        w.appendChunk(capacity: stringsBound(s)) { writeStrings(s, to: &$0) }
    }

    static let statsBound = 128 + 5 * 20

    static func writeStats(_ s: EditStats, to c: inout JSONChunk) {
        c.raw("{\"added\":")
        c.integer(Int64(s.added))
        c.raw(",\"removed\":")
        c.integer(Int64(s.removed))
        c.raw(",\"constantsChanged\":")
        c.integer(Int64(s.constantsChanged))
        c.raw(",\"editsSuggested\":")
        c.integer(Int64(s.editsSuggested))
        c.raw(",\"pivots\":")
        c.integer(Int64(s.pivots))
        c.raw(",\"rebuilt\":")
        c.bool(s.rebuilt)
        c.raw("}")
    }

    /// `{"frames": …, "diagnostics": …}`: the body of `POST /v1/solve` and the output of
    /// `layoutd solve`.
    public static func solveBody(_ system: LayoutSystem, coordinates: Coordinates = .relative) -> [UInt8] {
        solveBody(frames: system.frames(coordinates), diagnostics: system.diagnostics)
    }

    /// `{"frames": …, "diagnostics": …}` from results already computed.
    public static func solveBody(frames: [(id: String, frame: Frame)], diagnostics: Diagnostics) -> [UInt8] {
        sessionBody(id: nil, revision: nil, document: nil, frames: FrameSelection(frames), diagnostics: diagnostics,
                    stats: nil)
    }

    /// The body of the session routes, with the members that are not nil, in this order:
    /// `{"id", "revision", "document", "frames", "diagnostics", "stats"}`.
    /// - Parameter document: the canonical document's JSON text, written as it is.
    public static func sessionBody(id: String?, revision: Int?, document: [UInt8]?,
                                   frames: FrameSelection, diagnostics: Diagnostics,
                                   stats: EditStats?) -> [UInt8] {
        var bound = 64 + frames.bound + diagnosticsBound(diagnostics)
        if let id { bound += JSONChunk.maxStringLength(id) + 8 }
        if revision != nil { bound += 32 }
        if let document { bound += document.count + 16 }
        if stats != nil { bound += statsBound + 12 }
        return JSONChunk.bytes(capacity: bound) { c in
            c.raw("{")
            if let id {
                c.raw("\"id\":")
                c.string(id)
                c.raw(",")
            }
            if let revision {
                c.raw("\"revision\":")
                c.integer(Int64(revision))
                c.raw(",")
            }
            if let document {
                c.raw("\"document\":")
                c.bytes(document)
                c.raw(",")
            }
            c.raw("\"frames\":")
            frames.write(to: &c)
            c.raw(",\"diagnostics\":")
            writeDiagnostics(diagnostics, to: &c)
            if let stats {
                c.raw(",\"stats\":")
                writeStats(stats, to: &c)
            }
            c.raw("}")
        }
    }
}
