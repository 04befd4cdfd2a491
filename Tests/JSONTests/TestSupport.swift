import JSON

/// The error parsing `text` throws, or nil when it parses.
func parseError(_ text: String, maxDepth: Int = 128) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(text, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// The error parsing raw `bytes` throws, or nil when they parse.
func parseError(bytes: [UInt8], maxDepth: Int = 128) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// Parses JSON text written in a test; a syntax error there is a bug in the test.
func json(_ text: String) -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        fatalError("test fixture is not valid JSON: \(error)\n\(text)")
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// A small deterministic random number generator (SplitMix64) for reproducible tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
