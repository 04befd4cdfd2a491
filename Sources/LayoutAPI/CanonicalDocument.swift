import JSON

/// A session's canonical document, kept as its compact JSON text with where each member of
/// `views` and `constraints` sits in it.
///
/// GET returns the text as it is; a PATCH that changes a few members parses only those members
/// and splices their new text in. A JSON tree of the whole document would cost about four times
/// the text in memory and be walked on every request.
struct CanonicalDocument: Equatable, Sendable {
    enum Group: Sendable { case views, constraints }

    /// The document as compact JSON (what `JSONWriter` writes for the canonical value).
    private(set) var bytes: [UInt8]
    /// Byte offsets of each member's value (start, end), in document order: `views`' then
    /// `constraints`'. Two `Int32` a member.
    private var viewRanges: [Int32] = []
    private var constraintRanges: [Int32] = []

    /// - Parameter canonical: a canonical document (`DocumentParser.canonicalize` of a valid one).
    init(_ canonical: JSONValue) {
        var w = JSONWriter(capacity: 4096)
        guard case .object(let top) = canonical else {
            w.write(canonical)
            bytes = w.bytes
            return
        }
        var views: [Int32] = [], constraints: [Int32] = []
        w.appendRaw("{")
        for (i, (key, value)) in top.entries.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendKey(key)
            guard key == "views" || key == "constraints", case .object(let members) = value else {
                w.write(value)
                continue
            }
            var ranges: [Int32] = []
            ranges.reserveCapacity(members.count * 2)
            w.appendRaw("{")
            for (j, (id, member)) in members.entries.enumerated() {
                if j > 0 { w.appendRaw(",") }
                w.appendKey(id)
                ranges.append(Int32(w.bytes.count))
                w.write(member)
                ranges.append(Int32(w.bytes.count))
            }
            w.appendRaw("}")
            if key == "views" { views = ranges } else { constraints = ranges }
        }
        w.appendRaw("}")
        bytes = Self.exactlySized(w.bytes)
        viewRanges = views
        constraintRanges = constraints
    }

    static func == (a: CanonicalDocument, b: CanonicalDocument) -> Bool { a.bytes == b.bytes }

    /// A copy without the writer's spare capacity (up to half the text): a session keeps it.
    private static func exactlySized(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            _ = buffer.initialize(from: bytes)
            count = bytes.count
        }
    }

    /// The whole document as a JSON value.
    var json: JSONValue {
        // The text was written by JSONWriter from a valid value: it parses.
        (try? JSONParser.parse(bytes, maxDepth: 1024)) ?? .null
    }

    /// The number of members of `group`.
    func count(_ group: Group) -> Int { (group == .views ? viewRanges : constraintRanges).count / 2 }

    /// The value of the member at `position` (document order) of `group`.
    func member(_ group: Group, at position: Int) -> JSONValue? {
        let ranges = group == .views ? viewRanges : constraintRanges
        guard position >= 0, 2 * position + 1 < ranges.count else { return nil }
        let start = Int(ranges[2 * position]), end = Int(ranges[2 * position + 1])
        return bytes.withUnsafeBytes { raw in
            try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<end]), maxDepth: 1024)
        }
    }

    /// Replaces the value of the member at `position` of `group` (which must exist).
    mutating func replace(_ group: Group, at position: Int, with value: JSONValue) {
        var w = JSONWriter(capacity: 128)
        w.write(value)
        let range = group == .views ? viewRanges : constraintRanges
        let start = Int(range[2 * position]), end = Int(range[2 * position + 1])
        let delta = Int32(w.bytes.count - (end - start))
        bytes.replaceSubrange(start..<end, with: w.bytes)
        if delta == 0 { return }
        // Every offset after the member moves; `views` comes before or after `constraints`.
        func shift(_ ranges: inout [Int32]) {
            for i in ranges.indices where ranges[i] > Int32(start) { ranges[i] += delta }
        }
        shift(&viewRanges)
        shift(&constraintRanges)
    }
}
