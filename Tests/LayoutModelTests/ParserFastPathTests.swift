import JSON
import Testing
@testable import LayoutModel

/// `DocumentParser.parse` takes fast paths for the common case (per-document view tables, the
/// one-item object form compiled and checked in one go, lazily written pointers). These tests hold
/// each fast path to the general code it stands in for: same items, same decisions.
@Suite("Parser fast paths equal the general paths")
struct ParserFastPathTests {
    /// root ← a, b, c, deep ← deeper; a guide g; a second root r2 ← x; cyc1 ↔ cyc2 (a cycle);
    /// orphan under a parent that does not exist.
    static let views: [View] = [
        View(id: "root"), View(id: "a", parent: "root"), View(id: "b", parent: "root"),
        View(id: "c", parent: "root"), View(id: "deep", parent: "a"), View(id: "deeper", parent: "deep"),
        View(id: "g", parent: "root", kind: .guide), View(id: "r2"), View(id: "x", parent: "r2"),
        View(id: "cyc1", parent: "cyc2"), View(id: "cyc2", parent: "cyc1"), View(id: "hang", parent: "cyc1"),
        View(id: "orphan", parent: "nowhere"),
    ]

    static var byID: ViewLookup { ViewLookup(views) }

    static func context(_ dialect: Dialect = .standard, priority: Double? = nil) -> CompileContext {
        var c = CompileContext(views: byID, dialect: dialect, priorityField: priority, maxMagnitude: 1e7)
        c.table = ViewTable(views: views)
        return c
    }

    @Test("each view's root is ConstraintRules.root(of:)")
    func roots() {
        let table = ViewTable(views: Self.views)
        for (i, v) in Self.views.enumerated() {
            let expected = ConstraintRules.root(of: v.id, views: Self.byID)
            #expect((table.root[i] < 0 ? nil : table.ids[table.root[i]]) == expected, "\(v.id)")
        }
    }

    @Test("anchors resolve as AnchorVocabulary.reference does", arguments: [
        "a.top", "a.width", "deeper.centerXWithinMargins", "g.leadingMargin", "a.topAnchor", "a.m_left",
        "a.m_leadingAnchor", "a.baseline", "a.centerXWithinMargin", "a.edges", "a.size", "a.edgeAnchor",
        "nope.top", "a.nope", "a.", ".top", "a", "", "a.b.c", "a..top", "a.top.", "é.top", "a.tóp",
        "a.Top", "a.topMargins", "a.centerXWithinMarginsX", "root.lastBaseline", "x.firstBaseline",
    ])
    func anchors(_ text: String) {
        let table = ViewTable(views: Self.views)
        let expected: (view: String, attribute: Attribute)? = {
            guard case .success(let ref) = AnchorVocabulary.reference(text, views: Self.byID),
                  case .single(let a) = ref.kind else { return nil }
            return (ref.view, a)
        }()
        let got = table.singleAnchor(text)
        #expect(got.map { table.ids[$0.view] } == expected?.view, "\(text)")
        #expect(got?.attribute == expected?.attribute, "\(text)")
    }

    @Test("every attribute name resolves over bytes")
    func attributeNames() {
        for a in Attribute.allCases {
            var name = a.rawValue
            #expect(name.withUTF8 { ViewTable.attribute($0) } == a)
            var longer = a.rawValue + "s"
            #expect(longer.withUTF8 { ViewTable.attribute($0) } == nil)
        }
    }

    /// Object-form entries: plain, edge-case arithmetic, rule breakers, and forms the fast path
    /// leaves to the general compiler.
    static let entries: [String] = [
        #"{"first": "a.leading", "relation": "==", "second": "root.leading", "multiplier": 1, "constant": 16}"#,
        #"{"first": "a.width", "relation": ">=", "constant": 44}"#,
        #"{"first": "a.width", "relation": "lessThanOrEqual", "second": "b.height", "multiplier": 0.5}"#,
        #"{"first": "a.width", "second": "b.width", "multiplier": 0}"#,
        #"{"first": "a.width", "second": "b.width", "multiplier": -0.0, "constant": -0.0}"#,
        #"{"first": "a.width", "second": "a.width", "multiplier": 1}"#,
        #"{"first": "a.width", "second": "a.width", "multiplier": 2, "constant": 3}"#,
        #"{"first": "a.width", "second": "a.width", "multiplier": 1.0000000000001}"#,
        #"{"first": "a.top", "second": "a.top", "multiplier": 0, "constant": 5}"#,
        #"{"first": "a.top", "second": "a.height", "multiplier": 0, "constant": 5}"#,
        #"{"first": "a.top", "second": "deeper.bottom", "constant": -8, "relation": null, "multiplier": null}"#,
        #"{"first": "a.top", "second": null}"#,
        #"{"first": "a.top", "second": "b.left"}"#,
        #"{"first": "a.leading", "second": "b.left"}"#,
        #"{"first": "a.width", "second": "b.left"}"#,
        #"{"first": "a.width", "second": "x.width"}"#,
        #"{"first": "a.width", "second": "cyc1.width"}"#,
        #"{"first": "hang.width", "constant": 3}"#,
        #"{"first": "orphan.width", "constant": 3}"#,
        #"{"first": "g.topMargin", "second": "a.top"}"#,
        #"{"first": "a.top", "second": "g.firstBaseline"}"#,
        #"{"first": "g.top", "second": "a.top", "constant": 4}"#,
        #"{"first": "g.width", "constant": 4}"#,
        #"{"first": "a.topAnchor", "second": "b.m_top"}"#,
        #"{"first": "a.edges", "second": "root.edges", "constant": 8}"#,
        #"{"first": "a.width", "multiplier": [2]}"#,
        #"{"first": "a.width", "constant": [2]}"#,
        #"{"first": "a.width", "constant": 1e9}"#,
        #"{"first": "a.width", "multiplier": 1e9, "second": "b.width"}"#,
        #"{"first": "a.width", "relation": "!="}"#,
        #"{"first": "a.width", "relation": 1}"#,
        #"{"first": "nope.width"}"#,
        #"{"first": "a.nope"}"#,
        #"{"first": 3}"#,
        #"{"second": "a.width"}"#,
    ]

    @Test("the one-item object form compiles as the general compiler and ConstraintRules say")
    func objectForm() {
        for dialect in Dialect.allCases {
            for priority in [nil, 250.0] {
                let context = Self.context(dialect, priority: priority)
                for text in Self.entries {
                    guard case .object(let o) = DocTest.json(text) else { Issue.record("\(text)"); continue }
                    var fields = ObjectFormCompiler.Fields()
                    for (i, key) in o.keys.enumerated() { fields.set(ConstraintField(key), at: i) }
                    let general: [LinearConstraint]? = {
                        guard case .success(let items) = ObjectFormCompiler.compile(o, context: context),
                              ConstraintRules.check(items, context: context).isEmpty else { return nil }
                        return items
                    }()
                    let fast = ObjectFormCompiler.compileCommon(o, fields, context: context, table: context.table!)
                    if let fast {
                        #expect(general == [fast], "\(dialect) \(text)")
                    } else if dialect != .mortar, let general, general.count == 1,
                              !text.contains("Anchor"), !text.contains("m_"), !text.contains("[") {
                        // (Aliases and array multipliers are left to the general compiler.)
                        Issue.record("the fast path left a plain entry to the general path: \(dialect) \(text)")
                    }
                }
            }
        }
    }

    @Test("ConstraintRules.passes is check(...).isEmpty")
    func passes() {
        let texts = [
            "a.left == b.right + 8", "a.top == b.bottom", "a.height == a.width * 0.5", "a.width == b.height",
            "b.top == a.bottom + (root.height - 100) / 4", "a.centerX == root.centerX * 2", "a.width == 100",
            "a.edges == root.edges + 10", "a.leading == b.trailing", "a.leadingMargin == b.centerX",
            "label.firstBaseline == red.centerY", "guide.edges == red.edges", "a.left + a.width == b.right",
            "a.top == b.left * 0 + c.top", "a.left == b.top", "a.leading == b.left", "a.left == 10",
            "guide.topMargin == a.top", "a.top == guide.baseline", "a.width == o1.width",
            "a.width - a.width == 0", "a.width == x.width", "a.edges == 10", "label.width == o1.width + red.width",
        ]
        for dialect in [Dialect.standard, .mortar] {
            var context = ExprFixture.context(dialect)
            let table = ViewTable(views: context.views.all)
            context.table = table
            for text in texts {
                for item in ExprFixture.items(ExprFixture.expr(text, dialect)) {
                    #expect(ConstraintRules.passes(item, dialect: dialect, table: table)
                            == ConstraintRules.check(item, context: context).isEmpty, "\(dialect) \(text)")
                }
            }
        }
    }

    @Test("field names are told apart as the switch on strings did")
    func fieldNames() {
        let names = Array(ConstraintsParser.commonFields) + ConstraintsParser.formFields.values.flatMap { $0 }
        for name in names {
            #expect(ConstraintField(name) != .other, "\(name)")
            for near in [name + "s", String(name.dropLast()), name.uppercased(), " " + name, name + "\u{301}"] {
                #expect(ConstraintField(near) == .other || names.contains(near), "\(near)")
            }
        }
        for (form, fields) in ConstraintsParser.formFields {
            #expect(ConstraintField(form).selectsForm)
            for name in names {
                #expect(ConstraintField(name).isField(ofForm: ConstraintField(form)) == fields.contains(name),
                        "\(name) in \(form)")
            }
        }
        for name in ConstraintsParser.commonFields { #expect(!ConstraintField(name).selectsForm) }
    }

    @Test("ids and pointer tokens: the byte-level checks agree with the character-level ones")
    func idsAndTokens() {
        for id in ["a", "A-b_c#9", "", "a.b", "a/b", "é", "e\u{301}", String(repeating: "x", count: 128),
                   String(repeating: "x", count: 129), "a b"] {
            let valid = IDRules.problem(with: id, what: "a view") == nil
            #expect(valid == (!id.isEmpty && id.unicodeScalars.count <= 128
                              && id.unicodeScalars.allSatisfy(IDRules.isIDScalar)), "\(id)")
        }
        #expect(jsonPointerToken("plain") == "plain")
        #expect(jsonPointerToken("a/b~c") == "a~1b~0c")
        #expect(jsonPointerToken("é") == "é")
        // A '~' or '/' with a combining mark after it is one Character but still a '~' or '/' byte (fuzz-document).
        #expect(jsonPointerToken("a~\u{301}") == "a~0\u{301}")
        #expect(jsonPointerToken("/\u{301}~\u{20DD}") == "~1\u{301}~0\u{20DD}")
    }

    @Test("a document whose views are written as an array compiles the same constraints")
    func arrayFormViews() {
        let constraints = """
        "constraints": {
          "c1": {"first": "a.leading", "second": "root.leading", "constant": 8},
          "c2": {"first": "a.width", "relation": ">=", "constant": 44, "priority": "high"},
          "c3": {"first": "b.top", "second": "a.bottom", "multiplier": 1, "constant": 4, "active": false},
          "c4": {"first": "g.top", "second": "a.edges"},
          "c5": "b.width == a.width * 2",
          "c6": {"first": "b.edges", "second": "root.edges", "constant": [1, 2, 3, 4]}
        }
        """
        let keyed = DocTest.parseDocument("{\"views\": {\(DocTest.smallTree)}, \(constraints)}")
        let array = DocTest.parseDocument("""
        {"views": [{"id": "root", "frame": {"width": 375, "height": 667}}, {"id": "a", "parent": "root"},
                   {"id": "b", "parent": "root"}, {"id": "c", "parent": "root"},
                   {"id": "g", "parent": "root", "kind": "guide"}], \(constraints)}
        """)
        // c4 relates a single anchor to a composite: a problem in both.
        guard case .failure(let e1) = keyed, case .failure(let e2) = array else {
            Issue.record("expected component_mismatch"); return
        }
        #expect(e1.problems == e2.problems)
        #expect(e1.problems.map(\.code) == ["component_mismatch"])
        let valid = constraints.replacingOccurrences(of: "\"c4\": {\"first\": \"g.top\", \"second\": \"a.edges\"},", with: "")
        let d1 = DocTest.document("{\"views\": {\(DocTest.smallTree)}, \(valid)}")
        let d2 = DocTest.document("""
        {"views": [{"id": "root", "frame": {"width": 375, "height": 667}}, {"id": "a", "parent": "root"},
                   {"id": "b", "parent": "root"}, {"id": "c", "parent": "root"},
                   {"id": "g", "parent": "root", "kind": "guide"}], \(valid)}
        """)
        #expect(d1 != nil && d1?.constraints == d2?.constraints)
        #expect(d1?.constraints.map(\.items.count) == [1, 1, 1, 1, 4])
    }
}
