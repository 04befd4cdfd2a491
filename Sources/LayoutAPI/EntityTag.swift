import JSON

/// What a session's `ETag` names: its revision and its generation (new each time its id is
/// created: a session deleted and created again never answers a tag a client holds from before).
/// Written `"<revision>-<generation>"`, e.g. `"3-1764171234567890"` (docs/http.md, "ETag").
struct SessionTag: Equatable, Sendable {
    var revision: Int
    var generation: UInt64

    /// The full tag's value, or the bare revision (`"3"`, the spec's form): the bare form matches
    /// any generation, so it does not guard against re-creation.
    func matches(_ value: String) -> Bool {
        var utf8 = value.utf8[...]
        guard let revision = Self.decimal(&utf8), revision == UInt64(self.revision.magnitude), self.revision >= 0 else { return false }
        if utf8.isEmpty { return true }
        guard utf8.first == UInt8(ascii: "-") else { return false }
        utf8 = utf8.dropFirst()
        return Self.decimal(&utf8) == generation && utf8.isEmpty
    }

    /// Reads the digits at the start of `text`; nil when there are none or too many.
    private static func decimal(_ text: inout Substring.UTF8View.SubSequence) -> UInt64? {
        var n: UInt64 = 0, digits = 0
        while let c = text.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
            guard digits < 19 else { return nil }
            n = n * 10 + UInt64(c - UInt8(ascii: "0"))
            digits += 1
            text = text.dropFirst()
        }
        return digits > 0 ? n : nil
    }
}

/// `If-Match` / `If-None-Match` conditions against a session's tag (`SessionTag`).
///
/// A list of entity tags (`"3"`, `"3", "4"`, `W/"3"`) or `*`. If-Match uses the strong comparison,
/// so a weak tag never matches; If-None-Match uses the weak comparison. A bare `3` without quotes
/// is read as `"3"` (lenient). Several header lines combine.
struct EntityTagCondition: Equatable, Sendable {
    var any = false
    var tags: [(value: String, weak: Bool)] = []

    static func == (a: Self, b: Self) -> Bool {
        a.any == b.any && a.tags.map(\.value) == b.tags.map(\.value) && a.tags.map(\.weak) == b.tags.map(\.weak)
    }

    /// nil when no such header was sent.
    static func parse(_ values: [String]) -> EntityTagCondition? {
        guard !values.isEmpty else { return nil }
        var c = EntityTagCondition()
        for value in values {
            var s = Substring(value)
            while true {
                while let f = s.first, f == " " || f == "\t" || f == "," { s = s.dropFirst() }
                guard !s.isEmpty else { break }
                if s.first == "*" {
                    c.any = true
                    s = s.dropFirst()
                    continue
                }
                var weak = false
                if s.hasPrefix("W/") {
                    weak = true
                    s = s.dropFirst(2)
                }
                if s.first == "\"" {
                    s = s.dropFirst()
                    let end = s.firstIndex(of: "\"") ?? s.endIndex
                    c.tags.append((String(s[..<end]), weak))
                    s = end < s.endIndex ? s[s.index(after: end)...] : s[end...]
                } else {
                    let end = s.firstIndex(of: ",") ?? s.endIndex
                    c.tags.append((s[..<end].trimmingASCIIWhitespace(), weak))
                    s = s[end...]
                }
            }
        }
        return c
    }

    /// If-Match: `*` or a strong tag matching the session's (`SessionTag.matches`).
    func matchesStrong(_ tag: SessionTag) -> Bool {
        any || tags.contains { !$0.weak && tag.matches($0.value) }
    }

    /// If-None-Match: `*` or any tag (weak or strong) matching the session's.
    func matchesWeak(_ tag: SessionTag) -> Bool {
        any || tags.contains { tag.matches($0.value) }
    }

    /// A conditional read of a session at `tag`: 304 with the tag when the request's
    /// `If-None-Match` matches it (the client's copy is current), else nil (answer in full).
    static func notModified(_ request: APIRequest, _ tag: SessionTag) -> APIResponse? {
        guard let condition = parse(request.headers(named: "If-None-Match")), condition.matchesWeak(tag) else { return nil }
        return APIResponse(status: 304, headers: [("ETag", etag(tag))])
    }

    static func etag(_ tag: SessionTag) -> String {
        // Written in place: one allocation for the header's string.
        String(unsafeUninitializedCapacity: 48) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            var n = 1
            if tag.revision < 0 { buffer[n] = UInt8(ascii: "-"); n += 1 }
            n += JSONChunk.writeDecimal(UInt64(tag.revision.magnitude), to: buffer.baseAddress! + n)
            buffer[n] = UInt8(ascii: "-")
            n += 1
            n += JSONChunk.writeDecimal(tag.generation, to: buffer.baseAddress! + n)
            buffer[n] = UInt8(ascii: "\"")
            return n + 1
        }
    }
}
