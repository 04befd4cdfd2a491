import JSON

/// A session's canonical document, kept as its compact JSON text with where each member of
/// `views` and `constraints` sits in it.
///
/// GET returns the text; a PATCH that changes a few members parses only those members and keeps
/// their new text beside the old (`replaced`) rather than splicing it in: a splice moves the
/// whole tail of the text (half of 480 kB for a 1,000-view form, on every PATCH). The replaced
/// members are folded into the text once there are more than a quarter of the members (at least
/// 8) of them, so folding costs a few members' worth per PATCH (under load, the text of a session
/// not edited lately is out of the caches: a fold reads and writes all of it), whenever the whole
/// text is needed as one array, and when the session goes dormant (`stored`). A JSON tree of the
/// whole document would cost about four times the text in memory and be walked on every request.
struct CanonicalDocument: Equatable, Sendable {
    enum Group: Sendable { case views, constraints }

    /// The text as of the last fold.
    private var base: [UInt8]
    /// Byte offsets in `base` of each member's value (start, end), in document order: `views`'
    /// then `constraints'`. Two `Int32` a member.
    private var viewRanges: [Int32] = []
    private var constraintRanges: [Int32] = []
    /// New text of members replaced since the last fold, by member key (`key(_:_:)`).
    private var replaced: [Int: [UInt8]] = [:]
    /// How much longer the replaced members make the text than `base` (negative when shorter):
    /// `byteCount` without assembling the text (the PATCH size cap and the resident byte budget
    /// ask on every edit).
    private var replacedDelta = 0

    /// - Parameter canonical: a canonical document (`DocumentParser.canonicalize` of a valid one).
    init(_ canonical: JSONValue) {
        var w = JSONWriter(capacity: 4096)
        guard case .object(let top) = canonical else {
            w.write(canonical)
            base = w.bytes
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
        base = Self.exactlySized(w.bytes)
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

    /// The document as compact JSON (what `JSONWriter` writes for the canonical value): the text
    /// itself when no member was replaced since the last fold, else assembled (O(text)).
    var bytes: [UInt8] {
        replaced.isEmpty ? base : assembled().bytes
    }

    /// The whole document as a JSON value.
    var json: JSONValue {
        // The text was written by JSONWriter from a valid value: it parses.
        (try? JSONParser.parse(bytes, maxDepth: 1024)) ?? .null
    }

    /// The length of `bytes`, in O(1).
    var byteCount: Int { base.count + replacedDelta }

    /// The length `bytes` would have with `members` replaced by their new text (what a PATCH's
    /// `SessionChange.Canonical.members` would make), without replacing them.
    func byteCount(replacing members: [(group: Group, position: Int, text: [UInt8])]) -> Int {
        members.reduce(byteCount) { $0 + $1.text.count - (memberText($1.group, at: $1.position)?.count ?? 0) }
    }

    /// The number of members of `group`.
    func count(_ group: Group) -> Int { (group == .views ? viewRanges : constraintRanges).count / 2 }

    /// The value of the member at `position` (document order) of `group`.
    func member(_ group: Group, at position: Int) -> JSONValue? {
        memberText(group, at: position).flatMap { text in
            text.withUnsafeBytes { try? JSONParser.parse($0, maxDepth: 1024) }
        }
    }

    /// The canonical text of the member at `position` of `group` (as `member` parses it).
    func memberText(_ group: Group, at position: Int) -> ArraySlice<UInt8>? {
        guard position >= 0, position < count(group) else { return nil }
        if let text = replaced[key(group, position)] { return text[...] }
        let ranges = group == .views ? viewRanges : constraintRanges
        return base[Int(ranges[2 * position])..<Int(ranges[2 * position + 1])]
    }

    /// Replaces the value of the member at `position` of `group` (which must exist).
    mutating func replace(_ group: Group, at position: Int, with value: JSONValue) {
        replace(group, at: position, text: JSONWriter.serialize(value))
    }

    /// Replaces the member at `position` of `group` (which must exist) with `text`, which must be
    /// what `JSONWriter` writes for its new value.
    mutating func replace(_ group: Group, at position: Int, text: [UInt8]) {
        replacedDelta += text.count - (memberText(group, at: position)?.count ?? 0)
        replaced[key(group, position)] = text
        if replaced.count > max(8, (count(.views) + count(.constraints)) / 4) { fold() }
    }

    /// The document as kept while nothing edits it (a dormant session): folded, without the
    /// replaced members' table.
    var stored: CanonicalDocument {
        var c = self
        c.fold()
        c.replaced = [:]
        c.replacedDelta = 0
        return c
    }

    /// Writes the replaced members into the text.
    mutating func fold() {
        guard !replaced.isEmpty else { return }
        let (text, views, constraints) = assembled()
        base = Self.exactlySized(text)
        viewRanges = views
        constraintRanges = constraints
        replaced.removeAll(keepingCapacity: true)
        replacedDelta = 0
    }

    private func key(_ group: Group, _ position: Int) -> Int {
        group == .views ? position : count(.views) + position
    }

    /// The text with the replaced members in place, and the members' ranges in it.
    private func assembled() -> (bytes: [UInt8], views: [Int32], constraints: [Int32]) {
        // The replaced members in text order (`views` may come before or after `constraints`),
        // with how much each changes the length.
        var order: [(start: Int32, end: Int32, text: [UInt8])] = []
        order.reserveCapacity(replaced.count)
        for (k, text) in replaced {
            let (ranges, position) = k < count(.views) ? (viewRanges, k) : (constraintRanges, k - count(.views))
            order.append((ranges[2 * position], ranges[2 * position + 1], text))
        }
        order.sort { $0.start < $1.start }
        var out: [UInt8] = []
        out.reserveCapacity(base.count + order.reduce(0) { $0 + $1.text.count - Int($1.end - $1.start) })
        var copied = 0
        for m in order {
            out.append(contentsOf: base[copied..<Int(m.start)])
            out.append(contentsOf: m.text)
            copied = Int(m.end)
        }
        out.append(contentsOf: base[copied...])
        // An offset moves by the change in length of every replaced member that starts before it
        // (a replaced member's own start stays; its end moves by its own change). Both lists are
        // in text order: one pass each.
        func shifted(_ ranges: [Int32]) -> [Int32] {
            var result = ranges, k = 0, delta: Int32 = 0
            for i in result.indices {
                while k < order.count && order[k].start < ranges[i] {
                    delta += Int32(order[k].text.count) - (order[k].end - order[k].start)
                    k += 1
                }
                result[i] += delta
            }
            return result
        }
        return (out, shifted(viewRanges), shifted(constraintRanges))
    }
}
