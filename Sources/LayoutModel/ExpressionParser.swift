/// The syntax tree of one side of an expression. Columns are 1-based.
indirect enum ExprNode: Equatable, Sendable {
    case number(Double, column: Int)
    case anchor(AnchorReference, column: Int)
    /// A bare view id: its attribute is implied by the other side (Mortar's implicit attributes).
    case view(String, column: Int)
    case tuple([ExprNode], column: Int)
    case negate(ExprNode, column: Int)
    case binary(ExprOperator, ExprNode, ExprNode, column: Int)

    var column: Int {
        switch self {
        case .number(_, let c), .anchor(_, let c), .view(_, let c), .tuple(_, let c),
             .negate(_, let c), .binary(_, _, _, let c): return c
        }
    }

    /// Whether the subtree names no anchor and no view (a constant sub-expression).
    var isConstant: Bool {
        switch self {
        case .number: return true
        case .anchor, .view: return false
        case .tuple(let items, _): return items.allSatisfy(\.isConstant)
        case .negate(let e, _): return e.isConstant
        case .binary(_, let l, let r, _): return l.isConstant && r.isConstant
        }
    }
}

enum ExprOperator: Character, Equatable, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/"
}

/// `side relation side [~ inset (mortar)] [marker priority]`, parsed.
struct ParsedExpression: Equatable, Sendable {
    var lhs: ExprNode
    var relation: Relation
    var rhs: ExprNode
    /// Mortar's `~` operand.
    var inset: ExprNode?
    var priority: Double?
    var priorityColumn: Int?
}

/// Recursive-descent parser of the grammar of spec section 4 item 2:
///
///     constraint := side relation side [ marker priority ]
///     side       := term (('+' | '-') term)*
///     term       := unary (('*' | '/') unary)*
///     unary      := ('-' | '+') unary | primary
///     primary    := number | view '.' attribute | view | '(' side (',' side)* ')'
///     priority   := ['.'] (number | name)
///
/// In the `mortar` dialect `~ side` after the right side is the inset operator and the priority
/// markers are `!` and `@`; elsewhere `~`, `!` and `@` all mark the priority.
/// Unknown views, attributes, priorities and out-of-range numbers are collected as `problems`
/// (parsing goes on); a syntax error stops the parse.
struct ExprParser {
    private var tokens: [ExprToken]
    private var index = 0
    private let views: ViewLookup
    private let dialect: Dialect
    private let maxMagnitude: Double
    private let pointer: String
    private(set) var problems: [EntryProblem] = []
    /// Parentheses and signs nested so far; bounded so that no input can exhaust the stack.
    private var depth = 0

    /// Limits that keep every input's parse, evaluation and clean-up bounded (recursion depth).
    static let maxDepth = 64
    static let maxTokens = 2_000

    init(tokens: [ExprToken], context: CompileContext, pointer: String) {
        self.tokens = tokens; self.views = context.views; self.dialect = context.dialect
        self.maxMagnitude = context.maxMagnitude; self.pointer = pointer
    }

    private var token: ExprToken { tokens[index] }
    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func found(_ t: ExprToken) -> String {
        t.kind == .end ? "found the end of the expression" : "found '\(t.text)'"
    }
    private func fail(_ expected: String) -> ExprSyntaxError {
        ExprSyntaxError(column: token.column, message: "expected \(expected), \(found(token))")
    }
    private mutating func report(_ code: String, _ column: Int, _ detail: String, suggestion: String? = nil) {
        problems.append(EntryProblem(pointer: pointer, code: code,
                                     detail: "at column \(column): \(detail)" + Suggestion.phrase(suggestion),
                                     suggestion: suggestion))
    }

    mutating func parse() -> Result<ParsedExpression, ExprSyntaxError> {
        if tokens.count > Self.maxTokens {
            return .failure(ExprSyntaxError(column: tokens[Self.maxTokens].column,
                message: "the expression is too long (more than \(Self.maxTokens) tokens)"))
        }
        do {
            let lhs = try side()
            guard case .relation(let relation) = token.kind else {
                throw fail("an operator (+ - * /) or a relation (==, >=, <=, |=|, |>|, |<|)")
            }
            advance()
            let rhs = try side()
            var parsed = ParsedExpression(lhs: lhs, relation: relation, rhs: rhs)
            if dialect == .mortar, token.kind == .marker("~") {
                advance()
                if case .name(let n) = token.kind, Priority.names[n] != nil {
                    throw ExprSyntaxError(column: token.column, message:
                        "expected an inset after '~' (in the mortar dialect '~' is the inset operator; write a priority with '!' or '@'), \(found(token))")
                }
                parsed.inset = try side()
            }
            if case .marker(let m) = token.kind {
                if dialect == .mortar && m == "~" {
                    throw fail("a priority marker '!' or '@' or the end of the expression (only one '~' inset)")
                }
                advance()
                parsed.priorityColumn = token.column
                parsed.priority = try priority()
            }
            guard token.kind == .end else {
                let markers = dialect == .mortar ? "an inset '~', a priority marker (! @)" : "a priority marker (~ ! @)"
                throw fail(parsed.priorityColumn == nil ? "an operator (+ - * /), \(markers) or the end of the expression"
                                                        : "the end of the expression")
            }
            return .success(parsed)
        } catch let e as ExprSyntaxError {
            return .failure(e)
        } catch {
            return .failure(ExprSyntaxError(column: token.column, message: "\(error)"))
        }
    }

    private mutating func priority() throws -> Double? {
        if token.kind == .dot { advance() }   // Swift's `.high`
        let t = token
        let text: String
        switch t.kind {
        case .number: text = t.text
        case .name(let n): text = n
        default: throw fail("a priority (a number in (0, 1000] or a name such as required, high, low)")
        }
        advance()
        if let p = Priority.parse(text) { return p }
        report(ConstraintProblemCode.invalidPriority, t.column,
               "'\(text)' is not a priority (a number in (0, 1000] or one of \(Priority.names.keys.sorted().joined(separator: ", ")))",
               suggestion: Priority.suggestion(for: text))
        return nil
    }

    private mutating func side() throws -> ExprNode {
        var node = try term()
        while token.kind == .plus || token.kind == .minus {
            let op: ExprOperator = token.kind == .plus ? .add : .subtract
            let column = token.column
            advance()
            node = .binary(op, node, try term(), column: column)
        }
        return node
    }

    private mutating func term() throws -> ExprNode {
        var node = try unary()
        while token.kind == .star || token.kind == .slash {
            let op: ExprOperator = token.kind == .star ? .multiply : .divide
            let column = token.column
            advance()
            node = .binary(op, node, try unary(), column: column)
        }
        return node
    }

    private mutating func unary() throws -> ExprNode {
        let column = token.column
        if token.kind == .minus || token.kind == .plus {
            try enter()
            defer { depth -= 1 }
            let negative = token.kind == .minus
            advance()
            return negative ? .negate(try unary(), column: column) : try unary()
        }
        return try primary()
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maxDepth {
            throw ExprSyntaxError(column: token.column,
                                  message: "parentheses and signs nest more than \(Self.maxDepth) deep")
        }
    }

    private mutating func primary() throws -> ExprNode {
        let t = token
        switch t.kind {
        case .number(let v):
            advance()
            if let p = numberProblem(v, maxMagnitude: maxMagnitude, pointer: pointer) {
                report(p.code, t.column, p.detail)
            }
            return .number(v, column: t.column)
        case .anchor(let view, let attribute):
            advance()
            guard views[view] != nil else {
                report(ConstraintProblemCode.unknownView, t.column, "no view '\(view)' in the document",
                       suggestion: views.suggestion(for: view))
                return .number(0, column: t.column)
            }
            guard let kind = AnchorVocabulary.resolve(attribute) else {
                report(ConstraintProblemCode.unknownAttribute, t.column + view.count + 1,
                       "unknown attribute '\(attribute)' in '\(t.text)'", suggestion: AnchorVocabulary.suggestion(for: attribute))
                return .number(0, column: t.column)
            }
            return .anchor(AnchorReference(view: view, kind: kind), column: t.column)
        case .name(let name):
            advance()
            guard views[name] != nil else {
                report(ConstraintProblemCode.unknownView, t.column, "no view '\(name)' in the document",
                       suggestion: views.suggestion(for: name))
                return .number(0, column: t.column)
            }
            return .view(name, column: t.column)
        case .lparen:
            try enter()
            defer { depth -= 1 }
            advance()
            var items = [try side()]
            while token.kind == .comma { advance(); items.append(try side()) }
            guard token.kind == .rparen else {
                throw fail(items.count == 1 ? "an operator, ',' or ')'" : "an operator, ',' or ')' to close the tuple opened at column \(t.column)")
            }
            advance()
            return items.count == 1 ? items[0] : .tuple(items, column: t.column)
        default:
            throw fail("a number, an anchor (view.attribute), a view id, '(' or '-'")
        }
    }
}
