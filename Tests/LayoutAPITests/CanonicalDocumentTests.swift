import TestSupport
import Testing
import JSON
import LayoutModel
@testable import LayoutAPI

@Suite("Canonical document text")
struct CanonicalDocumentTests {
    static func canonical(_ text: String) throws -> JSONValue {
        DocumentParser.canonicalize(try JSONParser.parse(text))
    }

    @Test("the text is the compact JSON of the canonical value, and reads back as it")
    func roundTrip() throws {
        let value = try Self.canonical(Docs.stack)
        let doc = CanonicalDocument(value)
        #expect(doc.bytes == JSONWriter.serialize(value))
        #expect(doc.json == value)
        #expect(doc.count(.views) == 5 && doc.count(.constraints) == 11)
        #expect(doc.member(.views, at: 2) == value["views"]?["badge"])
        #expect(doc.member(.constraints, at: 10) == value["constraints"]?["b-wide"])
        #expect(doc.member(.constraints, at: 11) == nil)
    }

    @Test("replacing members, longer and shorter, in both groups keeps every other member where it is")
    func replace() throws {
        var value = try Self.canonical(Docs.stack)
        var doc = CanonicalDocument(value)
        let edits: [(CanonicalDocument.Group, Int, String, String)] = [
            (.constraints, 0, "h-top", #"{"first": "header.top", "second": "root.top", "constant": 123456.5, "priority": 999}"#),
            (.views, 0, "root", #"{"frame": {"width": 1}}"#),
            (.constraints, 10, "b-wide", #""b.width == 1""#),
            (.views, 4, "b", #"{"parent": "root", "hidden": true, "intrinsicSize": {"width": 60, "height": 30}}"#),
            (.constraints, 5, "a-top", #"{}"#),
        ]
        for (group, position, id, text) in edits {
            let member = try JSONParser.parse(text)
            doc.replace(group, at: position, with: member)
            value.modifyObject { top in
                let key = group == .views ? "views" : "constraints"
                top[key]!.modifyObject { $0[id] = member }
            }
            #expect(doc.bytes == JSONWriter.serialize(value))
            for p in 0..<doc.count(.views) {
                #expect(doc.member(.views, at: p) == value["views"]?.objectValue?.values[p])
            }
            for p in 0..<doc.count(.constraints) {
                #expect(doc.member(.constraints, at: p) == value["constraints"]?.objectValue?.values[p])
            }
        }
    }

    @Test("300 random replacements, folded into the text every few: text and members stay exact")
    func manyReplacements() throws {
        var value = try Self.canonical(Docs.stack)
        var doc = CanonicalDocument(value)
        var rng = SeededGenerator(seed: 9)
        let texts = [#"{}"#, #""a.width == 1""#, #"{"frame": {"width": 12345.25}}"#, #"{"constant": -1}"#,
                     #"{"first": "header.top", "second": "root.top", "constant": 10, "priority": 999, "id": "x"}"#]
        for step in 0..<300 {
            let group: CanonicalDocument.Group = Bool.random(using: &rng) ? .views : .constraints
            let key = group == .views ? "views" : "constraints"
            let position = Int.random(in: 0..<doc.count(group), using: &rng)
            let member = try JSONParser.parse(texts.randomElement(using: &rng)!)
            doc.replace(group, at: position, with: member)
            value.modifyObject { top in
                top[key]!.modifyObject { members in members[members.keys[position]] = member }
            }
            if step % 7 == 0 { #expect(doc.bytes == JSONWriter.serialize(value), "step \(step)") }
            #expect(doc.member(group, at: position) == member)
            let other = Int.random(in: 0..<doc.count(.constraints), using: &rng)
            #expect(doc.member(.constraints, at: other) == value["constraints"]?.objectValue?.values[other], "step \(step)")
            if step % 50 == 49 {
                doc.fold()
                #expect(doc.bytes == JSONWriter.serialize(value), "step \(step) folded")
            }
        }
        #expect(doc.json == value)
    }
}
