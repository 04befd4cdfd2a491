extension ExpressionCompiler {
    /// `text` with the constant of its right-hand side set to `constant` (issue 30: a PATCH of
    /// `{"constant": n}` on an expression-string entry): the number added or subtracted last on
    /// the right of the relation is replaced (`a.top == b.bottom + 8` → `a.top == b.bottom + 20`),
    /// and a right side that ends without one gets ` + n`; the rest of the text (a priority after
    /// `~` or `@`, spacing) is kept as written.
    ///
    /// - Returns: nil when the text does not tokenize or has no relation with a right-hand side;
    ///   the caller validates the result as any other expression.
    public static func replacingConstant(in text: String, with constant: Double, views: ViewLookup) -> String? {
        guard case .success(let tokens) = ExprTokenizer(text, views: views).tokenize() else { return nil }
        var depth = 0, relation: Int?, end: Int?
        for (i, t) in tokens.enumerated() {
            switch t.kind {
            case .lparen: depth += 1
            case .rparen: depth -= 1
            case .relation where depth == 0 && relation == nil: relation = i
            case .marker, .end: if depth == 0, relation != nil, end == nil { end = i }
            default: break
            }
        }
        guard let r = relation, let e = end, e > r + 1 else { return nil }
        var characters = Array(text)
        let number = Self.constantText(abs(constant))
        let sign = constant < 0 || (constant == 0 && constant.sign == .minus) ? "-" : "+"
        let last = tokens[e - 1]
        // `… + 8` with an operand before the sign: the number is the side's additive constant (a
        // sign after `*`, `/`, `(` or the relation is a unary minus, part of another term).
        if case .number = last.kind, e - 3 > r,
           tokens[e - 2].kind == .plus || tokens[e - 2].kind == .minus,
           Self.isOperand(tokens[e - 3].kind) {
            let from = tokens[e - 2].column - 1, to = last.column - 1 + last.text.count
            characters.replaceSubrange(from..<to, with: "\(sign) \(number)")
        } else {
            let at = last.column - 1 + last.text.count
            characters.insert(contentsOf: " \(sign) \(number)", at: at)
        }
        return String(characters)
    }

    private static func isOperand(_ kind: ExprToken.Kind) -> Bool {
        switch kind {
        case .number, .anchor, .name, .rparen: return true
        default: return false
        }
    }

    /// A whole number without `.0`; others as Swift prints them (shortest round-trip form).
    private static func constantText(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
