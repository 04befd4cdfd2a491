import Foundation
import JSON
import Testing
import TestSupport
@testable import LayoutAPI

/// `NumberPatch.body` reads the two lanes' patches from the bytes: only texts that the parser
/// reads as that shape, with the same id and numbers, and a PATCH answers the same either way.
@Suite("Constant and size patches read from the request bytes")
struct NumberPatchBodyTests {
    /// The lane's patch that the parsed tree `v` is, if it has exactly that shape.
    static func reference(_ v: JSONValue) -> NumberPatch.Body? {
        guard case .object(let top) = v, top.count == 1, case .object(let members) = top.values[0],
              members.count == 1, case .object(let fields) = members.values[0], fields.count == 1 else { return nil }
        let id = members.keys[0]
        switch (top.keys[0], fields.keys[0], fields.values[0]) {
        case ("constraints", "constant", .number(let x)):
            return .constant(id: id, value: x)
        case ("views", "frame", .object(let sizes)):
            var width: Double?, height: Double?
            for (key, value) in sizes.entries {
                guard case .number(let x) = value else { return nil }
                switch key {
                case "width": width = x
                case "height": height = x
                default: return nil
                }
            }
            return width == nil && height == nil ? nil
                : .size(id: id, width: width, height: height, heightFirst: sizes.count == 2 && sizes.keys[0] == "height")
        default:
            return nil
        }
    }

    /// Whether `a` and `b` are the same patch, numbers compared bit for bit.
    static func same(_ a: NumberPatch.Body?, _ b: NumberPatch.Body?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.constant(let i, let x)?, .constant(let j, let y)?): return i == j && x.bitPattern == y.bitPattern
        case (.size(let i, let w1, let h1, let f1)?, .size(let j, let w2, let h2, let f2)?):
            return i == j && w1?.bitPattern == w2?.bitPattern && h1?.bitPattern == h2?.bitPattern && f1 == f2
        default: return false
        }
    }

    /// When the scanner reads `bytes`, the parser reads them too, as the same patch.
    static func expectAgrees(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let read = NumberPatch.body(bytes) else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let parsed = try? JSONParser.parse(bytes) else {
            Issue.record("the scanner read text the parser rejects: \(text)", sourceLocation: sourceLocation)
            return
        }
        #expect(same(read, reference(parsed)), "\(text)", sourceLocation: sourceLocation)
        // The tree a body the lane cannot apply is classified from, made without parsing again.
        #expect(read.tree == parsed, "\(text)", sourceLocation: sourceLocation)
    }

    static let taken: [(String, NumberPatch.Body)] = [
        (#"{"constraints":{"s0r4b-l":{"constant":9.0}}}"#, .constant(id: "s0r4b-l", value: 9)),
        (#" { "constraints" : { "c1" : { "constant" : -2.5e1 } } } "#, .constant(id: "c1", value: -25)),
        ("{\n\t\"constraints\":{\"c\":{\"constant\":0}}\r\n}", .constant(id: "c", value: 0)),
        (#"{"views":{"root":{"frame":{"width":867}}}}"#, .size(id: "root", width: 867, height: nil)),
        (#"{"views":{"root":{"frame":{"height":1e2, "width":3.25}}}}"#, .size(id: "root", width: 3.25, height: 100, heightFirst: true)),
        (#"{"views":{"r":{"frame":{"width":-1}}}}"#, .size(id: "r", width: -1, height: nil)),
        (#"{"constraints":{"c":{"constant":1e400}}}"#, .constant(id: "c", value: .infinity)),
    ]

    static let left: [String] = [
        #"{"constraints":{"c1":{"constant":1},"c2":{"constant":2}}}"#,
        #"{"constraints":{"c1":{"constant":1,"priority":750}}}"#,
        #"{"constraints":{"c\u0031":{"constant":1}}}"#,
        #"{"constraints":{"c1":{"constant":"1"}}}"#,
        #"{"constraints":{"c1":{"constant":01}}}"#,
        #"{"constraints":{"c1":{"constant":1}}} x"#,
        #"{"constraints":{"c1":{"constant":1}}"#,
        #"{"constraints":{"c1":{"constant":1}},"views":{}}"#,
        #"{"views":{"root":{"frame":{"width":1,"width":2}}}}"#,
        #"{"views":{"root":{"frame":{}}}}"#,
        #"{"views":{"root":{"frame":{"x":1}}}}"#,
        #"{"views":{"root":{"frame":{"width":1},"hidden":true}}}"#,
        #"{"views":{"root":{"hidden":true}}}"#,
        "\u{FEFF}{\"constraints\":{\"c1\":{\"constant\":1}}}",
        "",
    ]

    @Test("the lanes' patches are read with their id and numbers, in any spacing")
    func taken() {
        for (text, want) in Self.taken {
            #expect(Self.same(NumberPatch.body(Array(text.utf8)), want), "\(text)")
            Self.expectAgrees(Array(text.utf8))
        }
    }

    @Test("anything else is left to the parser")
    func left() {
        for text in Self.left {
            #expect(NumberPatch.body(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test("50,000 mutated bodies: whatever the scanner reads, the parser reads the same")
    func mutations() {
        var rng = SeededGenerator(seed: 11)
        let alphabet = Array(#"{}[]:,"\ -+.eE0123456789abcdefghijklmnopqrstuvwxyz_"#.utf8) + [0x09, 0x0A, 0xC3, 0x00]
        let bases = Self.taken.map { Array($0.0.utf8) }
        for _ in 0..<50_000 {
            var bytes = bases[Int(rng.next() % UInt64(bases.count))]
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = Int(rng.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                switch rng.next() % 3 {
                case 0 where at < bytes.count: bytes[at] = byte
                case 1 where at < bytes.count: bytes.remove(at: at)
                default: bytes.insert(byte, at: at)
                }
            }
            Self.expectAgrees(bytes)
        }
    }

    /// The same patch with the id's first letter escaped: the parser's path.
    static func escaped(_ patch: String, id: String) -> String {
        let code = String(id.unicodeScalars.first!.value, radix: 16)
        let escapedID = "\\u" + String(repeating: "0", count: 4 - code.count) + code + id.dropFirst()
        return patch.replacingOccurrences(of: "\"\(id)\"", with: "\"\(escapedID)\"")
    }

    @Test("a PATCH answers the same through the lane and through the parser", arguments: [
        (#"{"views":{"root":{"frame":{"width":500}}}}"#, "root"),
        (#"{"views":{"root":{"frame":{"height":310,"width":240}}}}"#, "root"),
        (#"{"views":{"root":{"frame":{"width":-5}}}}"#, "root"),
        (#"{"views":{"root":{"frame":{"width":1e400}}}}"#, "root"),
        (#"{"views":{"red":{"frame":{"width":20}}}}"#, "red"),
        (#"{"views":{"nobody":{"frame":{"width":20}}}}"#, "nobody"),
        (#"{"constraints":{"gap":{"constant":12}}}"#, "gap"),
        (#"{"constraints":{"gap":{"constant":8}}}"#, "gap"),
        (#"{"constraints":{"gap":{"constant":1e9}}}"#, "gap"),
        (#"{"constraints":{"pin":{"constant":3}}}"#, "pin"),
        (#"{"constraints":{"nothing":{"constant":3}}}"#, "nothing"),
    ])
    func sameAnswers(_ patch: String, _ id: String) {
        Self.expectSameAnswers(Self.plainDocument, patch, id)
    }

    /// Activation rules, a hidden view, a `when` rule, a required conflict and `strict`: the
    /// engine's in-place paths must decline exactly where replacing the member does something
    /// else.
    @Test("the same through the lane and the parser: activation, when rules, conflicts, strict", arguments: [
        (#"{"constraints":{"vis":{"constant":5}}}"#, "vis", ""),
        (#"{"constraints":{"inv":{"constant":7}}}"#, "inv", ""),
        (#"{"constraints":{"wide":{"constant":250}}}"#, "wide", ""),
        (#"{"constraints":{"cap":{"constant":250}}}"#, "cap", ""),
        (#"{"constraints":{"cap":{"constant":150}}}"#, "cap", ""),
        (#"{"constraints":{"cap":{"constant":150}}}"#, "cap", "strict=true"),
        (#"{"constraints":{"soft":{"constant":12}}}"#, "soft", "frames=all"),
        (#"{"views":{"root":{"frame":{"width":640}}}}"#, "root", ""),
        (#"{"views":{"root":{"frame":{"width":420}}}}"#, "root", "absolute=true"),
    ])
    func sameAnswersWithRules(_ patch: String, _ id: String, _ query: String) {
        Self.expectSameAnswers(Self.rulesDocument(cap: 300), patch, id, query: query)
    }

    @Test("the same through the lane and the parser on a session whose constraints are broken already", arguments: [
        (#"{"constraints":{"soft":{"constant":12}}}"#, "soft"),
        (#"{"constraints":{"cap":{"constant":100}}}"#, "cap"),
        (#"{"constraints":{"cap":{"constant":400}}}"#, "cap"),
        (#"{"views":{"root":{"frame":{"width":300}}}}"#, "root"),
    ])
    func sameAnswersWhenBroken(_ patch: String, _ id: String) {
        Self.expectSameAnswers(Self.rulesDocument(cap: 150), patch, id)
    }

    static func rulesDocument(cap: Int) -> String {
        """
        {"views": {"root": {"frame": {"width": 600, "height": 400}},
                   "a": {"parent": "root", "intrinsicSize": {"width": 40, "height": 20}},
                   "b": {"parent": "root", "hidden": true, "intrinsicSize": {"width": 30, "height": 20}},
                   "c": {"parent": "root"}},
         "constraints": {
           "a-l": {"first": "a.leading", "second": "root.leading", "constant": 10},
           "a-t": {"first": "a.top", "second": "root.top", "constant": 10},
           "b-t": {"first": "b.top", "second": "a.bottom", "constant": 4},
           "vis": {"first": "b.leading", "second": "a.trailing", "constant": 8, "activation": "bothVisible"},
           "inv": {"first": "b.leading", "second": "root.leading", "constant": 3, "activation": "firstInvisible"},
           "wide": {"first": "c.width", "constant": 200, "activation": {"when": "root.width > 500"}},
           "c-l": {"first": "c.leading", "second": "a.leading"},
           "c-t": {"first": "c.top", "second": "b.bottom", "constant": 6},
           "c-h": {"first": "c.height", "constant": 30},
           "cap": {"first": "c.width", "constant": \(cap), "relation": "<="},
           "soft": {"first": "c.leading", "second": "root.leading", "constant": 20, "priority": 250}}}
        """
    }

    static let plainDocument = """
        {"views": {"root": {"frame": {"width": 400, "height": 300}},
                   "red": {"parent": "root", "intrinsicSize": {"width": 50, "height": 20}},
                   "blue": {"parent": "root"}},
         "constraints": {
           "gap": {"first": "blue.leading", "second": "red.trailing", "constant": 8},
           "pin": {"expr": "red.leading == root.leading + 10"},
           "top": {"first": "red.top", "second": "root.top", "constant": 4},
           "row": {"first": "blue.centerY", "second": "red.centerY"},
           "end": {"first": "blue.trailing", "second": "root.trailing", "constant": -10},
           "h": {"first": "blue.height", "second": "red.height"}}}
        """

    /// PATCHes `patch` to one session and the same with `id` escaped (the parser's path) to
    /// another, both made from `document`: same status, body, ETag, and session afterwards.
    static func expectSameAnswers(_ document: String, _ patch: String, _ id: String, query: String = "",
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let c = Client()
        #expect(c.put("lane", document).status == 201)
        #expect(c.put("parsed", document).status == 201)
        let slow = Self.escaped(patch, id: id)
        #expect(NumberPatch.body(Array(patch.utf8)) != nil)
        #expect(NumberPatch.body(Array(slow.utf8)) == nil)
        // One request id for both: a problem body names it.
        let id = [(name: "X-Request-Id", value: "same")]
        let a = c.patch("/v1/sessions/lane", patch, query: query, headers: id)
        let b = c.patch("/v1/sessions/parsed", slow, query: query, headers: id)
        #expect(a.status == b.status, "\(patch)", sourceLocation: sourceLocation)
        #expect(a.text == b.text, "\(patch)", sourceLocation: sourceLocation)
        // Two sessions: the same revision, each with its own generation.
        #expect(a.header("ETag").etagRevision == b.header("ETag").etagRevision, sourceLocation: sourceLocation)
        let ga = c.send("GET", "/v1/sessions/lane"), gb = c.send("GET", "/v1/sessions/parsed")
        #expect(ga.text.replacingOccurrences(of: #""id":"lane""#, with: #""id":"parsed""#) == gb.text,
                "\(patch): the sessions differ afterwards", sourceLocation: sourceLocation)
        T.expectSameAsFresh(c, "lane", patch, sourceLocation: sourceLocation)
    }
}
