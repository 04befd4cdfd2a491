/// Syntax tree of one Visually-form format (`H(|-8-label->=8-|)`), numbers and priorities read.
struct VisuallySyntax {
    struct Gap {
        var relation: Relation
        var constant: Double
        /// nil = the entry's default priority.
        var priority: Double?
    }

    struct Size {
        var relation: Relation
        var value: Double
        /// `v[50%]`: `value` is a percentage of the superview's dimension.
        var percent: Bool
        var priority: Double?
    }

    struct Item {
        var name: String
        var column: Int
        var sizes: [Size]
    }

    var vertical = false
    var opening: Gap?
    var items: [Item] = []
    /// `gaps[i]` joins `items[i]` and `items[i + 1]`.
    var gaps: [Gap] = []
    var closing: Gap?
    /// Column of the first `~`, for `duplicate_priority`.
    var firstPriorityColumn: Int?
}

/// Parser of the Visually form:
///
///     form  := ('H' | 'V') '(' [ '|' gap ] item ( gap item )* [ gap '|' ] ')'
///     gap   := '-' | '-' param '-' | '->=' [ param ] '-' | '-<=' [ param ] '-'
///     param := number [ '~' priority ] | '(' [ relation ] number [ '~' priority ] ')'
///     item  := name [ '[' [ relation ] number [ '%' ] [ '~' priority ] ']' ]
///     name  := [A-Za-z_#][A-Za-z0-9_#]* | '`' view id '`'
///
/// Spaces between tokens are ignored. Syntax errors end parsing; out-of-range numbers and bad
/// priorities are collected in `problems` and parsing goes on.
struct VisuallyParser {
    private var s: VisualFormatScanner
    private let context: CompileContext
    private(set) var problems: [EntryProblem] = []
    private var tree = VisuallySyntax()

    init(_ format: String, context: CompileContext) {
        s = VisualFormatScanner(format)
        self.context = context
    }

    mutating func parse() throws(EntryProblem) -> VisuallySyntax {
        s.skipSpaces()
        guard let axis = s.peek(), axis == "H" || axis == "V" else { throw s.expected("'H(' or 'V('") }
        s.pos += 1
        tree.vertical = axis == "V"
        s.skipSpaces()
        guard s.consume("(") else { throw s.expected("'(' after '\(axis)'") }
        s.skipSpaces()
        if s.consume("|") {
            s.skipSpaces()
            guard s.peek() == "-" else { throw s.expected("'-' after the opening '|'") }
            tree.opening = try gap()
        }
        tree.items.append(try item())
        while true {
            s.skipSpaces()
            if s.consume(")") { break }
            guard s.peek() == "-" else { throw s.expected("'-' or ')'") }
            let g = try gap()
            s.skipSpaces()
            if s.consume("|") {
                tree.closing = g
                s.skipSpaces()
                guard s.consume(")") else { throw s.expected("')' after the closing '|'") }
                break
            }
            tree.gaps.append(g)
            tree.items.append(try item())
        }
        s.skipSpaces()
        guard s.atEnd else { throw s.expected("end of format after ')'") }
        return tree
    }

    private mutating func gap() throws(EntryProblem) -> VisuallySyntax.Gap {
        _ = s.consume("-")
        s.skipSpaces()
        if let relation = s.scanRelation() {
            s.skipSpaces()
            if s.consume("-") { return .init(relation: relation, constant: 0, priority: nil) }  // ->=-
            guard startsParameter else { throw s.expected("a number, '(' or '-' after '\(relation.rawValue)'") }
            let g = try parameter(relation: relation, relationAllowed: false)
            try closingHyphen()
            return g
        }
        guard startsParameter else { return .init(relation: .equal, constant: 0, priority: nil) }  // bare -
        let g = try parameter(relation: .equal, relationAllowed: true)
        try closingHyphen()
        return g
    }

    private var startsParameter: Bool {
        guard let c = s.peek() else { return false }
        return c == "(" || c == "." || (c.isASCII && c.isNumber)
    }

    private mutating func closingHyphen() throws(EntryProblem) {
        s.skipSpaces()
        guard s.consume("-") else { throw s.expected("'-' after the spacing") }
    }

    /// `n`, `n ~ p`, or a parenthesized `([relation] n [~ p])`.
    private mutating func parameter(relation: Relation, relationAllowed: Bool) throws(EntryProblem) -> VisuallySyntax.Gap {
        if s.consume("(") {
            s.skipSpaces()
            var rel = relation
            if relationAllowed, let r = s.scanRelation() { rel = r; s.skipSpaces() }
            let value = try number(signed: true)
            let priority = try tildePriority()
            s.skipSpaces()
            guard s.consume(")") else { throw s.expected("')'") }
            return .init(relation: rel, constant: value, priority: priority)
        }
        let value = try number(signed: false)
        return .init(relation: relation, constant: value, priority: try tildePriority())
    }

    private mutating func item() throws(EntryProblem) -> VisuallySyntax.Item {
        s.skipSpaces()
        let col = s.column
        let name: String
        if s.consume("`") {
            name = s.scanRun { VisualFormatLexicon.isIdCharacter($0) }
            guard !name.isEmpty else { throw s.expected("a view id") }
            guard s.consume("`") else { throw s.expected("'`' closing the view name") }
        } else {
            name = s.scanRun { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "#") }
            guard let first = name.first, !first.isNumber else {
                s.pos = col - 1
                throw s.expected(tree.items.isEmpty && tree.opening == nil ? "'|' or a view name" : "a view name", at: col)
            }
        }
        var item = VisuallySyntax.Item(name: name, column: col, sizes: [])
        s.skipSpaces()
        if s.consume("[") {
            s.skipSpaces()
            let parens = s.consume("(")
            s.skipSpaces()
            let relation = s.scanRelation() ?? .equal
            s.skipSpaces()
            let value = try number(signed: parens)
            s.skipSpaces()
            let percent = s.consume("%")
            let priority = try tildePriority()
            s.skipSpaces()
            if parens { guard s.consume(")") else { throw s.expected("')'") }; s.skipSpaces() }
            guard s.consume("]") else { throw s.expected(percent || priority != nil ? "']'" : "'%', '~' or ']'") }
            item.sizes.append(.init(relation: relation, value: value, percent: percent, priority: priority))
        }
        return item
    }

    /// A number literal; out-of-range values are reported and read as 0.
    private mutating func number(signed: Bool) throws(EntryProblem) -> Double {
        let col = s.column
        var sign = ""
        if signed, let c = s.peek(), c == "-" || c == "+" { sign = String(c); s.pos += 1 }
        guard let text = s.scanUnsignedNumber() else { throw s.expected("a number", at: col) }
        let v = Double(sign + text) ?? .infinity
        if let p = VisualFormatProblems.checkRange(v, text: sign + text, column: col, context: context) {
            problems.append(p)
            return 0
        }
        return v
    }

    /// `~ priority` when the cursor is at `~`: a number in (0, 1000] or a priority name, optionally
    /// qualified as Swift writes it (`.defaultHigh`, `UILayoutPriority.defaultHigh`).
    private mutating func tildePriority() throws(EntryProblem) -> Double? {
        s.skipSpaces()
        let col = s.column
        guard s.consume("~") else { return nil }
        if tree.firstPriorityColumn == nil { tree.firstPriorityColumn = col }
        s.skipSpaces()
        var text: String
        if let n = s.scanUnsignedNumber() {
            text = n
        } else {
            _ = s.consume(".")
            guard let id = s.scanIdentifier() else { throw s.expected("a priority (a number or a priority name) after '~'") }
            text = id
            while s.peek() == ".", let next = s.peek(1), next.isLetter {
                s.pos += 1
                text = s.scanIdentifier() ?? text
            }
        }
        guard let v = Priority.parse(text) else {
            problems.append(VisualFormatProblems.at(.invalidPriority,
                "priority '\(text)' after '~' at column \(col) is neither a number in (0, 1000] nor a priority name",
                suggestion: Priority.suggestion(for: text)))
            return nil
        }
        return v
    }
}
