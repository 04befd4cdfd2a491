import Foundation
import JSON
import Testing

/// `JSONChunk` must write exactly what the writer's one-append-at-a-time code wrote: these are
/// that code's rules, kept here as the reference.
@Suite("JSONChunk: byte-identical to the writer's reference formatting")
struct JSONChunkTests {
    static func referenceNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.magnitude < 9_007_199_254_740_992.0 && d == d.rounded(.towardZero) { return String(Int64(d)) }
        if d.magnitude < 1e9, case let k = (d * 1000).rounded(), k / 1000 == d {
            var m = Int64(k.magnitude)
            var out = (d < 0 ? "-" : "") + String(m / 1000) + "."
            m %= 1000
            var divisor: Int64 = 100
            while m > 0 {
                out += String(m / divisor)
                m %= divisor
                divisor /= 10
            }
            return out
        }
        return d.description
    }

    static func numbers() -> [Double] {
        var out: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 0.25, 0.125, 0.001, -0.001, 0.1, 1.0 / 3, -2.0 / 3,
                             12.5, 999_999_999.999, 1e9, 1e9 + 0.5, 123_456.789, 9_007_199_254_740_991,
                             9_007_199_254_740_992, -9_007_199_254_740_993, 1e300, -1.5e-300, 5e-324,
                             .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude,
                             .infinity, -.infinity, .nan, 2.2250738585072014e-308, -2.2250738585072014e-308,
                             Double(Int64.max), Double(Int64.min)]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            out.append(Double(Int.random(in: -2_000_000...2_000_000, using: &rng)) / 8)
            out.append(Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &rng)) / 1000)
            out.append(Double.random(in: -1e6...1e6, using: &rng))
            out.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        return out
    }

    @Test("numbers")
    func numbers() {
        for d in Self.numbers() {
            var w = JSONWriter()
            w.appendNumber(d)
            #expect(String(decoding: w.bytes, as: UTF8.self) == Self.referenceNumber(d), "\(d)")
        }
    }

    @Test("integers")
    func integers() {
        for v: Int64 in [0, 1, -1, 9, 10, -10, 99, 100, 999, 1000, -999, -1000, 9999, 10_000, -9999, -10_000, 99_999,
                         123_456_789, .max, .min, .max - 1, .min + 1] {
            var w = JSONWriter()
            w.appendInteger(v)
            #expect(String(decoding: w.bytes, as: UTF8.self) == String(v))
        }
    }

    @Test("strings escape like appendString")
    func strings() {
        let samples = ["", "a", "view-1", "quote\"back\\slash", "tab\tnl\ncr\rbs\u{8}ff\u{c}", "\u{1}\u{1f}\u{7f}",
                       "é中😀", String(repeating: "\u{0}", count: 20),
                       // Plain for a while, then something to escape (the plain copy starts over).
                       "a-long-plain-view-identifier-0123456789", "a-long-plain-view-identifier\n", "x\"",
                       String(repeating: "plain", count: 40) + "\u{2}"]
        for s in samples {
            var reference = JSONWriter()
            reference.appendString(s)
            var w = JSONWriter()
            w.appendChunk(capacity: JSONChunk.maxStringLength(s)) { $0.string(s) }
            #expect(w.bytes == reference.bytes, "\(s)")
        }
    }

    @Test("bytes(capacity:) holds what was written, and a large bound is not kept")
    func boundedBytes() {
        let small = JSONChunk.bytes(capacity: 64) { c in
            c.raw("{\"a\":")
            c.number(12.5)
            c.raw(",\"b\":")
            c.bool(false)
            c.raw(",\"c\":")
            c.bytes(Array("[1,2]".utf8))
            c.raw("}")
        }
        #expect(String(decoding: small, as: UTF8.self) == #"{"a":12.5,"b":false,"c":[1,2]}"#)
        // A bound of 1 MB for a few bytes: the answer is copied to its size.
        let large = JSONChunk.bytes(capacity: 1 << 20) { $0.integer(42) }
        #expect(large == Array("42".utf8))
        #expect(large.capacity < 1024)
    }

    @Test("pieces go in order, after what the writer held")
    func pieces() {
        var w = JSONWriter()
        w.appendRaw("[")
        w.appendChunk(capacity: 128) { c in
            c.string("k")
            c.raw(":")
            c.number(1.5)
            c.raw(",")
            c.integer(-42)
        }
        w.appendRaw("]")
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"["k":1.5,-42]"#)
    }
}
