import Testing
import JSON
@testable import LayoutModel

@Suite("Expression compiler: problems")
struct ExpressionErrorTests {
    typealias F = ExprFixture

    @Test("syntax errors give the 1-based column and name what was expected", arguments: [
        ("a.width = 100", 9, "expected '=='"),
        ("a.width == ", 12, "expected a number, an anchor (view.attribute), a view id, '(' or '-', found the end"),
        ("a.width 100", 9, "expected an operator (+ - * /) or a relation"),
        ("a.width == (1 + 2", 18, "expected an operator, ',' or ')'"),
        ("a.size == (1, 2", 16, "to close the tuple opened at column 11"),
        ("a.width == 100 ~", 17, "expected a priority"),
        ("a.width == 100 ~ 750 + 1", 22, "expected the end of the expression, found '+'"),
        ("a.width == 100 b", 16, "expected an operator (+ - * /), a priority marker (~ ! @) or the end"),
        ("a.width ?= 1", 9, "unexpected character '?'"),
        ("a.width |x| 1", 9, "expected a relation |=|, |>| or |<|"),
        ("a.width == b.width == 3", 20, "found '=='"),
        ("a.width > 3", 9, "expected '>='"),
        ("== a.width", 1, "expected a number, an anchor"),
        ("a.width == * 3", 12, "found '*'"),
        ("a.width == 1 ~ (3)", 16, "expected a priority"),
    ])
    func syntax(_ text: String, _ column: Int, _ fragment: String) {
        let p = F.problems(F.expr(text))
        #expect(p.map(\.code) == ["syntax"])
        #expect(p.first?.pointer == "")
        let detail = p.first?.detail ?? ""
        #expect(detail.hasPrefix("at column \(column): "), "\(detail)")
        #expect(detail.contains(fragment), "\(detail)")
    }

    @Test("each semantic problem has its code and, where it has one, the column", arguments: [
        ("zz.width == 1", "unknown_view", "at column 1"),
        ("a.width == zz", "unknown_view", "at column 12"),
        ("foo-bar.width == 1", "unknown_view", "'foo-bar'"),
        ("a.middle == 1", "unknown_attribute", "at column 3"),
        ("a.width == 100 ~ 2000", "invalid_priority", "at column 18"),
        ("a.width == 100 ~ 0", "invalid_priority", "'0'"),
        ("a.width == 100 ~ superHigh", "invalid_priority", "superHigh"),
        ("a.width * b.width == 1", "non_linear", "at column 9"),
        ("a.width == 100 / b.width", "non_linear", "at column 16"),
        ("a.width == (b.width + 1) / (c.width - 2)", "non_linear", "dividing"),
        ("a.width == b.width / 0", "division_by_zero", "at column 20"),
        ("a.width == b.width / (1 - 1)", "division_by_zero", "division by zero"),
        ("a.width == 1 / 0 + b.width", "division_by_zero", "at column 14"),
        ("a.size == b.size / (1, 0)", "division_by_zero", "at column 18"),
        ("a.size == b.center", "component_mismatch", "at column 11"),
        ("a.edges == b.width", "component_mismatch", "b.width"),
        ("a.width == b.size", "component_mismatch", "b.size"),
        ("a.size == (1, 2, 3)", "component_mismatch", "(1, 2, 3)"),
        ("a.width == (1, 2)", "component_mismatch", "(1, 2)"),
        ("a.size * (1, 2, 3) == b.size", "component_mismatch", "multiplier"),
        ("a.size == (1, 2) + (1, 2, 3)", "component_mismatch", "tuples of 2 and 3"),
        ("a.size == (b.size, 2)", "non_constant_tuple", "at column 12"),
        ("a.width == 1e9", "number_out_of_range", "at column 12"),
        ("a.width == b.width * 5000000 * 1000", "number_out_of_range", "computed"),
        ("1 == 1", "no_anchor", "names no anchor"),
        ("a.width == 100 ~ 10", "duplicate_priority", "'priority' field"),
    ])
    func semantic(_ text: String, _ code: String, _ fragment: String) {
        let p = F.problems(F.expr(text, priorityField: code == "duplicate_priority" ? 500 : nil))
        #expect(p.map(\.code) == [code], "\(p)")
        let detail = p.first?.detail ?? ""
        #expect(detail.contains(fragment), "\(detail)")
    }

    @Test("duplicate priority points at the entry's priority field")
    func duplicatePriority() {
        let p = F.problems(F.expr("a.width == 1 @ high", priorityField: 750))
        #expect(p.map(\.pointer) == ["/priority"])
    }

    @Test("unknown views and attributes are all reported, not only the first")
    func several() {
        let p = F.problems(F.expr("zz.width + a.nope == yy"))
        #expect(p.map(\.code) == ["unknown_view", "unknown_attribute", "unknown_view"])
    }

    @Test("a tuple with a single item is a parenthesised expression")
    func parens() {
        #expect(F.rendered("a.width == (b.width)") == ["a.width - b.width == 0"])
    }
}

@Suite("Expression limits")
struct ExpressionLimitTests {
    static func problems(_ expr: String) -> [Problem] {
        let doc = "{\"views\": {\"r\": {\"frame\": {\"width\": 100, \"height\": 100}}, \"a\": {\"parent\": \"r\"}}, \"constraints\": {\"c\": \"\(expr)\"}}"
        if case .failure(let e) = DocumentParser.parse(try! JSONParser.parse(doc)) { return e.problems }
        return []
    }

    @Test("deeply nested parentheses are a syntax error, not a stack overflow")
    func deepParentheses() {
        let p = Self.problems("a.width == " + String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100))
        #expect(p.map(\.code) == ["syntax"])
        #expect(p.first?.detail.contains("nest more than 64 deep") == true)
        let huge = Self.problems("a.width == " + String(repeating: "(", count: 100_000) + "1" + String(repeating: ")", count: 100_000))
        #expect(huge.map(\.code) == ["syntax"])
    }

    @Test("long sign chains and very long expressions are refused with a syntax error")
    func longChains() {
        #expect(Self.problems("a.width == " + String(repeating: "- ", count: 10_000) + "1").map(\.code) == ["syntax"])
        let long = Self.problems("a.width == " + Array(repeating: "1", count: 5_000).joined(separator: " + "))
        #expect(long.map(\.code) == ["syntax"])
        #expect(long.first?.detail.contains("too long") == true)
    }

    @Test("expressions within the limits still compile")
    func withinLimits() {
        #expect(Self.problems("a.width == " + String(repeating: "(", count: 60) + "1" + String(repeating: ")", count: 60)).isEmpty)
        #expect(Self.problems("a.width == " + Array(repeating: "1", count: 500).joined(separator: " + ")).isEmpty)
    }
}
