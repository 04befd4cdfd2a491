@testable import LayoutAPI
import Testing

@Suite("Server-Timing: durations in milliseconds with three decimals")
struct ServerTimingTests {
    @Test("the header value rounds to microseconds and pads the decimals")
    func format() {
        // Nanoseconds.
        let cases: [(Int64, Int64, String)] = [
            (0, 0, "parse;dur=0.000, solve;dur=0.000"),
            (499, 500, "parse;dur=0.000, solve;dur=0.001"),
            (412_000, 1_305_000, "parse;dur=0.412, solve;dur=1.305"),
            (7_000, 90_400, "parse;dur=0.007, solve;dur=0.090"),
            (12_345_000_000_000, -3_000_000, "parse;dur=12345000.000, solve;dur=0.000"),
            (Int64.max, 1_999_499, "parse;dur=999999999000.000, solve;dur=1.999"),
        ]
        for (parse, solve, expected) in cases {
            let h = ServerTiming(parse: parse, solve: solve).header
            #expect(h.name == "Server-Timing")
            #expect(h.value == expected)
        }
    }
}

@Suite("ETag: the revision and the generation in quotes")
struct ETagValueTests {
    @Test("small and large revisions and generations")
    func etag() {
        for revision in [0, 1, 9, 10, 42, 123_456_789_012, Int.max] {
            for generation: UInt64 in [1, 1_764_171_234_567_890, UInt64.max] {
                let tag = SessionTag(revision: revision, generation: generation)
                #expect(EntityTagCondition.etag(tag) == "\"\(revision)-\(generation)\"")
            }
        }
    }

    @Test("If-Match takes the full tag, or the bare revision (any generation); nothing else")
    func matching() {
        let tag = SessionTag(revision: 3, generation: 1_764_171_234_567_890)
        for (header, strong) in [("\"3-1764171234567890\"", true), ("\"3\"", true), ("*", true),
                                 ("\"3-1764171234567891\"", false), ("\"2-1764171234567890\"", false),
                                 ("\"4\"", false), ("\"3-\"", false), ("\"3-x\"", false), ("\"-3\"", false),
                                 ("W/\"3-1764171234567890\"", false), ("\"30\"", false), ("\"3-17641712345678900\"", false)] {
            let condition = EntityTagCondition.parse([header])
            #expect(condition?.matchesStrong(tag) == strong, "\(header)")
        }
        #expect(EntityTagCondition.parse(["W/\"3-1764171234567890\""])?.matchesWeak(tag) == true)
    }
}
