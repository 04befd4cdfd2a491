import Testing
import JSON
@testable import LayoutModel

@Suite("Apple's visual format: problems")
struct VisualFormatProblemTests {
    @Test("syntax errors are code syntax at /format, naming what was expected and the 1-based column",
          arguments: [
              ("H:|-[a", "expected '(' or ']' after the view name at column 7"),
              ("H|[a]", "expected ':' after the orientation 'H' at column 2"),
              ("x[a]", "expected 'H:', 'V:', '|' or '[' at column 1"),
              ("V:", "expected '|' or '[' at column 3"),
              ("H: x", "expected '|' or '[' at column 4"),
              ("[a]-", "expected '[', '|', '(', a relation, a number or a metric name at column 5"),
              ("[a]-(>=8[b]", "expected ',' or ')' at column 9"),
              ("[a]-8[b]", "expected '-' after the spacing predicate at column 6"),
              ("[]", "expected a view name at column 2"),
              ("[a]->=-[b]", "expected a number or a metric name at column 7"),
              ("[a(@5)]", "expected a number, a metric or a view name at column 4"),
              ("[a(>=5@)]", "expected a priority (a number, a metric or a priority name) after '@' at column 8"),
              ("[a]|x", "expected end of format after the closing '|' at column 5"),
              ("|-|", "expected '[' at column 3"),
              ("||", "expected '-' or '[' at column 2"),
              ("[a]-[b]-", "expected '[', '|', '(', a relation, a number or a metric name at column 9"),
              ("[a] [b] x", "expected '-', '[', '|' or end of format at column 9"),
          ])
    func syntaxErrors(format: String, expected: String) {
        let p = vflProblems(format)
        #expect(p.count == 1)
        #expect(p.first?.code == "syntax")
        #expect(p.first?.pointer == "/format")
        #expect(p.first?.detail.hasPrefix(expected) == true, "\(p.first?.detail ?? "none")")
    }

    @Test("an unknown view is unknown_view at /format, naming it and its column")
    func unknownView() {
        let p = vflProblems("[a]-[zz]")
        #expect(p.map(\.code) == ["unknown_view"])
        #expect(p.map(\.pointer) == ["/format"])
        #expect(p[0].detail.contains("'zz'") && p[0].detail.contains("column 6"))
    }

    @Test("a name in a size predicate that is neither a metric nor a view is unknown_view")
    func unknownPredicateName() {
        let p = vflProblems("[a(w)]")
        #expect(p.map(\.code) == ["unknown_view"])
        #expect(p[0].detail.contains("neither a metric nor a view"))
    }

    @Test("an unknown metric is unknown_metric at /format, naming it")
    func unknownMetric() {
        let p = vflProblems("|-pad-[a]", metrics: vflMetrics([("gap", .number(3))]))
        #expect(p.map(\.code) == ["unknown_metric"])
        #expect(p.map(\.pointer) == ["/format"])
        #expect(p[0].detail.contains("'pad'"))
        #expect(vflProblems("[a(5@bogus)]").map(\.code) == ["unknown_metric"])
    }

    @Test("a view named in a connection predicate is a syntax problem")
    func viewInConnection() {
        let p = vflProblems("[a]-(==b)-[c]")
        #expect(p.map(\.code) == ["syntax"])
        #expect(p[0].detail.contains("column 8"))
    }

    @Test("a metric that is not a number is invalid_metric at /metrics/name (escaped)")
    func invalidMetric() {
        let p = vflProblems("|-pad-[a]", metrics: vflMetrics([("pad", .string("x")), ("a/b", .bool(true))]))
        #expect(p.map(\.pointer) == ["/metrics/pad", "/metrics/a~1b"])
        #expect(p.map(\.code) == ["invalid_metric", "invalid_metric"])
    }

    @Test("metric problems are reported together with a syntax error")
    func metricsWithSyntaxError() {
        let p = vflProblems("[a", metrics: vflMetrics([("x", .null)]), options: [.string("nope")])
        #expect(p.map(\.code) == ["invalid_metric", "unknown_option", "syntax"])
    }

    @Test("numbers must be finite and within maxMagnitude: number_out_of_range")
    func numberOutOfRange() {
        let small = vflContext(maxMagnitude: 1000)
        #expect(vflProblems("[a(1e9)]").map(\.code) == ["number_out_of_range"])
        #expect(vflProblems("[a]-1e400-[b]").map(\.code) == ["number_out_of_range"])
        let p = vflProblems("[a(>=2000)]-(-5000)-[b]", context: small)
        #expect(p.map(\.code) == ["number_out_of_range", "number_out_of_range"])
        #expect(p.map(\.pointer) == ["/format", "/format"])
        #expect(p[0].detail.contains("column 6"))
        let m = vflProblems("|-big-[a]", metrics: vflMetrics([("big", .number(5000))]), context: small)
        #expect(m.map(\.pointer) == ["/metrics/big"])
        #expect(m.map(\.code) == ["number_out_of_range"])
    }

    @Test("a priority in the format together with the entry's priority field is one duplicate_priority")
    func duplicatePriority() {
        let p = vflProblems("[a(>=5@750)]-(8@300)-[b]", context: vflContext(priorityField: 500))
        #expect(p.map(\.code) == ["duplicate_priority"])
        #expect(p.map(\.pointer) == ["/format"])
        #expect(p[0].detail.contains("column 7"))
    }

    @Test("a priority outside (0, 1000] is invalid_priority, whether a number or a metric")
    func invalidPriority() {
        #expect(vflProblems("[a(5@0)]").map(\.code) == ["invalid_priority"])
        #expect(vflProblems("[a(5@1001)]").map(\.code) == ["invalid_priority"])
        #expect(vflProblems("[a(5@p)]", metrics: vflMetrics([("p", .number(2000))])).map(\.code) == ["invalid_priority"])
    }

    @Test("| next to a root view is no_superview")
    func rootWithSuperviewEdge() {
        let p = vflProblems("|-[root]")
        #expect(p.map(\.code) == ["no_superview"])
        #expect(p.map(\.pointer) == ["/format"])
        #expect(vflProblems("[other]-|").map(\.code) == ["no_superview"])
    }

    @Test("| with views of different parents is no_superview; without | they may chain")
    func differentParents() {
        let p = vflProblems("|-[a]-[label]")
        #expect(p.map(\.code) == ["no_superview"])
        #expect(p[0].detail.contains("'root'") && p[0].detail.contains("'red'"))
        #expect(vflProblems("[a]-[label]").isEmpty)
    }

    @Test("every unknown name of a format is reported, not only the first")
    func severalProblems() {
        let p = vflProblems("|-pad-[zz]-[a(==nope)]")
        #expect(Set(p.map(\.code)) == ["unknown_view", "unknown_metric"])
        #expect(p.count == 3)
    }
}
