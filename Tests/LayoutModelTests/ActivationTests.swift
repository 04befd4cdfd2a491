import JSON
import Testing
@testable import LayoutModel

@Suite("Activation rules and predicates")
struct ActivationTests {
    static let views: ViewLookup = [
        "root": View(id: "root", frame: FrameSpec(width: 375, height: 667)),
        "fit": View(id: "fit", frame: FrameSpec(width: 320)),
        "a": View(id: "a", parent: "root"),
        "b": View(id: "b", parent: "root"),
    ]

    func parse(_ text: String) -> Result<Predicate, [EntryProblem]> {
        PredicateParser.parse(text, views: Self.views)
    }

    func predicate(_ text: String) -> Predicate? { try? parse(text).get() }

    func codes(_ text: String) -> [String] {
        guard case .failure(let e) = parse(text) else { return [] }
        return e.map(\.code)
    }

    @Test("rule names parse to their activation; the default is always")
    func names() throws {
        for (name, rule) in ActivationParser.names {
            #expect(try ActivationParser.parse(.string(name), pointer: "/p", views: Self.views).get() == rule)
        }
        let doc = try #require(DocTest.document(#"{"views": {"a": {}}, "constraints": {"c": {"first": "a.width", "constant": 1}}}"#))
        #expect(doc.constraints[0].activation == .always)
        #expect(doc.constraints[0].active == nil)
    }

    @Test("{when} parses the predicate into the entry")
    func whenObject() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"root": {"frame": {"width": 10}}, "a": {"parent": "root"}}, "flags": {"f": true},
         "constraints": {"c": {"first": "a.width", "constant": 1, "activation": {"when": "flag(f) && root.width >= 600"}}}}
        """))
        #expect(doc.constraints[0].activation == .when(.and(.flag("f"), .compare(view: "root", dimension: .width, op: .greaterOrEqual, value: 600))))
    }

    @Test("activation problems: unknown field, missing when, wrong types")
    func activationProblems() {
        func found(_ v: JSONValue) -> [String] {
            guard case .failure(let e) = ActivationParser.parse(v, pointer: "/c/activation", views: Self.views) else { return [] }
            return e.problems.map { "\($0.pointer) \($0.code)" }
        }
        #expect(found(DocTest.json(#"{"if": "true"}"#)) == ["/c/activation/if unknown_field", "/c/activation/when missing_field"])
        #expect(found(DocTest.json(#"{"when": 1}"#)) == ["/c/activation/when invalid_type"])
        #expect(found(.number(1)) == ["/c/activation invalid_type"])
        #expect(found(.string("Always")) == ["/c/activation invalid_value"])
        #expect(found(DocTest.json(#"{"when": "visible(a) &&"}"#)) == ["/c/activation/when syntax"])
    }

    @Test("atoms: visible, hidden, flag, true, false, comparisons in both orders")
    func atoms() {
        #expect(predicate("visible(a)") == .visible("a"))
        #expect(predicate(" hidden( b ) ") == .hidden("b"))
        #expect(predicate("flag(editing)") == .flag("editing"))
        #expect(predicate(#"flag("dark mode")"#) == .flag("dark mode"))
        #expect(predicate("true") == .constant(true))
        #expect(predicate("root.height != 667") == .compare(view: "root", dimension: .height, op: .notEqual, value: 667))
        #expect(predicate("600 > root.width") == .compare(view: "root", dimension: .width, op: .less, value: 600))
        #expect(predicate("-1.5e2 <= root.width") == .compare(view: "root", dimension: .width, op: .greaterOrEqual, value: -150))
        #expect(predicate("fit.width==320") == .compare(view: "fit", dimension: .width, op: .equal, value: 320))
    }

    @Test("precedence: ! binds tightest, then comparisons, then &&, then ||")
    func precedence() {
        let a = Predicate.visible("a"), b = Predicate.visible("b"), f = Predicate.flag("f")
        #expect(predicate("visible(a) || visible(b) && flag(f)") == .or(a, .and(b, f)))
        #expect(predicate("visible(a) && visible(b) || flag(f)") == .or(.and(a, b), f))
        #expect(predicate("!visible(a) && visible(b)") == .and(.not(a), b))
        #expect(predicate("!(visible(a) && visible(b))") == .not(.and(a, b)))
        #expect(predicate("!!flag(f)") == .not(.not(f)))
        let w = Predicate.compare(view: "root", dimension: .width, op: .less, value: 600)
        #expect(predicate("root.width < 600 && flag(f) || !flag(f)") == .or(.and(w, f), .not(f)))
        #expect(predicate("(visible(a) || visible(b)) && flag(f)") == .and(.or(a, b), f))
        #expect(predicate("visible(a) || visible(b) || flag(f)") == .or(.or(a, b), f))
    }

    @Test("syntax errors are syntax with the column in the detail")
    func syntaxErrors() throws {
        for text in ["", "visible(a) &&", "visible(a", "visible()", "visible(a) & visible(b)", "root.width < ",
                     "(flag(f)", "flag(f))", "unknown(a)", "root.width", "5", "root.depth < 3",
                     "root.width < 600 < 700", "!root.width < 600", "root.width < root.height", "1 < 2",
                     "flag(f) < 3", #"flag("open)"#, "visible(a) visible(b)"] {
            #expect(codes(text) == ["syntax"], "\(text)")
        }
        guard case .failure(let e) = parse("visible(a) && @") else { Issue.record("accepted"); return }
        #expect(e[0].detail.hasPrefix("column 15:"))
        #expect(e[0].pointer == "")
    }

    @Test("views named in a predicate must exist: unknown_view, all of them")
    func unknownViews() {
        #expect(codes("visible(x) || hidden(y) || z.width > 3") == ["unknown_view", "unknown_view", "unknown_view"])
        #expect(codes("visible(a)") == [])
    }

    @Test("only a root's input sizes may be compared: solved_size_in_predicate")
    func solvedSizes() {
        #expect(codes("fit.height > 1") == ["solved_size_in_predicate"])   // root without input height
        #expect(codes("a.width > 1") == ["solved_size_in_predicate"])      // not a root
        #expect(codes("fit.width > 1 && root.height < 2") == [])
    }

    @Test("predicate problems in a document point at /activation/when")
    func inDocument() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {}, "a": {"parent": "root"}}, "constraints": {"c": {"first": "a.width", "constant": 1,
          "activation": {"when": "root.width < 600 || visible(zz)"}}}}
        """) == ["/constraints/c/activation/when solved_size_in_predicate", "/constraints/c/activation/when unknown_view"])
    }

    @Test("nesting and length are limited: deep or huge predicates are syntax problems, never a crash")
    func deep() {
        let ok = String(repeating: "(", count: 60) + "flag(f)" + String(repeating: ")", count: 60)
        #expect(predicate(ok) == .flag("f"))
        let tooDeep = String(repeating: "(", count: 100_000) + "flag(f)" + String(repeating: ")", count: 100_000)
        #expect(codes(tooDeep) == ["syntax"])
        #expect(codes(String(repeating: "!", count: 100_000) + "flag(f)") == ["syntax"])
        #expect(predicate(Array(repeating: "flag(f)", count: 400).joined(separator: " || ")) != nil)
        #expect(codes(Array(repeating: "flag(f)", count: 5000).joined(separator: " && ")) == ["syntax"])
    }
}
