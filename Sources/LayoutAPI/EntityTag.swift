import JSON

/// `If-Match` / `If-None-Match` conditions against a session's revision (`ETag: "<revision>"`).
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

    /// If-Match: `*` or a strong tag equal to the revision.
    func matchesStrong(revision: Int) -> Bool {
        any || tags.contains { !$0.weak && $0.value == String(revision) }
    }

    /// If-None-Match: `*` or any tag (weak or strong) equal to the revision.
    func matchesWeak(revision: Int) -> Bool {
        any || tags.contains { $0.value == String(revision) }
    }

    static func etag(_ revision: Int) -> String {
        // Written in place (a revision fits the 15 bytes of a small string without allocating).
        String(unsafeUninitializedCapacity: 24) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            var n = 1
            if revision < 0 { buffer[n] = UInt8(ascii: "-"); n += 1 }
            n += JSONChunk.writeDecimal(UInt64(revision.magnitude), to: buffer.baseAddress! + n)
            buffer[n] = UInt8(ascii: "\"")
            return n + 1
        }
    }
}
