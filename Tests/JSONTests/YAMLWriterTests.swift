import Testing
import JSON
import TestSupport

@Suite("YAMLWriter: a JSON value as block YAML that reads back as the same value")
struct YAMLWriterTests {
    @Test("objects and arrays nest in block style, empty ones in flow style, keys in their order")
    func blockStyle() {
        let value = json(#"""
            {"openapi": "3.1.0", "info": {"title": "layoutd", "version": "1"},
             "tags": [{"name": "solve", "x": [1, [2, 3]]}, "plain"], "empty": {}, "none": [], "n": null,
             "b": false}
            """#)
        #expect(YAMLWriter.string(value) == """
            openapi: 3.1.0
            info:
              title: layoutd
              version: "1"
            tags:
              - name: solve
                x:
                  - 1
                  - - 2
                    - 3
              - plain
            empty: {}
            none: []
            "n": null
            b: false

            """)
    }

    @Test("a string a reader would take for a number, boolean, null or syntax is double-quoted")
    func quoting() {
        let quoted = ["200", "1.5", "1e3", "0x1F", "true", "Yes", "NO", "on", "Off", "null", "y", "N", "~", "",
                      "a: b", "a #b", "#x", "-x", "- x", "?x", "'x'", "\"x\"", "{x}", "[x]", "*x", "&x", "!x",
                      "|x", ">x", "%x", "@x", "`x`", " lead", "trail ", "2001-12-14", "12:30", "1.", "1..2",
                      "/v1/sessions/{id}", "$ref", "é", "x\u{85}y", "tab\there"]
        for s in quoted {
            let line = YAMLWriter.string(.object(JSONObject([("k", .string(s))])))
            #expect(line.hasPrefix("k: \""), "\(s.debugDescription) was written \(line.debugDescription)")
        }
        for s in ["GET", "text/plain", "application/problem+json", "a, b (c) - d_e.f", "3.1.0", "127.0.0.1", "Nope"] {
            #expect(YAMLWriter.string(.object(JSONObject([("k", .string(s))]))) == "k: \(s)\n")
        }
        #expect(YAMLWriter.string(.object(JSONObject([("200", .string("ok")), ("$ref", .string("#/a"))])))
                == "\"200\": ok\n\"$ref\": \"#/a\"\n")
        #expect(YAMLWriter.string(.string("a\u{2028}b\u{1}\"\\")) == "\"a\\u2028b\\u0001\\\"\\\\\"\n")
    }

    @Test("a multi-line string is a literal block whose chomping keeps its final line breaks")
    func literalBlocks() {
        let value = JSONValue.object(JSONObject([
            ("none", .string("a\n  b")), ("one", .string("a\n\nb\n")), ("two", .string("a\n\n")),
            ("spaced", .string(" a\nb")), ("blank", .string("a\n  \nb")),
        ]))
        #expect(YAMLWriter.string(value) == """
            none: |-
              a
                b
            one: |
              a

              b
            two: |+
              a

            spaced: " a\\nb"
            blank: "a\\n  \\nb"

            """)
    }

    @Test("numbers are written as JSON writes them, with a dot before any exponent (beyond 2^53, Swift's own form)")
    func numbers() {
        let value = json(#"[0, -3, 100, 0.1, 1.5e300, 1e-7, -2.5e-300, 9007199254740993]"#)
        #expect(YAMLWriter.string(value) == """
            - 0
            - -3
            - 100
            - 0.1
            - 1.5e+300
            - 1.0e-07
            - -2.5e-300
            - 9007199254740992.0

            """)
    }

    @Test("PyYAML reads every kind of value back as the JSON it was written from")
    func readBack() throws {
        var strings: [JSONValue] = ["200", "1.5", "true", "Yes", "null", "~", "", "a: b", "#x", "- x", " lead",
                                    "trail ", "2001-12-14", "12:30", "3.1.0", "é😀", "x\u{85}y\u{2028}z",
                                    "\u{FEFF}bom", "ctl\u{1}\u{7F}", "cr\r\nlf", "tab\there", "a\n  b", "a\n\nb\n",
                                    "a\n\n", "\n\nlead", " a\nb", "a\n  \nb", "x\ty\nz", "#comment\n- item\n"]
            .map { .string($0) }
        strings.append(contentsOf: [.number(1e-7), .number(-0.5), .number(1.5e300), .number(123456789), .bool(true),
                                    .null, .array([]), .object(JSONObject())])
        let keys = ["200", "$ref", "a: b", "", "true", "/v1/sessions/{id}", "multi\nline", String(repeating: "k", count: 1100)]
        let value = JSONValue.object(JSONObject([
            ("strings", .array(strings)),
            ("keys", .object(JSONObject(keys.map { ($0, .string($0)) }))),
            ("nested", .array([.array([.array([.number(1)]), .object(JSONObject([("a", .array(strings))]))])])),
            ("inMapping", .object(JSONObject(strings.enumerated().map { ("k\($0.offset)", $0.element) }))),
        ]))
        let yaml = YAMLWriter.string(value)
        let back = try JSONParser.parse(try YAMLReader.jsonText(ofYAML: yaml))
        #expect(back == value, "read back differently:\n\(yaml)")
        #expect(try JSONParser.parse(try YAMLReader.jsonText(ofYAML: YAMLWriter.string(.string("a\nb\n")))) == .string("a\nb\n"))
    }
}
