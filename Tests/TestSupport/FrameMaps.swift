import JSON

/// Frames as `{id: [x, y, width, height]}`, compared with a tolerance (API and daemon tests).
public enum FrameMaps {
    static let fields = ["x", "y", "width", "height"]

    /// `{id: [x, y, width, height]}` of a `frames` object (NaN for a missing number).
    public static func frames(_ value: JSONValue?) -> [String: [Double]] {
        var out: [String: [Double]] = [:]
        for (id, frame) in value?.objectValue?.entries.map({ ($0, $1) }) ?? [] {
            out[id] = fields.map { frame[$0]?.numberValue ?? .nan }
        }
        return out
    }

    /// Differences between two frame maps beyond `tolerance`, sorted.
    public static func differences(_ a: [String: [Double]], _ b: [String: [Double]],
                                   tolerance: Double = 1e-6) -> [String] {
        var out: [String] = []
        if Set(a.keys) != Set(b.keys) { out.append("views \(a.keys.sorted()) vs \(b.keys.sorted())") }
        for (id, fa) in a {
            guard let fb = b[id] else { continue }
            for k in 0..<4 where !(abs(fa[k] - fb[k]) <= tolerance) {
                out.append("\(id)[\(fields[k])]: \(fa[k]) vs \(fb[k])")
            }
        }
        return out.sorted()
    }
}
