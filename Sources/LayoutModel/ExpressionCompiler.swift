/// The expression form of a constraint entry (spec section 4 item 2): `side relation side
/// [marker priority]`, any linear relation over anchors, composites expanded component-wise, with
/// the arithmetic of `context.dialect`.
///
/// Each item is `lhs_i - rhs_i REL 0` (terms in order of appearance, like terms combined).
/// `views` are the views named in order of appearance; `firstView` is the view of the first anchor
/// reading left to right (nil when that is a layout guide). Problems are all at `pointer` (`""`
/// for an entry that is a string, `"/expr"` for `{ "expr": ... }`), with the column in the detail.
public enum ExpressionCompiler {
    typealias Code = ConstraintProblemCode

    public static func compile(_ text: String, context: CompileContext, pointer: String = "")
        -> Result<[LinearConstraint], [EntryProblem]> {
        // The common shapes without tokens, tree or vectors (ExpressionCommon.swift); nil = not one.
        if let table = context.table, let item = compileCommon(text, context: context, table: table) {
            return .success([item])
        }
        func problem(_ code: String, _ column: Int, _ detail: String) -> EntryProblem {
            EntryProblem(pointer: pointer, code: code, detail: "at column \(column): \(detail)")
        }
        let tokens: [ExprToken]
        switch ExprTokenizer(text, views: context.views).tokenize() {
        case .success(let t): tokens = t
        case .failure(let e): return .failure([problem(Code.syntax, e.column, e.message)])
        }
        var parser = ExprParser(tokens: tokens, context: context, pointer: pointer)
        let parsed: ParsedExpression
        switch parser.parse() {
        case .success(let p): parsed = p
        case .failure(let e): return .failure([problem(Code.syntax, e.column, e.message)])
        }
        var problems = parser.problems
        if let column = parsed.priorityColumn, context.priorityField != nil {
            problems.append(EntryProblem(pointer: "/priority", code: Code.duplicatePriority,
                detail: "the expression gives a priority (column \(column)) and so does the entry's 'priority' field; give it once"))
        }
        if !problems.isEmpty { return .failure(problems) }

        // Implicit attributes of bare view ids, then the constraint's shape.
        let left = references(parsed.lhs), right = references(parsed.rhs)
        var implicit: [Int: AnchorKind] = [:]
        for (mine, other) in [(left, right), (right, left)] {
            let kind = other.compactMap(\.kind).first ?? mine.compactMap(\.kind).first ?? .composite(.edges)
            for r in mine where r.kind == nil { implicit[r.column] = kind }
        }
        let all = (left + right).map { Reference(view: $0.view, kind: $0.kind ?? implicit[$0.column], column: $0.column) }
        guard let first = all.first else {
            return .failure([EntryProblem(pointer: pointer, code: Code.noAnchor,
                                          detail: "the expression names no anchor")])
        }
        let shapeRef = all.first { $0.kind?.composite != nil } ?? first
        let shape = shapeRef.kind!
        for r in all where !ObjectFormCompiler.componentsPair(shape, r.kind!) {
            return .failure([problem(Code.componentMismatch, r.column,
                "\(r.view).\(r.kind!) (\(r.kind!.components.map(\.rawValue).joined(separator: ", "))) does not pair up component by component with \(shapeRef.view).\(shape) (\(shape.components.map(\.rawValue).joined(separator: ", ")))")])
        }

        let evaluator = ExprEvaluator(shape: shape, dialect: context.dialect, implicit: implicit)
        let lhs: LinearVector, rhs: LinearVector
        do {
            lhs = try evaluator.evaluateSide(parsed.lhs, isRight: false)
            var r = try evaluator.evaluateSide(parsed.rhs, isRight: true)
            if let inset = parsed.inset {
                guard inset.isConstant else {
                    throw ExprEvalError(code: Code.invalidInset, column: inset.column,
                                        detail: "the inset after '~' must be a number or a tuple of numbers")
                }
                r = r + (try evaluator.mortarInset(try evaluator.evaluate(inset), column: inset.column))
            }
            rhs = r
        } catch let e as ExprEvalError {
            return .failure([problem(e.code, e.column, e.detail)])
        } catch {
            return .failure([problem(Code.syntax, 1, "\(error)")])
        }

        let views = uniqueViews(all.map(\.view))
        var items = makeItems(lhs: lhs, rhs: rhs, relation: parsed.relation,
                              priority: parsed.priority ?? context.defaultPriority,
                              views: views, firstView: firstItemView(first.view, views: context.views))
        for item in items {
            for x in item.terms.map(\.coefficient) + [item.constant] {
                if let p = numberProblem(x, maxMagnitude: context.maxMagnitude, pointer: pointer,
                                         what: "a computed coefficient or constant") {
                    return .failure([p])
                }
            }
        }
        items = items.map { ConstraintRules.measuringFromSuperview($0, context: context) }
        return .success(items)
    }

    /// An anchor or bare view id as written; `kind` nil for a bare view id.
    struct Reference: Equatable {
        var view: String
        var kind: AnchorKind?
        var column: Int
    }

    /// The anchors and bare views of a side, left to right.
    static func references(_ node: ExprNode) -> [Reference] {
        switch node {
        case .number: return []
        case .anchor(let ref, let column): return [Reference(view: ref.view, kind: ref.kind, column: column)]
        case .view(let id, let column): return [Reference(view: id, kind: nil, column: column)]
        case .tuple(let items, _): return items.flatMap(references)
        case .negate(let e, _): return references(e)
        case .binary(_, let l, let r, _): return references(l) + references(r)
        }
    }
}
