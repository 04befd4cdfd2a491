import JSON
import LayoutEngine

/// Writes solve results as the API's JSON (`{frames, diagnostics}` and friends) straight into
/// bytes, without building a JSON tree.
public enum ResultEncoder {
    public static func appendFrames(_ frames: [(id: String, frame: Frame)], to w: inout JSONWriter) {
        w.appendRaw("{")
        var first = true
        for (id, f) in frames {
            // A frame member goes in with one append (answers are mostly frames).
            w.appendChunk(capacity: JSONChunk.maxStringLength(id) + 64 + 4 * JSONChunk.maxNumberLength) { c in
                if !first { c.raw(",") }
                c.string(id)
                c.raw(":{\"x\":")
                c.number(f.x)
                c.raw(",\"y\":")
                c.number(f.y)
                c.raw(",\"width\":")
                c.number(f.width)
                c.raw(",\"height\":")
                c.number(f.height)
                c.raw("}")
            }
            first = false
        }
        w.appendRaw("}")
    }

    public static func appendDiagnostics(_ d: Diagnostics, to w: inout JSONWriter) {
        w.appendRaw("{\"broken\":[")
        for (i, b) in d.broken.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendRaw("{\"id\":")
            w.appendString(b.id)
            w.appendRaw(",\"conflictsWith\":")
            appendStrings(b.conflictsWith, to: &w)
            if let group = b.group {
                w.appendRaw(",\"group\":")
                w.appendString(group)
            }
            if let identifier = b.identifier {
                w.appendRaw(",\"identifier\":")
                w.appendString(identifier)
            }
            w.appendRaw("}")
        }
        w.appendRaw("],\"ambiguous\":")
        appendStrings(d.ambiguous, to: &w)
        w.appendRaw(",\"inactive\":")
        appendStrings(d.inactive, to: &w)
        w.appendRaw("}")
    }

    public static func appendStrings(_ s: [String], to w: inout JSONWriter) {
        w.appendRaw("[")
        for (i, x) in s.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendString(x)
        }
        w.appendRaw("]")
    }

    public static func appendStats(_ s: EditStats, to w: inout JSONWriter) {
        w.appendRaw("{\"added\":")
        w.appendInteger(Int64(s.added))
        w.appendRaw(",\"removed\":")
        w.appendInteger(Int64(s.removed))
        w.appendRaw(",\"constantsChanged\":")
        w.appendInteger(Int64(s.constantsChanged))
        w.appendRaw(",\"editsSuggested\":")
        w.appendInteger(Int64(s.editsSuggested))
        w.appendRaw(",\"pivots\":")
        w.appendInteger(Int64(s.pivots))
        w.appendRaw(",\"rebuilt\":")
        w.appendBool(s.rebuilt)
        w.appendRaw("}")
    }

    /// `{"frames": …, "diagnostics": …}`: the body of `POST /v1/solve` and the output of
    /// `layoutd solve`.
    public static func solveBody(_ system: LayoutSystem, coordinates: Coordinates = .relative) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + system.document.views.count * 64)
        w.appendRaw("{\"frames\":")
        appendFrames(system.frames(coordinates), to: &w)
        w.appendRaw(",\"diagnostics\":")
        appendDiagnostics(system.diagnostics, to: &w)
        w.appendRaw("}")
        return w.bytes
    }

    /// `{"frames": …, "diagnostics": …}` from results already computed.
    public static func solveBody(frames: [(id: String, frame: Frame)], diagnostics: Diagnostics) -> [UInt8] {
        sessionBody(id: nil, revision: nil, document: nil, frames: frames, diagnostics: diagnostics, stats: nil)
    }

    /// The body of the session routes, with the members that are not nil, in this order:
    /// `{"id", "revision", "document", "frames", "diagnostics", "stats"}`.
    /// - Parameter document: the canonical document's JSON text, written as it is.
    public static func sessionBody(id: String?, revision: Int?, document: [UInt8]?,
                                   frames: [(id: String, frame: Frame)], diagnostics: Diagnostics,
                                   stats: EditStats?) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + frames.count * 64)
        w.appendRaw("{")
        if let id {
            w.appendKey("id")
            w.appendString(id)
            w.appendRaw(",")
        }
        if let revision {
            w.appendKey("revision")
            w.appendInteger(Int64(revision))
            w.appendRaw(",")
        }
        if let document {
            w.appendKey("document")
            w.bytes.append(contentsOf: document)
            w.appendRaw(",")
        }
        w.appendRaw("\"frames\":")
        appendFrames(frames, to: &w)
        w.appendRaw(",\"diagnostics\":")
        appendDiagnostics(diagnostics, to: &w)
        if let stats {
            w.appendRaw(",\"stats\":")
            appendStats(stats, to: &w)
        }
        w.appendRaw("}")
        return w.bytes
    }
}
