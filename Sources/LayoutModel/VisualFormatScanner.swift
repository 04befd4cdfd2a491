/// A character cursor over a visual format string, shared by `VisualFormatCompiler` (Apple's VFL)
/// and `VisuallyCompiler` (the Visually form). Columns are 1-based and count Swift `Character`s.
struct VisualFormatScanner {
    let chars: [Character]
    var pos = 0

    init(_ text: String) { chars = Array(text) }

    var column: Int { pos + 1 }
    var atEnd: Bool { pos >= chars.count }

    func peek(_ offset: Int = 0) -> Character? {
        let i = pos + offset
        return i < chars.count ? chars[i] : nil
    }

    mutating func skipSpaces() {
        while let c = peek(), c == " " || c == "\t" || c == "\n" || c == "\r" { pos += 1 }
    }

    /// Whether the text at the cursor starts with `literal` (no consumption).
    func looksAt(_ literal: String) -> Bool {
        var i = pos
        for c in literal {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
        }
        return true
    }

    /// Consumes `literal` when the text at the cursor starts with it.
    mutating func consume(_ literal: String) -> Bool {
        guard looksAt(literal) else { return false }
        pos += literal.count
        return true
    }

    /// `==`, `>=` or `<=` at the cursor, consumed.
    mutating func scanRelation() -> Relation? {
        if consume("==") { return .equal }
        if consume(">=") { return .greaterOrEqual }
        if consume("<=") { return .lessOrEqual }
        return nil
    }

    /// An unsigned decimal literal (`8`, `0.5`, `.5`, `1e3`) at the cursor, consumed.
    mutating func scanUnsignedNumber() -> String? {
        let start = pos
        var digits = 0
        while let c = peek(), c.isASCII, c.isNumber { pos += 1; digits += 1 }
        if peek() == ".", let next = peek(1), next.isASCII, next.isNumber || digits > 0 {
            pos += 1
            while let c = peek(), c.isASCII, c.isNumber { pos += 1; digits += 1 }
        }
        guard digits > 0 else { pos = start; return nil }
        if let e = peek(), e == "e" || e == "E" {
            var i = 1
            if let s = peek(1), s == "+" || s == "-" { i = 2 }
            if let d = peek(i), d.isASCII, d.isNumber {
                pos += i
                while let c = peek(), c.isASCII, c.isNumber { pos += 1 }
            }
        }
        return String(chars[start..<pos])
    }

    /// A C identifier (`[A-Za-z_][A-Za-z0-9_]*`) at the cursor, consumed.
    mutating func scanIdentifier() -> String? {
        guard let c = peek(), c.isASCII, c.isLetter || c == "_" else { return nil }
        let start = pos
        while let c = peek(), c.isASCII, c.isLetter || c.isNumber || c == "_" { pos += 1 }
        return String(chars[start..<pos])
    }

    /// The longest run of characters satisfying `accept`, consumed (possibly empty).
    mutating func scanRun(_ accept: (Character) -> Bool) -> String {
        let start = pos
        while let c = peek(), accept(c) { pos += 1 }
        return String(chars[start..<pos])
    }

    /// What stands at the cursor, for messages: `'c'` or `end of format`.
    var found: String {
        guard let c = peek() else { return "end of format" }
        return "'\(c)'"
    }

    /// A `syntax` problem at `/format`: "expected X at column N, found Y".
    func expected(_ what: String, at col: Int? = nil) -> EntryProblem {
        VisualFormatProblems.syntax("expected \(what) at column \(col ?? column), found \(found)")
    }
}

/// Character classes and numeric checks shared by both visual formats.
enum VisualFormatLexicon {
    /// Characters of a view id (spec section 1): letters, digits, `_`, `-`, `#`.
    static func isIdCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-" || c == "#")
    }

    /// Whether `text` is a whole decimal literal with optional sign (no `inf`, `nan` or hex).
    static func isNumberLiteral(_ text: String) -> Bool {
        var s = VisualFormatScanner(text)
        _ = s.consume("+") || s.consume("-")
        return s.scanUnsignedNumber() != nil && s.atEnd
    }

    static func number(_ text: String) -> Double? {
        isNumberLiteral(text) ? Double(text) : nil
    }
}

/// Problem constructors; every pointer is relative to the constraint entry.
enum VisualFormatProblems {
    static func syntax(_ detail: String) -> EntryProblem {
        EntryProblem("/format", .syntax, detail)
    }

    static func at(_ code: ProblemCode, _ detail: String, suggestion: String? = nil) -> EntryProblem {
        EntryProblem("/format", code, detail + Suggestion.phrase(suggestion), suggestion: suggestion)
    }

    /// `number_out_of_range` when `value` is not finite or larger than the context allows.
    static func checkRange(_ value: Double, text: String, column: Int, context: CompileContext) -> EntryProblem? {
        guard !value.isFinite || abs(value) > context.maxMagnitude else { return nil }
        return at(.numberOutOfRange,
                  "number \(text) at column \(column) is outside ±\(formatNumber(context.maxMagnitude))")
    }

    static func formatNumber(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
