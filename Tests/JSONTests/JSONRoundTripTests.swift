import TestSupport
import JSON
import Testing

@Suite("Randomized round trips")
struct JSONRoundTripTests {
    /// Builds random nested values from a seeded generator: every number kind (integers,
    /// fractions, extremes, subnormals, -0), strings with escapes, control characters and
    /// astral scalars, and objects both small and larger than the key index threshold.
    struct ValueGenerator {
        var rng: SeededGenerator

        mutating func value(depth: Int) -> JSONValue {
            let kind = Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &rng)
            switch kind {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2, 3: return .number(number())
            case 4: return .string(string())
            case 5: return .array((0..<Int.random(in: 0..<6, using: &rng)).map { _ in value(depth: depth - 1) })
            default:
                let count = Int.random(in: 0..<(Bool.random(using: &rng) ? 5 : 20), using: &rng)
                return .object(JSONObject((0..<count).map { _ in (string(), value(depth: depth - 1)) }))
            }
        }

        mutating func number() -> Double {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return Double(Int.random(in: -1000...1000, using: &rng))
            case 1: return Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &rng))
            case 2: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 8
            case 3: return [0.0, -0.0, 0.1, 1e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.leastNormalMagnitude, 1e22, 1e23].randomElement(using: &rng)!
            default:
                while true {
                    let d = Double(bitPattern: rng.next())
                    if d.isFinite { return d }
                }
            }
        }

        mutating func string() -> String {
            let pieces: [String] = ["a", "key", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀", "\u{10FFFF}", "日本", " ", "\u{2028}"]
            var s = ""
            for _ in 0..<Int.random(in: 0..<6, using: &rng) { s += pieces.randomElement(using: &rng)! }
            return s
        }
    }

    @Test("parse(serialize(v)) == v for 500 random nested values, and serializing again gives the same bytes")
    func randomRoundTrip() throws {
        var generator = ValueGenerator(rng: SeededGenerator(seed: 0x1A70_07D))
        for _ in 0..<500 {
            let v = generator.value(depth: 4)
            let bytes = JSONWriter.serialize(v)
            let parsed = try JSONParser.parse(bytes)
            #expect(parsed == v, "\(JSONWriter.string(v))")
            #expect(JSONWriter.serialize(parsed) == bytes)
            #expect(try JSONParser.parse(JSONWriter.prettyString(v)) == v)
        }
    }

    @Test("key order survives a round trip, including the order of large objects")
    func keyOrderRoundTrip() throws {
        var rng = SeededGenerator(seed: 42)
        let keys = (0..<200).map { "v\($0)" }.shuffled(using: &rng)
        let v = JSONValue.object(JSONObject(keys.map { ($0, .number(1)) }))
        let parsed = try JSONParser.parse(JSONWriter.serialize(v))
        #expect(parsed.objectValue?.keys == keys)
    }
}
