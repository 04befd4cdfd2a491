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
}
