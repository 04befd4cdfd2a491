import JSON
import Testing
@testable import LayoutModel

@Suite("Document constraints")
struct DocumentConstraintsTests {
    static let views = #""views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}, "b": {"parent": "root"}}"#

    @Test("array-form constraints without id get #<index>, 0-based; ids given are kept")
    func arrayIDs() throws {
        let doc = try #require(DocTest.document("""
        {\(Self.views), "constraints": [
          {"first": "a.width", "constant": 10},
          {"id": "h", "first": "a.height", "constant": 20},
          {"align": "top", "views": ["a", "b"]}
        ]}
        """))
        #expect(doc.constraints.map(\.id) == ["#0", "h", "#2"])
        #expect(doc.constraints[0].items.count == 1)
    }

    @Test("keyed constraints keep document order and their common fields")
    func commonFields() throws {
        let doc = try #require(DocTest.document("""
        {\(Self.views), "constraints": {
          "z": {"first": "a.width", "constant": 10, "priority": "low", "group": "g1", "identifier": "w",
                "active": false, "activation": "manual"},
          "a": {"align": "top", "views": ["a", "b"], "activation": "bothVisible", "priority": 999}
        }}
        """))
        #expect(doc.constraints.map(\.id) == ["z", "a"])
        let z = doc.constraints[0]
        #expect(z.activation == .manual && z.active == false && z.group == "g1" && z.identifier == "w")
        #expect(z.items.map(\.priority) == [250])
        #expect(doc.constraints[1].activation == .bothVisible)
        #expect(doc.constraints[1].items.map(\.priority) == [999])
    }

    @Test("duplicate and invalid constraint ids; a dot is not allowed in constraint ids")
    func constraintIDs() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": [
          {"id": "#1", "first": "a.width", "constant": 1},
          {"first": "a.width", "constant": 2},
          {"id": "c.1", "first": "a.width", "constant": 3},
          {"id": 5, "first": "a.width", "constant": 4}
        ]}
        """) == ["/constraints/1 duplicate_id", "/constraints/2/id invalid_id", "/constraints/3/id invalid_type"])
        #expect(DocTest.pointersAndCodes(#"{\#(Self.views), "constraints": {"c.1": {"first": "a.width", "constant": 1}}}"#)
                == ["/constraints/c.1 invalid_id"])
    }

    @Test("an object with none of the form keys is unknown_constraint_form; other types are invalid_type")
    func unknownForm() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"c1": {"priority": 5, "lhs": "a.width"}, "c2": 7, "c3": null}}
        """) == ["/constraints/c1 unknown_constraint_form", "/constraints/c2 invalid_type", "/constraints/c3 invalid_type"])
        #expect(DocTest.pointersAndCodes(#"{\#(Self.views), "constraints": "a.width == 1"}"#) == ["/constraints invalid_type"])
    }

    @Test("fields of another form, or of no form, are unknown_field")
    func formFields() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {
          "c1": {"first": "a.width", "constant": 1, "views": ["a"], "expr": "a.width == 1"},
          "c2": {"align": "top", "views": ["a", "b"], "spacing": 3, "note": "x"},
          "c3": {"id": "c4", "first": "a.width", "constant": 1}
        }}
        """) == [
            "/constraints/c1/views unknown_field", "/constraints/c1/expr unknown_field",
            "/constraints/c2/spacing unknown_field", "/constraints/c2/note unknown_field",
            "/constraints/c3/id invalid_value",
        ])
    }

    @Test("common fields are validated with pointers into the entry")
    func commonFieldProblems() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"c1": {"first": "a.width", "constant": 1, "priority": 0,
          "active": "yes", "group": 1, "identifier": [], "dialect": "snapkit", "activation": "sometimes"}}}
        """) == [
            "/constraints/c1/priority invalid_priority", "/constraints/c1/active invalid_type",
            "/constraints/c1/group invalid_type", "/constraints/c1/identifier invalid_type",
            "/constraints/c1/dialect invalid_value", "/constraints/c1/activation invalid_value",
        ])
    }

    @Test("compiler problems are prefixed with the entry's pointer and sorted into field order")
    func compilerProblems() {
        let found = DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": [{"active": 1, "first": "a.nothing", "second": "zz.left"}]}
        """)
        #expect(found.first == "/constraints/0/active invalid_type")
        #expect(found.contains("/constraints/0/first unknown_attribute"))
        #expect(found.contains("/constraints/0/second unknown_view"))
    }

    @Test("ConstraintRules applies to every form: a cross-axis object form is rejected")
    func rulesApplied() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"c1": {"first": "a.left", "second": "b.top"}}}
        """) == ["/constraints/c1 cross_axis"])
    }

    @Test("a parent cycle is reported once per cycle, and constraints are not compiled against it")
    func cycles() {
        let found = DocTest.problems("""
        {"views": {"root": {}, "x": {"parent": "root"}, "b": {"parent": "c"}, "c": {"parent": "d"},
                   "d": {"parent": "b"}, "self": {"parent": "self"}, "tail": {"parent": "b"}},
         "constraints": {"c1": {"first": "nobody.width", "constant": 1, "active": "no"}}}
        """)
        #expect(found.map { "\($0.pointer) \($0.code)" } == [
            "/views/b/parent parent_cycle", "/views/self/parent parent_cycle", "/constraints/c1/active invalid_type",
        ])
        #expect(found[0].detail.contains("b → c → d → b"))
        #expect(found[1].detail.contains("self → self"))
    }

    @Test("a cycle in array-form views is pointed at by index")
    func arrayCycle() {
        #expect(DocTest.pointersAndCodes(#"{"views": [{"id": "a", "parent": "b"}, {"id": "b", "parent": "a"}]}"#)
                == ["/views/0/parent parent_cycle"])
    }

    @Test("a long parent chain is fine and a long cycle does not hang")
    func longChains() {
        let n = 5000
        var chain = #"{"views": {"v0": {}"#
        for i in 1..<n { chain += #", "v\#(i)": {"parent": "v\#(i - 1)"}"# }
        #expect(DocTest.problems(chain + "}}").isEmpty)
        var cycle = #"{"views": {"v0": {"parent": "v\#(n - 1)"}"#
        for i in 1..<n { cycle += #", "v\#(i)": {"parent": "v\#(i - 1)"}"# }
        #expect(DocTest.pointersAndCodes(cycle + "}}") == ["/views/v0/parent parent_cycle"])
    }

    @Test("an entry's dialect overrides the document's in the compile context")
    func dialect() throws {
        // Mortar lets a position equal a bare constant; standard does not.
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"c1": {"first": "a.left", "constant": 5}}}
        """) == ["/constraints/c1 position_constant"])
        #expect(DocTest.problems("""
        {\(Self.views), "constraints": {"c1": {"first": "a.left", "constant": 5, "dialect": "mortar"}}}
        """).isEmpty)
        #expect(DocTest.problems("""
        {"dialect": "mortar", \(Self.views), "constraints": {"c1": {"first": "a.left", "constant": 5}}}
        """).isEmpty)
    }

    @Test("an entry for an unknown id in delegate is accepted")
    func delegateUnknownID() throws {
        let doc = try #require(DocTest.document(#"{\#(Self.views), "delegate": {"later": true}}"#))
        #expect(doc.delegate == ["later": true])
    }

    @Test("visual formats: a non-string format, metrics or options of the wrong type")
    func formatFields() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"c1": {"format": 5}, "c2": {"format": "H:[a]", "metrics": [], "options": {}}}}
        """) == ["/constraints/c1/format invalid_type", "/constraints/c2/metrics invalid_type", "/constraints/c2/options invalid_type"])
    }

    @Test("expressions: a non-string expr is invalid_type")
    func exprField() {
        #expect(DocTest.pointersAndCodes(#"{\#(Self.views), "constraints": {"c1": {"expr": ["a.width == 1"]}}}"#)
                == ["/constraints/c1/expr invalid_type"])
    }

    @Test("a string entry and {expr} are expressions; their problems point at the entry and /expr")
    func expressions() throws {
        let doc = try #require(DocTest.document("""
        {\(Self.views), "constraints": {"s": "a.width == 10", "o": {"expr": "b.width == a.width ~ 500"}}}
        """))
        #expect(doc.constraints.map(\.items.count) == [1, 1])
        #expect(doc.constraints[1].items[0].priority == 500)
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"s": "a.width == == 10", "o": {"expr": "a.width === 1"}}}
        """) == ["/constraints/s syntax", "/constraints/o/expr syntax"])
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": ["a.left == b.top"]}
        """) == ["/constraints/0 cross_axis"])
    }

    @Test("a priority both in the expression and in the field is reported")
    func duplicatePriority() {
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"o": {"expr": "a.width == 10 ~ 500", "priority": 600}}}
        """) == ["/constraints/o/priority duplicate_priority"])
    }

    @Test("format entries dispatch to Apple's VFL or, for H( and V(, to the Visually form")
    func formats() throws {
        let doc = try #require(DocTest.document("""
        {\(Self.views), "constraints": {"vfl": {"format": "H:|-8-[a]-[b]", "options": ["alignAllTop"]},
                                        "vis": {"format": "V(|-10-a)"}}}
        """))
        #expect(doc.constraints.map(\.id) == ["vfl", "vis"])
        #expect(!doc.constraints[0].items.isEmpty && !doc.constraints[1].items.isEmpty)
        #expect(DocTest.pointersAndCodes("""
        {\(Self.views), "constraints": {"vfl": {"format": "H:[a]-pad-[b]", "metrics": {"pad": "8"}}}}
        """) == ["/constraints/vfl/metrics/pad invalid_metric"])
    }
}
