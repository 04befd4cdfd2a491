@testable import LayoutAPI
import Testing

@Suite("Server-Timing: durations in milliseconds with three decimals")
struct ServerTimingTests {
    @Test("the header value rounds to microseconds and pads the decimals")
    func format() {
        let cases: [(Duration, Duration, String)] = [
            (.zero, .zero, "parse;dur=0.000, solve;dur=0.000"),
            (.nanoseconds(499), .nanoseconds(500), "parse;dur=0.000, solve;dur=0.001"),
            (.microseconds(412), .microseconds(1305), "parse;dur=0.412, solve;dur=1.305"),
            (.microseconds(7), .microseconds(90), "parse;dur=0.007, solve;dur=0.090"),
            (.seconds(12345), .milliseconds(-3), "parse;dur=12345000.000, solve;dur=0.000"),
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
