import JSON
import Testing

@Suite("Parsing valid JSON")
struct ParsingValidJSONTests {
    @Test("scalars parse to the matching JSONValue cases, at top level too")
    func scalars() throws {
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("42") == .number(42))
        #expect(try JSONParser.parse("-3.5") == .number(-3.5))
        #expect(try JSONParser.parse(#""hi""#) == .string("hi"))
    }

    @Test("whitespace (space, tab, CR, LF) is allowed around and between tokens")
    func whitespace() throws {
        let v = try JSONParser.parse(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] , \"b\"\r\n: null }\n ")
        #expect(v == .object(JSONObject([("a", .array([.number(1), .number(2)])), ("b", .null)])))
    }

    @Test("object keys keep the order they were written in, not sorted")
    func keyOrder() throws {
        let v = try JSONParser.parse(#"{"zeta":1,"alpha":2,"mid":{"y":true,"b":false}}"#)
        let o = try #require(v.objectValue)
        #expect(o.keys == ["zeta", "alpha", "mid"])
        #expect(o.values == [.number(1), .number(2), json(#"{"y":true,"b":false}"#)])
        #expect(v["mid"]?.objectValue?.keys == ["y", "b"])
    }

    @Test("a large object keeps its order and its members can be looked up by key")
    func largeObject() throws {
        let names = (0..<40).map { "k\((7 * $0) % 40)" }
        let text = "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let o = try #require(try JSONParser.parse(text).objectValue)
        #expect(o.keys == names)
        for (i, name) in names.enumerated() {
            #expect(o[name] == .number(Double(i)))
        }
        #expect(o["missing"] == nil)
    }

    @Test("nested arrays and objects parse into the matching tree")
    func nested() throws {
        let v = try JSONParser.parse(#"[[], {}, [1, [2, [3]]], {"a": {"b": {"c": []}}}]"#)
        let a = try #require(v.arrayValue)
        #expect(a.count == 4)
        #expect(a[0] == .array([]))
        #expect(a[1] == .object(JSONObject()))
        #expect(a[2] == .array([.number(1), .array([.number(2), .array([.number(3)])])]))
        #expect(v.value(atPointer: "/3/a/b/c") == .array([]))
    }

    @Test("the same key may appear in different objects")
    func sameKeyInDifferentObjects() throws {
        let v = try JSONParser.parse(#"{"a":{"a":1},"b":{"a":2},"c":[{"a":3},{"a":4}]}"#)
        #expect(v.value(atPointer: "/c/1/a") == .number(4))
    }

    @Test("the byte-buffer, array and string entry points agree")
    func entryPoints() throws {
        let text = #"{"a":[1,"é",null]}"#
        let fromString = try JSONParser.parse(text)
        let array = Array(text.utf8)
        let fromArray = try JSONParser.parse(array)
        let fromBuffer = try array.withUnsafeBytes { raw in try JSONParser.parse(raw) }
        #expect(fromString == fromArray)
        #expect(fromString == fromBuffer)
    }
}

@Suite("Numbers")
struct NumberParsingTests {
    @Test("numbers parse to the correctly rounded Double",
          arguments: [
              "0", "-0", "1", "-1", "42", "0.1", "0.5", "12.5", "390.0", "-12.5e-3", "1E+2", "1e-7",
              "0.000001234", "0.30000000000000004", "3.141592653589793238462643383279",
              "9007199254740991", "9007199254740993", "18446744073709551615",
              "123456789012345678901234567890", "1e22", "1e23", "2.5e-3", "1.7976931348623157e308",
              "2.2250738585072014e-308", "4.9e-324", "5e-324", "1e-400", "123.456e2",
              "0.0000000000000000000000001", "99999999999999999999e-20",
          ])
    func correctlyRounded(text: String) throws {
        let expected = try #require(Double(text))
        let parsed = try #require(try JSONParser.parse(text).numberValue)
        #expect(parsed.bitPattern == expected.bitPattern, "\(text): \(parsed) != \(expected)")
    }

    @Test("-0 parses to negative zero")
    func negativeZero() throws {
        let d = try #require(try JSONParser.parse("-0").numberValue)
        #expect(d == 0 && d.sign == .minus)
    }

    @Test("a number too large for a Double is infinity, not a parse error")
    func overflowIsInfinity() throws {
        #expect(try JSONParser.parse("1e400") == .number(.infinity))
        #expect(try JSONParser.parse("-1e400") == .number(-.infinity))
        #expect(try JSONParser.parse(#"{"width":1e400}"#)["width"] == .number(.infinity))
        let digits = String(repeating: "9", count: 400)
        #expect(try JSONParser.parse(digits) == .number(.infinity))
    }

    @Test("leading zeros are rejected", arguments: ["01", "-01", "00", "[007]", "0123.5"])
    func leadingZeros(text: String) throws {
        let e = try #require(parseError(text))
        #expect(e.message.contains("leading zeros"))
    }

    @Test("malformed numbers are rejected",
          arguments: ["-", "1.", ".5", "+1", "1e", "1e+", "1.e3", "-.5", "0x10", "NaN", "Infinity", "-Infinity", "1.5.2", "1e5e5", "- 1"])
    func malformed(text: String) {
        #expect(parseError(text) != nil)
    }

    @Test("a malformed number reports the offending position")
    func malformedPosition() throws {
        let e = try #require(parseError("[1.]"))
        #expect(e.message == "invalid number, expected a digit after '.'")
        #expect(e.line == 1 && e.column == 4 && e.offset == 3)
    }
}

@Suite("Strings")
struct StringParsingTests {
    @Test("every escape sequence decodes")
    func escapes() throws {
        let v = try JSONParser.parse(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20AC\u0000""#)
        #expect(v == .string("q\" b\\ s/ \u{8}\u{C}\n\r\t Aé€\u{0}"))
    }

    @Test("escapes are decoded in keys too")
    func escapedKeys() throws {
        let v = try JSONParser.parse(#"{"a\nb":1,"\u0063":2}"#)
        #expect(v.objectValue?.keys == ["a\nb", "c"])
    }

    @Test("raw multi-byte UTF-8 is kept as is")
    func rawUnicode() throws {
        let text = "[\"café\",\"€10\",\"日本語\",\"😀 emoji\",\"a\u{301}\"]"
        let v = try JSONParser.parse(text)
        #expect(v == .array([.string("café"), .string("€10"), .string("日本語"), .string("😀 emoji"), .string("a\u{301}")]))
    }

    @Test("a surrogate pair escape decodes to one scalar")
    func surrogatePair() throws {
        let s = try #require(try JSONParser.parse(#""\uD83D\uDE00x""#).stringValue)
        #expect(s == "😀x")
        #expect(Array(s.unicodeScalars) == ["\u{1F600}", "x"])
        #expect(try JSONParser.parse(#""\ud834\udd1e""#) == .string("\u{1D11E}"))
    }

    @Test("a lone or mismatched surrogate escape is an error",
          arguments: [#""\uD83D""#, #""\uD83Dx""#, #""\uDE00""#, #""\uD83D\u0041""#, #""\uD83D\uD83D""#, #""a\uDBFF\n""#])
    func loneSurrogate(text: String) throws {
        let e = try #require(parseError(text))
        #expect(e.message.contains("lone surrogate"))
    }

    @Test("invalid escapes are rejected with their position")
    func invalidEscapes() throws {
        let e = try #require(parseError(#"["ok", "bad \x"]"#))
        #expect(e.message == #"invalid escape sequence '\x' in string"#)
        #expect(e.column == 13)
        #expect(parseError(#""\u12""#)?.message.contains("4 hex digits") == true)
        #expect(parseError(#""\u12G4""#)?.message.contains("4 hex digits") == true)
        #expect(parseError(#""\U0041""#) != nil)
        #expect(parseError(#""\'""#) != nil)
    }

    @Test("unescaped control characters in strings are rejected")
    func controlCharacters() throws {
        let e = try #require(parseError("{\"a\":\"line\nbreak\"}"))
        #expect(e.message == "unescaped control character U+000A in string")
        #expect(e.line == 1 && e.column == 11)
        #expect(parseError("\"tab\there\"") != nil)
        #expect(parseError(bytes: [0x22, 0x00, 0x22]) != nil)
        #expect(parseError(bytes: [0x22, 0x1F, 0x22]) != nil)
        #expect(parseError("\"é\u{7}\"") != nil)  // control character after non-ASCII text
        #expect(try JSONParser.parse("\"del\u{7F}\"") == .string("del\u{7F}"))  // DEL is not a control character in JSON
    }

    @Test("invalid UTF-8 inside a string is rejected",
          arguments: [
              [0x80], [0xC3], [0xC0, 0xAF], [0xC1, 0xBF], [0xE2, 0x82], [0xE0, 0x80, 0x80],
              [0xED, 0xA0, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
              [0xFF], [0xC3, 0x28],
          ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) throws {
        let input: [UInt8] = [0x22, 0x61] + sequence + [0x62, 0x22]  // "a<seq>b"
        let e = try #require(parseError(bytes: input))
        #expect(e.message == "invalid UTF-8 in string")
        #expect(e.offset == 2)
    }

    @Test("invalid UTF-8 after an escape is rejected too")
    func invalidUTF8AfterEscape() {
        #expect(parseError(bytes: bytes(#""\n"#) + [0xFF, 0x22]) != nil)
    }

    @Test("an unterminated string is an error at its opening quote")
    func unterminated() throws {
        let e = try #require(parseError(#"{"a": "abc"#))
        #expect(e.message == "unterminated string")
        #expect(e.column == 7)
        #expect(parseError(#""abc\"#) != nil)
        #expect(parseError(#""abc\u00"#) != nil)
    }
}

@Suite("Rejecting invalid documents")
struct RejectionTests {
    @Test("empty or whitespace-only input is an error")
    func empty() throws {
        let e = try #require(parseError(""))
        #expect(e.message.contains("empty input"))
        #expect(e.line == 1 && e.column == 1)
        #expect(parseError(" \n\t ") != nil)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test("a trailing comma in an object or array is rejected at the comma")
    func trailingComma() throws {
        let o = try #require(parseError("{\n  \"a\": 1,\n}"))
        #expect(o.message == "trailing comma in object")
        #expect(o.line == 2 && o.column == 9)
        let a = try #require(parseError("[1, 2, ]"))
        #expect(a.message == "trailing comma in array")
        #expect(a.line == 1 && a.column == 6)
        #expect(parseError("[,]") != nil)
        #expect(parseError("[1,,2]") != nil)
        #expect(parseError("{,}") != nil)
    }

    @Test("comments are rejected", arguments: ["// c\n1", "/* c */ 1", "[1 /* c */]", "{\"a\":1 // c\n}", "1 // c", "[1, // c\n2]"])
    func comments(text: String) throws {
        let e = try #require(parseError(text))
        #expect(e.message == "comments are not allowed")
    }

    @Test("a missing separator reports what was expected, with line and column")
    func lineAndColumn() throws {
        let text = "{\n  \"w\": 100,\n  \"w2\": 10 \"h\": 2\n}"
        let e = try #require(parseError(text))
        #expect(e.message.hasPrefix("expected ',' or '}'"))
        #expect(e.line == 3)
        #expect(e.column == 12)
        #expect(e.offset == 25)
        #expect(e.description.hasSuffix(" at line 3, column 12"))
        #expect(e.description.hasPrefix("expected ',' or '}'"))

        let a = try #require(parseError("[\n1\n2]"))
        #expect(a.message.hasPrefix("expected ',' or ']'"))
        #expect(a.line == 3 && a.column == 1)
    }

    @Test("structural errors are reported", arguments: [
        "{", "[", "{\"a\"", "{\"a\":", "{\"a\" 1}", "{1:2}", "{a:1}", "{'a':1}", "['a']", "[1 2]",
        "]", "}", ":", ",", "tru", "nul", "falsy", "True", "NULL", "[1}", "{\"a\":1]", "\"a\":1",
    ])
    func structural(text: String) {
        #expect(parseError(text) != nil)
    }

    @Test("end of input inside a container says so")
    func endOfInput() throws {
        let e = try #require(parseError("[1, {\"a\": [true"))
        #expect(e.message == "unexpected end of input, expected ',' or ']'")
        #expect(e.offset == 15)
        #expect(parseError("{\"a\":")?.message == "unexpected end of input, expected a JSON value")
    }

    @Test("characters after the value are rejected", arguments: ["{} x", "1 2", "[1]]", "null,", "\"a\"\"b\"", "{}{}", "0 0", "truex"])
    func trailingGarbage(text: String) throws {
        #expect(parseError(text) != nil)
    }

    @Test("trailing garbage is reported at its first character")
    func trailingGarbagePosition() throws {
        let e = try #require(parseError("{}\n  x"))
        #expect(e.message == "unexpected characters after the JSON value")
        #expect(e.line == 2 && e.column == 3)
    }

    @Test("a byte order mark is rejected")
    func byteOrderMark() throws {
        #expect(parseError(bytes: [0xEF, 0xBB, 0xBF] + bytes("{}")) != nil)
    }

    @Test("a non-ASCII byte outside a string is rejected")
    func nonASCIIOutsideString() throws {
        let e = try #require(parseError(bytes: bytes("[1,") + [0xC3, 0xA9] + bytes("]")))
        #expect(e.message.contains("0xC3"))
        #expect(e.offset == 3)
    }
}

@Suite("Duplicate keys")
struct DuplicateKeyTests {
    @Test("a duplicate key in one object is an error naming the key, at the second occurrence")
    func duplicate() throws {
        let e = try #require(parseError("{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}"))
        #expect(e.message == #"duplicate key "a" in object"#)
        #expect(e.line == 4 && e.column == 3)
    }

    @Test("duplicates are found in large objects as well")
    func duplicateInLargeObject() throws {
        let members = (0..<50).map { "\"key\($0)\":\($0)" } + ["\"key17\":0"]
        let e = try #require(parseError("{" + members.joined(separator: ",") + "}"))
        #expect(e.message == #"duplicate key "key17" in object"#)
    }

    @Test("duplicates are detected in nested objects")
    func nestedDuplicate() throws {
        let e = try #require(parseError(#"{"views":{"x":{"w":1,"w":2}}}"#))
        #expect(e.message == #"duplicate key "w" in object"#)
        #expect(e.column == 22)
    }

    @Test("keys that differ only after decoding escapes are duplicates")
    func escapedDuplicate() throws {
        let e = try #require(parseError(#"{"ab":1,"a\u0062":2}"#))
        #expect(e.message == #"duplicate key "ab" in object"#)
    }

    @Test("the duplicate key is shown escaped in the message")
    func duplicateKeyShownEscaped() throws {
        let e = try #require(parseError(#"{"a\"\n":1,"a\"\n":2}"#))
        #expect(e.message == #"duplicate key "a\"\n" in object"#)
    }
}

@Suite("Nesting depth")
struct NestingDepthTests {
    @Test("100,000 nested arrays fail cleanly with a depth error, not a stack overflow")
    func deepArrays() throws {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let e = try #require(parseError(bytes: input))
        #expect(e.message == "nesting deeper than the maximum depth of 128")
        #expect(e.offset == 128)
    }

    @Test("100,000 nested objects fail cleanly too")
    func deepObjects() throws {
        let input = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        let e = try #require(parseError(bytes: input))
        #expect(e.message.contains("maximum depth"))
    }

    @Test("the parser is iterative: 100,000 open arrays under a huge limit reach end of input without recursion")
    func iterativeUnderHugeLimit() throws {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let e = try #require(parseError(bytes: input, maxDepth: .max))
        #expect(e.message.hasPrefix("unexpected end of input"))
        #expect(e.offset == 100_000)
    }

    @Test("nesting exactly at the limit parses; one more level is rejected")
    func limitIsInclusive() throws {
        let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(parseError(ok) == nil)
        let tooDeep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        #expect(parseError(tooDeep)?.message.contains("maximum depth") == true)
        #expect(parseError(#"{"a":{"b":[1]}}"#, maxDepth: 3) == nil)
        #expect(parseError(#"{"a":{"b":[1]}}"#, maxDepth: 2) != nil)
        #expect(parseError("1", maxDepth: 0) == nil)
        #expect(parseError("[]", maxDepth: 0) != nil)
    }
}
