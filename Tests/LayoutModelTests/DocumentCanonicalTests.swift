import JSON
import Testing
@testable import LayoutModel

@Suite("Canonical form")
struct DocumentCanonicalTests {
    @Test("array views and constraints become objects keyed by id; array entries lose id; #index for the rest")
    func arrays() {
        let input = DocTest.json("""
        {"direction": "ltr",
         "views": [{"id": "root", "frame": {"width": 200}}, {"parent": "root", "id": "a"}],
         "constraints": [{"first": "a.left", "second": "root.left"}, "a.width == 10",
                         {"id": "top", "first": "a.top", "second": "root.top"}],
         "flags": {"x": true}}
        """)
        let expected = DocTest.json("""
        {"direction": "ltr",
         "views": {"root": {"frame": {"width": 200}}, "a": {"parent": "root"}},
         "constraints": {"#0": {"first": "a.left", "second": "root.left"}, "#1": "a.width == 10",
                         "top": {"first": "a.top", "second": "root.top"}},
         "flags": {"x": true}}
        """)
        #expect(DocumentParser.canonicalize(input) == expected)
    }

    @Test("a document already canonical is unchanged, key order included")
    func idempotent() {
        let input = DocTest.json("""
        {"views": {"z": {}, "a": {"parent": "z"}}, "delegate": {"c": true},
         "constraints": {"c": {"expr": "a.width == 1", "activation": "delegate"}}, "dialect": "mag"}
        """)
        #expect(DocumentParser.canonicalize(input) == input)
        #expect(DocumentParser.canonicalize(DocumentParser.canonicalize(input)) == input)
    }

    @Test("an id field equal to its key is dropped from keyed entries")
    func keyedIDDropped() {
        let input = DocTest.json(#"{"views": {"root": {"id": "root"}}, "constraints": {"c": {"id": "c", "expr": "root.width == 1"}}}"#)
        let expected = DocTest.json(#"{"views": {"root": {}}, "constraints": {"c": {"expr": "root.width == 1"}}}"#)
        #expect(DocumentParser.canonicalize(input) == expected)
    }

    @Test("the canonical form of a valid array document parses to the same document")
    func sameDocument() throws {
        let input = DocTest.json("""
        {"views": [{"id": "root", "frame": {"width": 100, "height": 100}}, {"id": "a", "parent": "root"},
                   {"id": "b", "parent": "root"}],
         "constraints": [{"align": "top", "views": ["a", "b"]}, {"id": "w", "first": "a.width", "constant": 5}]}
        """)
        let direct = DocumentParser.parse(input)
        let canonical = DocumentParser.parse(DocumentParser.canonicalize(input))
        #expect(direct == canonical)
        let doc = try direct.get()
        #expect(doc.constraints.map(\.id) == ["#0", "w"])
    }

    @Test("canonicalize never traps on odd input")
    func oddInput() {
        #expect(DocumentParser.canonicalize(.number(1)) == .number(1))
        let odd = DocTest.json(#"{"views": [1, {"id": 2}, {"id": "a"}, {"id": "a"}], "constraints": 3}"#)
        #expect(DocumentParser.canonicalize(odd) == DocTest.json(#"{"views": {"a": {}}, "constraints": {}}"#))
    }
}
