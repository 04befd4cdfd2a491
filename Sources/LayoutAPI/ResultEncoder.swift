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
    /// Frames to write: all of `frames`, or (`positions` given) the ones at those positions, in
    /// that order. A PATCH answers with the frames that changed: naming them by position spares
    /// building a second list of (id, frame) pairs.
    public struct FrameSelection {
        public var frames: [(id: String, frame: Frame)]
        public var positions: [Int]?

        public init(_ frames: [(id: String, frame: Frame)], positions: [Int]? = nil) {
            self.frames = frames
            self.positions = positions
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
                for (k, i) in positions.enumerated() { ResultEncoder.writeFrame(frames[i], first: k == 0, to: &c) }
            } else {
                for (k, f) in frames.enumerated() { ResultEncoder.writeFrame(f, first: k == 0, to: &c) }
            }
            c.raw("}")
        }
    }

    static func frameBound(_ id: String) -> Int { JSONChunk.maxStringLength(id) + 40 + 4 * JSONChunk.maxNumberLength }

    /// `"id":{"x":…,"y":…,"width":…,"height":…}`, after a comma unless `first`.
    @inline(__always)
    static func writeFrame(_ f: (id: String, frame: Frame), first: Bool, to c: inout JSONChunk) {
        if !first { c.raw(",") }
        c.string(f.id)
        c.raw(":{\"x\":")
        c.number(f.frame.x)
        c.raw(",\"y\":")
        c.number(f.frame.y)
        c.raw(",\"width\":")
        c.number(f.frame.width)
        c.raw(",\"height\":")
        c.number(f.frame.height)
        c.raw("}")
    }

    /// `{"id":{"x":…,"y":…,"width":…,"height":…},…}`.
    public static func appendFrames(_ frames: [(id: String, frame: Frame)], to w: inout JSONWriter) {
        let selection = FrameSelection(frames)
        w.appendChunk(capacity: selection.bound) { selection.write(to: &$0) }
    }

    static func stringsBound(_ s: [String]) -> Int {
        s.reduce(2) { $0 + JSONChunk.maxStringLength($1) + 1 }
    }

    static func diagnosticsBound(_ d: Diagnostics) -> Int {
        var n = 48 + stringsBound(d.ambiguous) + stringsBound(d.inactive)
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
