/// A value met while evaluating one side: a constant (raw, without inset signs, until it meets an
/// anchor or ends up as a whole side) or a vector of linear expressions.
enum ExprValue: Equatable, Sendable {
    case scalar(Double)
    case tuple([Double])
    case linear(LinearVector)

    var constantForm: ConstantForm? {
        switch self {
        case .scalar(let c): return .scalar(c)
        case .tuple(let t): return .list(t)
        case .linear: return nil
        }
    }
}

/// A problem found while evaluating: code, column and detail (the pointer is the compiler's).
struct ExprEvalError: Error, Equatable, Sendable {
    var code: String
    var column: Int
    var detail: String
}

/// Evaluates sides to vectors with the dialect's arithmetic (spec section 4, "Dialects").
///
/// `shape` is the constraint's anchor kind: the single attribute or the first composite named;
/// every anchor evaluates to a vector of `shape.components.count` components.
struct ExprEvaluator {
    typealias Code = ConstraintProblemCode
    let shape: AnchorKind
    let dialect: Dialect
    /// Attribute of each bare view id, by its column.
    let implicit: [Int: AnchorKind]

    var count: Int { shape.components.count }
    /// Mortar adds constants without the inset sign.
    var signsConstants: Bool { dialect != .mortar }
    /// Mortar's `* m` and `/ m` scale the multiplier only.
    var multiplierScalesConstant: Bool { dialect != .mortar }

    /// A whole side as a vector. In the `mag` dialect a right side made of one anchor followed by
    /// `+ - * /` operations has Mag's meaning (`+ c` replaces the constant, `* m` the multiplier).
    func evaluateSide(_ node: ExprNode, isRight: Bool) throws -> LinearVector {
        if dialect == .mag, isRight, let (base, steps) = Self.magChain(node), !steps.isEmpty {
            return try mag(base: base, steps: steps)
        }
        return try vector(evaluate(node), column: node.column)
    }

    /// The vector of a value; constants become per-component constants (inset signs applied).
    func vector(_ value: ExprValue, column: Int) throws -> LinearVector {
        switch value {
        case .linear(let v): return v
        case .scalar, .tuple: return LinearVector(constants: try constants(value, column: column))
        }
    }

    /// Per-component constants of a constant value, as the shape's constant forms define them.
    func constants(_ value: ExprValue, column: Int, signed: Bool? = nil) throws -> [Double] {
        guard let form = value.constantForm else { return [] }
        let result: [Double]?
        switch shape {
        case .single:
            if case .scalar(let c) = form { result = [c] } else { result = nil }
        case .composite(let c):
            result = c.constants(form, signed: signed ?? signsConstants)
        }
        guard let result else {
            throw ExprEvalError(code: Code.componentMismatch, column: column,
                                detail: "\(describe(value)) does not fit \(shape) (\(shape.components.count) component(s): \(shape.components.map(\.rawValue).joined(separator: ", ")))")
        }
        return result
    }

    /// Per-component factors of a constant multiplier (a number, or a tuple with one per component).
    func factors(_ value: ExprValue, column: Int) throws -> [Double] {
        switch value {
        case .scalar(let m): return Array(repeating: m, count: count)
        case .tuple(let t) where t.count == count: return t
        default:
            throw ExprEvalError(code: Code.componentMismatch, column: column,
                                detail: "the multiplier \(describe(value)) needs one number per component of \(shape) (\(count))")
        }
    }

    func evaluate(_ node: ExprNode) throws -> ExprValue {
        switch node {
        case .number(let v, _):
            return .scalar(v)
        case .anchor(let ref, _):
            return .linear(LinearVector(ref.anchors.map { LinearExpr($0) }))
        case .view(let id, let column):
            let kind = implicit[column] ?? .composite(.edges)
            return .linear(LinearVector(kind.components.map { LinearExpr(Anchor(id, $0)) }))
        case .tuple(let items, let column):
            var values: [Double] = []
            for item in items {
                guard case .scalar(let v) = try evaluate(item) else {
                    throw ExprEvalError(code: Code.nonConstantTuple, column: item.column == column ? column : item.column,
                                        detail: "tuple items must be numbers (constants), one per component")
                }
                values.append(v)
            }
            return .tuple(values)
        case .negate(let e, _):
            return negate(try evaluate(e))
        case .binary(let op, let l, let r, let column):
            return try apply(op, try evaluate(l), try evaluate(r), column: column)
        }
    }

    private func negate(_ v: ExprValue) -> ExprValue {
        switch v {
        case .scalar(let c): return .scalar(-c)
        case .tuple(let t): return .tuple(t.map { -$0 })
        case .linear(let l): return .linear(-l)
        }
    }

    private func apply(_ op: ExprOperator, _ a: ExprValue, _ b: ExprValue, column: Int) throws -> ExprValue {
        switch (op, a, b) {
        case (.add, .linear(let x), .linear(let y)): return .linear(x + y)
        case (.subtract, .linear(let x), .linear(let y)): return .linear(x - y)
        case (.add, .linear(let x), _): return .linear(x + (try vector(b, column: column)))
        case (.add, _, .linear(let y)): return .linear(try vector(a, column: column) + y)
        case (.subtract, .linear(let x), _): return .linear(x - (try vector(b, column: column)))
        case (.subtract, _, .linear(let y)): return .linear(try vector(a, column: column) - y)
        case (.multiply, .linear, .linear):
            throw ExprEvalError(code: Code.nonLinear, column: column,
                                detail: "multiplying an anchor by an anchor is not linear")
        case (.multiply, .linear(let x), _):
            return .linear(x.scaled(try factors(b, column: column), constantToo: multiplierScalesConstant))
        case (.multiply, _, .linear(let y)):
            return .linear(y.scaled(try factors(a, column: column), constantToo: multiplierScalesConstant))
        case (.divide, _, .linear):
            throw ExprEvalError(code: Code.nonLinear, column: column,
                                detail: "dividing by an expression with anchors is not linear")
        case (.divide, .linear(let x), _):
            let f = try factors(b, column: column)
            try checkDivisor(f, column: column)
            return .linear(x.scaled(f.map { 1 / $0 }, constantToo: multiplierScalesConstant))
        default:
            return try constantArithmetic(op, a, b, column: column)
        }
    }

    private func checkDivisor(_ values: [Double], column: Int) throws {
        if values.contains(0) {
            throw ExprEvalError(code: Code.divisionByZero, column: column, detail: "division by zero")
        }
    }

    /// Plain arithmetic on numbers and tuples (component-wise; a number broadcasts).
    private func constantArithmetic(_ op: ExprOperator, _ a: ExprValue, _ b: ExprValue, column: Int) throws -> ExprValue {
        func lift(_ v: ExprValue) -> [Double] {
            switch v {
            case .scalar(let c): return [c]
            case .tuple(let t): return t
            case .linear: return []
            }
        }
        let x = lift(a), y = lift(b)
        if op == .divide { try checkDivisor(y, column: column) }
        let n = max(x.count, y.count)
        guard x.count == y.count || x.count == 1 || y.count == 1 else {
            throw ExprEvalError(code: Code.componentMismatch, column: column,
                                detail: "tuples of \(x.count) and \(y.count) components cannot be combined")
        }
        let out = (0..<n).map { i -> Double in
            let p = x[x.count == 1 ? 0 : i], q = y[y.count == 1 ? 0 : i]
            switch op {
            case .add: return p + q
            case .subtract: return p - q
            case .multiply: return p * q
            case .divide: return p / q
            }
        }
        if case .scalar = a, case .scalar = b { return .scalar(out[0]) }
        return .tuple(out)
    }

    /// One anchor (or bare view) followed by operations with constant operands, as Mag reads it.
    static func magChain(_ node: ExprNode) -> (ExprNode, [(ExprOperator, ExprNode)])? {
        switch node {
        case .anchor, .view: return (node, [])
        case .binary(let op, let l, let r, _) where r.isConstant:
            guard let (base, steps) = magChain(l) else { return nil }
            return (base, steps + [(op, r)])
        default: return nil
        }
    }

    /// Mag: `+ c`/`- c` replace the constant, `* m`/`/ m` replace the multiplier (constant unscaled).
    private func mag(base: ExprNode, steps: [(ExprOperator, ExprNode)]) throws -> LinearVector {
        guard case .linear(let anchors) = try evaluate(base) else { return LinearVector([]) }
        var multiplier = Array(repeating: 1.0, count: count)
        var constant = Array(repeating: 0.0, count: count)
        for (op, node) in steps {
            let value = try evaluate(node)
            switch op {
            case .add: constant = try constants(value, column: node.column)
            case .subtract: constant = try constants(negate(value), column: node.column)
            case .multiply: multiplier = try factors(value, column: node.column)
            case .divide:
                let f = try factors(value, column: node.column)
                try checkDivisor(f, column: node.column)
                multiplier = f.map { 1 / $0 }
            }
        }
        return anchors.scaled(multiplier).withConstants(constant)
    }

    /// Mortar's `~` inset: on an inset composite the usual inset signs, on size (and on a single
    /// width or height) a subtraction from the dimensions.
    func mortarInset(_ value: ExprValue, column: Int) throws -> LinearVector {
        switch shape {
        case .composite(let c) where c.isInset:
            return LinearVector(constants: try constants(value, column: column, signed: true))
        case .composite(.size), .single(.width), .single(.height):
            return LinearVector(constants: try constants(value, column: column, signed: false).map { -$0 })
        default:
            throw ExprEvalError(code: Code.invalidInset, column: column,
                                detail: "the inset operator '~' applies to edges, horizontal, vertical, sides, caps, edgesWithinMargins and size, not to \(shape)")
        }
    }

    private func describe(_ value: ExprValue) -> String {
        switch value {
        case .scalar(let c): return describeNumber(c)
        case .tuple(let t): return "(" + t.map(describeNumber).joined(separator: ", ") + ")"
        case .linear: return "the expression"
        }
    }
}
