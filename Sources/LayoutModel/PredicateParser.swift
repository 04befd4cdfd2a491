/// Parses the `when` predicate language of activation rules (spec section 5):
///
/// ```
/// or      := and ('||' and)*
/// and     := compare ('&&' compare)*
/// compare := unary (('<' | '<=' | '>' | '>=' | '==' | '!=') unary)?
/// unary   := '!' unary | primary
/// primary := 'visible' '(' id ')' | 'hidden' '(' id ')' | 'flag' '(' name ')'
///          | 'true' | 'false' | id '.' ('width' | 'height') | number | '(' or ')'
/// ```
///
/// `!` binds tightest, then comparisons, then `&&`, then `||`. A comparison relates a root's input
/// size (`root.width`) with a number, in either order; `!` applies to conditions only, so
/// `!root.width < 600` is an error (write `!(root.width < 600)`). Flag names are words or quoted
/// strings (`flag("dark mode")`). Problems carry the pointer `""` (relative to the string) and a
/// 1-based column in the detail.
///
/// Nesting (parentheses and `!`) deeper than `maxDepth`, or more than `maxNodes` operators and atoms,
/// is a `syntax` problem: the parser and the tree it builds stay within a small, fixed stack depth.
public enum PredicateParser {
    public static let maxDepth = 64
    public static let maxNodes = 1000

    /// - Parameter views: the document's views, to check that named views exist and that compared
    ///   sizes are input sizes; nil skips these checks (syntax only).
    public static func parse(_ text: String, views: ViewLookup?) -> Result<Predicate, [EntryProblem]> {
        var p = Parser(scalars: Array(text.unicodeScalars), views: views)
        do throws(EntryProblem) {
            let operand = try p.parseOr()
            p.skipSpace()
            if p.pos < p.scalars.count {
                throw p.syntax("unexpected '\(p.scalars[p.pos])' after a complete condition")
            }
            let predicate = try p.condition(operand, at: 0)
            return p.problems.isEmpty ? .success(predicate) : .failure(p.problems)
        } catch {
            return .failure([error])
        }
    }

    /// What a sub-expression evaluates to: a condition, a compared size or a number.
    private enum Operand {
        case predicate(Predicate)
        case size(view: String, dimension: Attribute)
        case number(Double)
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let views: ViewLookup?
        var pos = 0
        var depth = 0
        var nodes = 0
        var problems: [EntryProblem] = []

        init(scalars: [Unicode.Scalar], views: ViewLookup?) {
            self.scalars = scalars; self.views = views
        }

        func syntax(_ message: String, column: Int? = nil) -> EntryProblem {
            EntryProblem("", .syntax, "column \((column ?? pos) + 1): \(message)")
        }

        mutating func skipSpace() {
            while pos < scalars.count, scalars[pos].properties.isWhitespace { pos += 1 }
        }

        /// Consumes `token` (after spaces) when it comes next.
        mutating func eat(_ token: String) -> Bool {
            skipSpace()
            let t = Array(token.unicodeScalars)
            guard pos + t.count <= scalars.count, Array(scalars[pos..<pos + t.count]) == t else { return false }
            pos += t.count
            return true
        }

        func condition(_ o: Operand, at column: Int) throws(EntryProblem) -> Predicate {
            switch o {
            case .predicate(let p): return p
            case .size(let v, let d):
                throw syntax("'\(v).\(d.rawValue)' is a size, not a condition; compare it with a number",
                             column: column)
            case .number(let x):
                throw syntax("\(formatNumber(x)) is a number, not a condition", column: column)
            }
        }

        /// Counts one operator or atom; too many make the predicate a syntax problem.
        mutating func node() throws(EntryProblem) {
            nodes += 1
            if nodes > PredicateParser.maxNodes {
                throw syntax("the predicate is too long: at most \(PredicateParser.maxNodes) conditions and operators")
            }
        }

        mutating func enter() throws(EntryProblem) {
            depth += 1
            if depth > PredicateParser.maxDepth {
                throw syntax("the predicate nests '(' and '!' more than \(PredicateParser.maxDepth) deep")
            }
        }

        mutating func parseOr() throws(EntryProblem) -> Operand {
            skipSpace()
            var start = pos
            var lhs = try parseAnd()
            while eat("||") {
                let left = try condition(lhs, at: start)
                skipSpace()
                start = pos
                let right = try condition(try parseAnd(), at: start)
                try node()
                lhs = .predicate(.or(left, right))
            }
            return lhs
        }

        mutating func parseAnd() throws(EntryProblem) -> Operand {
            skipSpace()
            var start = pos
            var lhs = try parseCompare()
            while eat("&&") {
                let left = try condition(lhs, at: start)
                skipSpace()
                start = pos
                let right = try condition(try parseCompare(), at: start)
                try node()
                lhs = .predicate(.and(left, right))
            }
            return lhs
        }

        static let comparisons: [(String, Predicate.ComparisonOp)] = [
            ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("==", .equal), ("!=", .notEqual),
            ("<", .less), (">", .greater),
        ]

        mutating func parseCompare() throws(EntryProblem) -> Operand {
            skipSpace()
            let start = pos
            let lhs = try parseUnary()
            guard let op = nextComparison() else { return lhs }
            skipSpace()
            let rightStart = pos
            let rhs = try parseUnary()
            if nextComparison() != nil {
                throw syntax("comparisons do not chain; combine them with && or ||")
            }
            switch (lhs, rhs) {
            case (.size(let v, let d), .number(let x)):
                return .predicate(.compare(view: v, dimension: d, op: op, value: x))
            case (.number(let x), .size(let v, let d)):
                return .predicate(.compare(view: v, dimension: d, op: Self.mirrored(op), value: x))
            case (.size, _):
                throw syntax("compare a size with a number", column: rightStart)
            default:
                throw syntax("a comparison needs a root's size (root.width, root.height) and a number",
                             column: start)
            }
        }

        /// Consumes a comparison operator; `!` alone is not one.
        mutating func nextComparison() -> Predicate.ComparisonOp? {
            for (text, op) in Self.comparisons where eat(text) { return op }
            return nil
        }

        static func mirrored(_ op: Predicate.ComparisonOp) -> Predicate.ComparisonOp {
            switch op {
            case .less: return .greater
            case .lessOrEqual: return .greaterOrEqual
            case .greater: return .less
            case .greaterOrEqual: return .lessOrEqual
            case .equal, .notEqual: return op
            }
        }

        mutating func parseUnary() throws(EntryProblem) -> Operand {
            skipSpace()
            let start = pos
            if pos < scalars.count, scalars[pos] == "!", !(pos + 1 < scalars.count && scalars[pos + 1] == "=") {
                pos += 1
                try enter(); try node()
                skipSpace()
                let inner = try parseUnary()
                depth -= 1
                guard case .predicate(let p) = inner else {
                    throw syntax("'!' applies to a condition; write !( ... ) around a comparison", column: start)
                }
                return .predicate(.not(p))
            }
            return try parsePrimary()
        }

        mutating func parsePrimary() throws(EntryProblem) -> Operand {
            skipSpace()
            let start = pos
            guard pos < scalars.count else { throw syntax("expected a condition, found the end") }
            if eat("(") {
                try enter()
                let inner = try parseOr()
                guard eat(")") else { throw syntax("expected ')' to close the '(' at column \(start + 1)") }
                depth -= 1
                return inner
            }
            try node()
            let word = readWord()
            guard !word.isEmpty else { throw syntax("unexpected '\(scalars[pos])'") }
            if let x = Self.number(word) { return .number(x) }
            switch word {
            case "true": return .predicate(.constant(true))
            case "false": return .predicate(.constant(false))
            case "visible", "hidden", "flag":
                guard eat("(") else { throw syntax("expected '(' after '\(word)'") }
                skipSpace()
                let argStart = pos
                let arg = word == "flag" ? try readFlagName() : readWord()
                guard !arg.isEmpty else { throw syntax("expected \(word == "flag" ? "a flag name" : "a view id")") }
                guard eat(")") else { throw syntax("expected ')' after '\(arg)'") }
                if word == "flag" { return .predicate(.flag(arg)) }
                checkView(arg, column: argStart)
                return .predicate(word == "visible" ? .visible(arg) : .hidden(arg))
            default:
                return try size(word, column: start)
            }
        }

        /// `root.width` / `root.height`.
        mutating func size(_ word: String, column: Int) throws(EntryProblem) -> Operand {
            let parts = word.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw syntax("unknown word '\(word)'; expected visible(id), hidden(id), flag(name), "
                             + "root.width, root.height, a number, true or false", column: column)
            }
            let view = String(parts[0])
            guard let dim = parts[1] == "width" ? Attribute.width : parts[1] == "height" ? .height : nil else {
                throw syntax("only width and height can be compared, not '\(parts[1])'", column: column)
            }
            if checkView(view, column: column), let v = views?[view] {
                let input = dim == .width ? v.frame.width : v.frame.height
                if !v.isRoot || input == nil {
                    let why = v.isRoot ? "its \(dim.rawValue) is not in its frame, so it is solved"
                        : "it is not a root (it has a parent), so its size is solved"
                    problems.append(EntryProblem("", .solvedSizeInPredicate,
                        "column \(column + 1): '\(word)' cannot be compared: \(why); only a root's input size can"))
                }
            }
            return .size(view: view, dimension: dim)
        }

        /// - Returns: false when the view is unknown (and reports it).
        @discardableResult
        mutating func checkView(_ id: String, column: Int) -> Bool {
            guard let views, views[id] == nil else { return true }
            let near = views.suggestion(for: id)
            problems.append(EntryProblem("", .unknownView, "column \(column + 1): '\(id)' is not a view of this document"
                                         + Suggestion.phrase(near), suggestion: near))
            return false
        }

        /// Letters, digits, `_`, `-`, `#`, `.`, `+` (ids, `root.width`, numbers such as `-1.5e3`).
        mutating func readWord() -> String {
            skipSpace()
            var out = String.UnicodeScalarView()
            while pos < scalars.count {
                let c = scalars[pos]
                guard IDRules.isIDScalar(c) || c == "." || c == "+" else { break }
                out.append(c); pos += 1
            }
            return String(out)
        }

        mutating func readFlagName() throws(EntryProblem) -> String {
            guard pos < scalars.count, scalars[pos] == "\"" || scalars[pos] == "'" else { return readWord() }
            let quote = scalars[pos], start = pos
            pos += 1
            var out = String.UnicodeScalarView()
            while pos < scalars.count, scalars[pos] != quote { out.append(scalars[pos]); pos += 1 }
            guard pos < scalars.count else { throw syntax("unterminated string", column: start) }
            pos += 1
            return String(out)
        }

        static func number(_ word: String) -> Double? {
            guard let first = word.unicodeScalars.first,
                  ("0"..."9").contains(first) || first == "-" || first == "+" || first == ".",
                  let x = Double(word), x.isFinite else { return nil }
            return x
        }
    }
}
