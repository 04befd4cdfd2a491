/// Syntax tree of one Apple visual format string; names are not yet resolved.
struct VisualFormatSyntax {
    /// A piece of text with the column it starts at.
    struct Token {
        var text: String
        var column: Int
    }

    struct Predicate {
        var relation: Relation
        /// A number literal, a metric name or a view name.
        var object: Token
        /// The text after `@`: a number literal, a metric name or a priority name.
        var priority: Token?
    }

    enum Connection {
        /// No hyphen: `[a][b]`, `|[a]`.
        case flush
        /// A bare `-`: standard spacing.
        case standard
        /// `-n-`, `-metric-`, `-(predicateList)-`.
        case predicates([Predicate])
    }

    struct ViewNode {
        var name: Token
        var predicates: [Predicate]
    }

    var vertical: Bool
    var opening: Connection?
    var views: [ViewNode]
    /// `connections[i]` joins `views[i]` and `views[i + 1]`.
    var connections: [Connection]
    var closing: Connection?
}

/// Recursive-descent parser of Apple's grammar:
///
///     format     := [ ('H' | 'V') ':' ] [ '|' connection ] view ( connection view )* [ connection '|' ]
///     connection := ε | '-' | '-' simple '-' | '-' '(' predicate (',' predicate)* ')' '-'
///     simple     := [ '==' | '<=' | '>=' ] ( number | metricName ) [ '@' priority ]
///     view       := '[' viewName [ '(' predicate (',' predicate)* ')' ] ']'
///     predicate  := [ '==' | '<=' | '>=' ] object [ '@' priority ]
///
/// Spaces between tokens are ignored. The first syntax error ends parsing.
struct VisualFormatParser {
    private var s: VisualFormatScanner

    init(_ format: String) { s = VisualFormatScanner(format) }

    static func parse(_ format: String) -> Result<VisualFormatSyntax, EntryProblem> {
        var p = VisualFormatParser(format)
        do { return .success(try p.format()) } catch { return .failure(error) }
    }

    private mutating func format() throws(EntryProblem) -> VisualFormatSyntax {
        s.skipSpaces()
        var vertical = false
        let oriented = s.peek() == "H" || s.peek() == "V"
        if let c = s.peek(), oriented {
            s.pos += 1
            s.skipSpaces()
            guard s.consume(":") else { throw s.expected("':' after the orientation '\(c)'") }
            vertical = c == "V"
            s.skipSpaces()
        }
        var tree = VisualFormatSyntax(vertical: vertical, opening: nil, views: [], connections: [], closing: nil)
        if s.consume("|") {
            tree.opening = try connection()
            s.skipSpaces()
            guard s.peek() == "[" else {
                throw s.expected(tree.opening.map(Self.isFlush) == true ? "'-' or '['" : "'['")
            }
        } else if s.peek() != "[" {
            throw s.expected(oriented ? "'|' or '['" : "'H:', 'V:', '|' or '['")
        }
        tree.views.append(try view())
        while true {
            let conn = try connection()
            s.skipSpaces()
            if s.peek() == "[" {
                tree.connections.append(conn)
                tree.views.append(try view())
            } else if s.consume("|") {
                tree.closing = conn
                s.skipSpaces()
                guard s.atEnd else { throw s.expected("end of format after the closing '|'") }
                return tree
            } else if Self.isFlush(conn) && s.atEnd {
                return tree
            } else {
                throw s.expected(Self.isFlush(conn) ? "'-', '[', '|' or end of format" : "'[' or '|'")
            }
        }
    }

    private static func isFlush(_ c: VisualFormatSyntax.Connection) -> Bool {
        if case .flush = c { return true } else { return false }
    }

    private mutating func connection() throws(EntryProblem) -> VisualFormatSyntax.Connection {
        s.skipSpaces()
        guard s.consume("-") else { return .flush }
        s.skipSpaces()
        if s.peek() == "[" || s.peek() == "|" { return .standard }
        let list: [VisualFormatSyntax.Predicate]
        if s.peek() == "(" {
            list = try predicateList()
        } else {
            // `->=8-`: a relation without parentheses, as the spec's own example writes it.
            let relation = s.scanRelation()
            s.skipSpaces()
            let col = s.column
            guard let text = s.scanUnsignedNumber() ?? s.scanIdentifier() else {
                throw s.expected(relation == nil ? "'[', '|', '(', a relation, a number or a metric name"
                                                 : "a number or a metric name")
            }
            s.skipSpaces()
            list = [VisualFormatSyntax.Predicate(relation: relation ?? .equal, object: .init(text: text, column: col),
                                                 priority: try priority())]
        }
        s.skipSpaces()
        guard s.consume("-") else { throw s.expected("'-' after the spacing predicate") }
        return .predicates(list)
    }

    private mutating func view() throws(EntryProblem) -> VisualFormatSyntax.ViewNode {
        _ = s.consume("[")
        s.skipSpaces()
        let col = s.column
        let name = s.scanRun(VisualFormatLexicon.isIdCharacter)
        guard !name.isEmpty else { throw s.expected("a view name") }
        s.skipSpaces()
        var predicates: [VisualFormatSyntax.Predicate] = []
        if s.peek() == "(" {
            predicates = try predicateList()
            s.skipSpaces()
            guard s.consume("]") else { throw s.expected("']'") }
        } else if !s.consume("]") {
            throw s.expected("'(' or ']' after the view name")
        }
        return VisualFormatSyntax.ViewNode(name: .init(text: name, column: col), predicates: predicates)
    }

    private mutating func predicateList() throws(EntryProblem) -> [VisualFormatSyntax.Predicate] {
        _ = s.consume("(")
        var out: [VisualFormatSyntax.Predicate] = []
        while true {
            s.skipSpaces()
            let relation = s.scanRelation() ?? .equal
            s.skipSpaces()
            let col = s.column
            let object = s.scanRun { VisualFormatLexicon.isIdCharacter($0) || $0 == "." || $0 == "+" }
            guard !object.isEmpty else { throw s.expected("a number, a metric or a view name") }
            s.skipSpaces()
            out.append(.init(relation: relation, object: .init(text: object, column: col), priority: try priority()))
            s.skipSpaces()
            if s.consume(")") { return out }
            guard s.consume(",") else { throw s.expected("',' or ')'") }
        }
    }

    /// `@priority`, when the cursor is at `@`.
    private mutating func priority() throws(EntryProblem) -> VisualFormatSyntax.Token? {
        let at = s.column
        guard s.consume("@") else { return nil }
        s.skipSpaces()
        guard let text = s.scanUnsignedNumber() ?? s.scanIdentifier() else {
            throw s.expected("a priority (a number, a metric or a priority name) after '@'")
        }
        return .init(text: text, column: at)
    }
}
