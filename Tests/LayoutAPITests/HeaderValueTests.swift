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

@Suite("ETag: the revision in quotes")
struct ETagValueTests {
    @Test("small and large revisions")
    func etag() {
        for revision in [0, 1, 9, 10, 42, 123_456_789_012, Int.max] {
            #expect(EntityTagCondition.etag(revision) == "\"\(revision)\"")
        }
    }
}
