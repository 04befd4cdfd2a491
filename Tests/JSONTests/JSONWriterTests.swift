import TestSupport
import JSON
import Testing

@Suite("Writing JSON")
struct JSONWriterTests {
    @Test("integral numbers are written without a fraction", arguments: [
        (100.0, "100"), (-3.0, "-3"), (0.0, "0"), (390.0, "390"), (1e15, "1000000000000000"),
        (9_007_199_254_740_991.0, "9007199254740991"), (-9_007_199_254_740_991.0, "-9007199254740991"),
    ])
    func integers(value: Double, expected: String) {
        #expect(JSONWriter.string(.number(value)) == expected)
    }

    @Test("negative zero is written as 0")
    func negativeZero() {
        #expect(JSONWriter.string(.number(-0.0)) == "0")
        #expect(JSONWriter.string(.array([.number(-0.0)])) == "[0]")
    }

    @Test("fractions use the shortest representation that reads back to the same Double", arguments: [
        (0.1, "0.1"), (12.5, "12.5"), (-0.25, "-0.25"), (1.0 / 3.0, "0.3333333333333333"), (1e-7, "1e-07"),
        (0.1 + 0.2, "0.30000000000000004"), (1.5e300, "1.5e+300"), (.leastNonzeroMagnitude, "5e-324"),
    ])
    func fractions(value: Double, expected: String) throws {
        let text = JSONWriter.string(.number(value))
        #expect(text == expected)
        #expect(try JSONParser.parse(text).numberValue?.bitPattern == value.bitPattern)
    }

    @Test("integral values from 2^53 up still read back exactly", arguments: [
        9_007_199_254_740_992.0, 1e16, 1.2345678901234568e+20, 1e22, 1e300, -1.7976931348623157e308,
    ])
    func largeIntegral(value: Double) throws {
        let text = JSONWriter.string(.number(value))
        #expect(try JSONParser.parse(text).numberValue == value)
    }

    @Test("non-finite numbers are written as null, never as inf or nan")
    func nonFinite() {
        #expect(JSONWriter.string(.number(.infinity)) == "null")
        #expect(JSONWriter.string(.number(-.infinity)) == "null")
        #expect(JSONWriter.string(.number(.nan)) == "null")
        #expect(JSONWriter.string(.array([.number(.nan), .number(1)])) == "[null,1]")
    }

    @Test("strings escape quote, backslash and control characters and keep other text raw")
    func stringEscapes() {
        let s = "q\" b\\ s/ \u{8}\u{C}\n\r\t \u{0}\u{1}\u{1F} del\u{7F} é€😀"
        let expected = #""q\" b\\ s/ \b\f\n\r\t \u0000\u0001\u001f del"# + "\u{7F} é€😀\""
        #expect(JSONWriter.string(.string(s)) == expected)
        #expect(JSONWriter.string(.string("")) == #""""#)
        #expect(JSONWriter.string(.string("plain")) == #""plain""#)
    }

    @Test("output is compact and keeps object keys in stored order")
    func compactAndOrdered() {
        let v: JSONValue = .object(JSONObject([
            ("z", .number(1)), ("a", .array([.bool(true), .bool(false), .null])), ("m", .object(JSONObject())),
            ("e", .array([])), ("s", .string("x y")),
        ]))
        #expect(JSONWriter.string(v) == #"{"z":1,"a":[true,false,null],"m":{},"e":[],"s":"x y"}"#)
    }

    @Test("canonical compact documents are written back byte for byte", arguments: [
        #"{"views":{"root":{"frame":{"width":390}},"b":{"parent":"root","hugging":{"horizontal":251}}}}"#,
        #"[1,-2,0.5,1e-07,"a\"b\\c\n",true,false,null,[],{}]"#,
        #"{"ü":"日本","emoji":"😀","ctl":"\u0001"}"#,
        #""top-level string""#, "3", "null",
    ])
    func canonicalRoundTrip(text: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test("serialize returns the same bytes that string describes")
    func serializeMatchesString() throws {
        let v = try JSONParser.parse(#"{"a":[1,2,{"b":"é"}]}"#)
        #expect(JSONWriter.serialize(v) == Array(JSONWriter.string(v).utf8))
    }

    @Test("the low-level appenders build a response without a JSONValue tree")
    func appenders() {
        var w = JSONWriter(capacity: 16)
        w.appendRaw("{")
        w.appendKey("id")
        w.appendNumber(3)
        w.appendRaw(",")
        w.appendKey("ok")
        w.appendBool(true)
        w.appendRaw(",")
        w.appendKey("off")
        w.appendBool(false)
        w.appendRaw(",")
        w.appendKey("none")
        w.appendNull()
        w.appendRaw(",")
        w.appendKey("say \"hi\"")
        w.appendString("line\nbreak")
        w.appendRaw(",")
        w.appendKey("frame")
        w.write(.array([.number(0.5), .number(-0.0)]))
        w.appendRaw(",")
        w.appendKey("n")
        w.appendInteger(-1234567890123)
        w.appendRaw("}")
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == #"{"id":3,"ok":true,"off":false,"none":null,"say \"hi\"":"line\nbreak","frame":[0.5,0],"n":-1234567890123}"#)
        #expect((try? JSONParser.parse(w.bytes)) != nil)
    }

    @Test("writing appends to what is already in the buffer")
    func appendsToExistingBytes() {
        var w = JSONWriter()
        w.write(.number(1))
        w.appendRaw(" ")
        w.write(.string("x"))
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"1 "x""#)
    }

    @Test("pretty printing indents two spaces per level and parses back to the same value")
    func pretty() throws {
        let v = try JSONParser.parse(#"{"a":[1,{"b":null}],"c":{},"d":[],"e":"x"}"#)
        let expected = """
            {
              "a": [
                1,
                {
                  "b": null
                }
              ],
              "c": {},
              "d": [],
              "e": "x"
            }
            """
        let pretty = JSONWriter.prettyString(v)
        #expect(pretty == expected)
        #expect(try JSONParser.parse(pretty) == v)
        #expect(JSONWriter.prettyString(.number(2)) == "2")
    }
}

@Suite("JSONWriter numbers")
struct JSONWriterNumberTests {
    static func written(_ d: Double) -> String {
        var w = JSONWriter()
        w.appendNumber(d)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test("short decimals are written as they read", arguments: [
        (6.5, "6.5"), (-0.25, "-0.25"), (0.05, "0.05"), (0.001, "0.001"), (123456.125, "123456.125"),
        (-7.5, "-7.5"), (0.1, "0.1"), (1e-7, "1e-07"), (0.30000000000000004, "0.30000000000000004"),
    ])
    func shortDecimals(_ d: Double, _ text: String) {
        #expect(Self.written(d) == text)
    }

    @Test("every finite number reads back as the same double")
    func roundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        for i in 0..<20_000 {
            let d: Double
            switch i % 4 {
            case 0: d = Double(Int.random(in: -2_000_000...2_000_000, using: &rng)) / 1000
            case 1: d = Double(Int.random(in: -4000...4000, using: &rng)) / 8
            case 2: d = Double.random(in: -1e6...1e6, using: &rng)
            default: d = Double(Int.random(in: -999_999...999_999, using: &rng)) / 1000 + 1e8
            }
            let back = try JSONParser.parse(Self.written(d))
            #expect(back == .number(d), "\(d) written as \(Self.written(d))")
        }
    }
}
