import Testing
@testable import LayoutModel

@Suite("Visually form: problems")
struct VisuallyProblemTests {
    @Test("syntax errors are code syntax at /format, naming what was expected and the 1-based column",
          arguments: [
              ("(|-a-|)", "expected 'H(' or 'V(' at column 1"),
              ("H|-a-|", "expected '(' after 'H' at column 2"),
              ("H(|-a-|", "expected ')' after the closing '|' at column 8"),
              ("H(a-)", "expected a view name at column 5"),
              ("H(a[44)", "expected '%', '~' or ']' at column 7"),
              ("H(a-8)", "expected '-' after the spacing at column 6"),
              ("H(|a)", "expected '-' after the opening '|' at column 4"),
              ("H(a) x", "expected end of format after ')' at column 6"),
              ("H(a b)", "expected '-' or ')' at column 5"),
              ("H(a[44~])", "expected a priority (a number or a priority name) after '~' at column 8"),
              ("H(1a)", "expected '|' or a view name at column 3"),
              ("H(a->=x-b)", "expected a number, '(' or '-' after '>=' at column 7"),
              ("H(a-(8~750-b)", "expected ')' at column 11"),
              ("H(`a)", "expected '`' closing the view name at column 5"),
          ])
    func syntaxErrors(format: String, expected: String) {
        let p = visuallyProblems(format)
        #expect(p.count == 1)
        #expect(p.first?.code == "syntax")
        #expect(p.first?.pointer == "/format")
        #expect(p.first?.detail.hasPrefix(expected) == true, "\(p.first?.detail ?? "none")")
    }

    @Test("an unknown view is unknown_view at /format with its column; all are reported")
    func unknownView() {
        let p = visuallyProblems("H(a-zz-yy)")
        #expect(p.map(\.code) == ["unknown_view", "unknown_view"])
        #expect(p.map(\.pointer) == ["/format", "/format"])
        #expect(p[0].detail.contains("'zz'") && p[0].detail.contains("column 5"))
    }

    @Test("| or n% next to a root view is no_superview")
    func noSuperview() {
        #expect(visuallyProblems("H(|-root)").map(\.code) == ["no_superview"])
        #expect(visuallyProblems("H(other-|)").map(\.code) == ["no_superview"])
        #expect(visuallyProblems("H(other[50%])").map(\.code) == ["no_superview"])
    }

    @Test("a priority that is neither in (0, 1000] nor a name is invalid_priority")
    func invalidPriority() {
        #expect(visuallyProblems("H(a[44 ~ 0])").map(\.code) == ["invalid_priority"])
        #expect(visuallyProblems("H(a[44 ~ 1001])").map(\.code) == ["invalid_priority"])
        let p = visuallyProblems("H(a-(8 ~ bogus)-b)")
        #expect(p.map(\.code) == ["invalid_priority"])
        #expect(p[0].detail.contains("'bogus'"))
    }

    @Test("a ~ priority together with the entry's priority field is one duplicate_priority at the first ~")
    func duplicatePriority() {
        let p = visuallyProblems("H(a[44 ~ 700]-(8~500)-b)", context: vflContext(priorityField: 900))
        #expect(p.map(\.code) == ["duplicate_priority"])
        #expect(p[0].detail.contains("column 8"))
    }

    @Test("numbers must be finite and within maxMagnitude: number_out_of_range")
    func numberOutOfRange() {
        #expect(visuallyProblems("H(a[1e9])").map(\.code) == ["number_out_of_range"])
        #expect(visuallyProblems("H(a-(1e400)-b)").map(\.code) == ["number_out_of_range"])
        let p = visuallyProblems("H(a[200%]-5000-b)", context: vflContext(maxMagnitude: 1000))
        #expect(p.map(\.code) == ["number_out_of_range"])
        #expect(p[0].detail.contains("column 11"))
    }
}
