import Testing
import TestSupport
@testable import JSON

/// `JSONScanner` accepts what `JSONParser` accepts for each token, and reads numbers the same.
@Suite("Scanning an expected shape without a tree")
struct JSONScannerTests {
    /// The scanner's reading of `text` as one number and nothing else.
    static func scannedNumber(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { b in
            var s = JSONScanner(b)
            guard let x = s.number(), s.isAtEnd() else { return nil }
            return x
        }
    }

    /// The parser's reading of `text` as a number, or nil when it is not one.
    static func parsedNumber(_ text: String) -> Double? {
        guard case .number(let x)? = try? JSONParser.parse(text) else { return nil }
        return x
    }

    @Test("numbers: the same texts accepted, the same bits read", arguments: [
        "0", "-0", "1", "-1", "8", "12.5", "-7.25", "1e3", "1E+3", "2.5e-3", "123456789012345678901234",
        "0.1", "0.30000000000000004", "1e400", "-1e400", "1e-400", "4.9e-324", "9007199254740993",
        "01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", "0x10", "1.5.2", " 3 ", "3 4", "NaN", "Infinity", "",
    ])
    func numbers(_ text: String) {
        let scanned = Self.scannedNumber(text), parsed = Self.parsedNumber(text)
        #expect(scanned?.bitPattern == parsed?.bitPattern, "\(text)")
    }

    @Test("20,000 random number texts read as the parser reads them")
    func randomNumbers() {
        var rng = SeededGenerator(seed: 7)
        let alphabet = Array("0123456789-+.eE")
        for _ in 0..<20_000 {
            let length = 1 + Int(rng.next() % 24)
            let text = String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let scanned = Self.scannedNumber(text), parsed = Self.parsedNumber(text)
            #expect(scanned?.bitPattern == parsed?.bitPattern, "\(text)")
        }
    }

    @Test("plain strings only: an escape, a control byte or non-ASCII is left to the parser")
    func strings() {
        func plain(_ text: String) -> String? {
            Array(text.utf8).withUnsafeBufferPointer { b in
                var s = JSONScanner(b)
                return s.plainString().map { String(decoding: $0, as: UTF8.self) }
            }
        }
        #expect(plain(#" "s0r4b-l""#) == "s0r4b-l")
        #expect(plain(#""""#) == "")
        #expect(plain(#""a\"b""#) == nil)
        #expect(plain(#""a\u0062""#) == nil)
        #expect(plain("\"caf\u{e9}\"") == nil)
        #expect(plain("\"a\tb\"") == nil)
        #expect(plain(#""unterminated"#) == nil)
        #expect(plain("x") == nil)
    }

    @Test("a step that does not match consumes nothing")
    func failedStepsConsumeNothing() {
        Array(#"  {"constant" : 5}"#.utf8).withUnsafeBufferPointer { b in
            var s = JSONScanner(b)
            var steps: [Bool] = []
            steps.append(!s.consume(UInt8(ascii: "[")))
            steps.append(s.consume(UInt8(ascii: "{")))
            let at = s.offset
            steps.append(!s.consumeKey("const"))
            steps.append(!s.consumeKey("constants"))
            steps.append(s.offset == at)
            steps.append(s.number() == nil)
            steps.append(s.consumeKey("constant"))
            steps.append(s.consume(UInt8(ascii: ":")))
            steps.append(s.number() == 5)
            steps.append(!s.isAtEnd())
            steps.append(s.consume(UInt8(ascii: "}")))
            steps.append(s.isAtEnd())
            #expect(steps.allSatisfy { $0 }, "steps: \(steps)")
        }
        [UInt8]().withUnsafeBufferPointer { b in
            var s = JSONScanner(b)
            let steps = [s.isAtEnd(), !s.consume(UInt8(ascii: "{")), s.number() == nil, s.plainString() == nil]
            #expect(steps.allSatisfy { $0 }, "empty: \(steps)")
        }
    }

    @Test("bytes compared with a static text: whole, prefix, shorter, longer, empty")
    func staticTextComparison() {
        let cases: [(String, Bool, Bool)] = [  // bytes, hasBytes(of: "frames"), hasPrefix("frames")
            ("frames", true, true), ("framesX", false, true), ("frame", false, false), ("", false, false),
            ("Frames", false, false), ("framez", false, false), ("xframes", false, false),
        ]
        for (original, whole, prefix) in cases {
            var text = original
            text.withUTF8 { bytes in
                #expect(bytes.hasBytes(of: "frames") == whole, "\(original)")
                #expect(bytes.hasPrefix("frames") == prefix, "\(original)")
                #expect(bytes.hasPrefix(""))
                #expect(bytes.hasBytes(of: "") == bytes.isEmpty)
            }
        }
    }
}
