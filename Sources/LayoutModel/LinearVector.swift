/// `Σ coefficient·anchor + constant`, terms in order of first appearance; the working value of the
/// expression evaluator and the object-form compiler.
struct LinearExpr: Equatable, Sendable {
    var terms: [LinearTerm] = []
    var constant: Double = 0

    init(terms: [LinearTerm] = [], constant: Double = 0) { self.terms = terms; self.constant = constant }
    init(_ anchor: Anchor, _ coefficient: Double = 1) { terms = [LinearTerm(anchor, coefficient)] }
    init(constant: Double) { self.constant = constant }

    var hasAnchors: Bool { !terms.isEmpty }

    static func + (a: LinearExpr, b: LinearExpr) -> LinearExpr {
        LinearExpr(terms: a.terms + b.terms, constant: a.constant + b.constant)
    }
    static prefix func - (a: LinearExpr) -> LinearExpr { a.scaled(-1) }
    static func - (a: LinearExpr, b: LinearExpr) -> LinearExpr { a + (-b) }

    /// Multiplies the terms by `m`, and the constant too unless `constantToo` is false (Mortar's
    /// and Mag's `* m`, which scales the multiplier only).
    func scaled(_ m: Double, constantToo: Bool = true) -> LinearExpr {
        LinearExpr(terms: terms.map { LinearTerm($0.anchor, $0.coefficient * m) },
                   constant: constantToo ? constant * m : constant)
    }

    /// Like terms combined (in order of first appearance); terms that cancel are dropped (a sum
    /// whose magnitude is below 1e-12 of the magnitudes that went into it counts as 0).
    func combined() -> LinearExpr {
        var order: [Anchor] = []
        var sum: [Anchor: Double] = [:]
        var mag: [Anchor: Double] = [:]
        for t in terms {
            if sum[t.anchor] == nil { order.append(t.anchor) }
            sum[t.anchor, default: 0] += t.coefficient
            mag[t.anchor, default: 0] += abs(t.coefficient)
        }
        let kept = order.compactMap { a -> LinearTerm? in
            let s = sum[a]!
            return abs(s) <= 1e-12 * mag[a]! ? nil : LinearTerm(a, s)
        }
        return LinearExpr(terms: kept, constant: constant)
    }
}

/// A vector of linear expressions, one per component of a composite (one for a single attribute).
struct LinearVector: Equatable, Sendable {
    var components: [LinearExpr]
    init(_ components: [LinearExpr]) { self.components = components }
    /// A vector of constants.
    init(constants: [Double]) { components = constants.map { LinearExpr(constant: $0) } }

    var count: Int { components.count }
    var hasAnchors: Bool { components.contains { $0.hasAnchors } }

    static func + (a: LinearVector, b: LinearVector) -> LinearVector {
        LinearVector(zip(a.components, b.components).map { $0 + $1 })
    }
    static func - (a: LinearVector, b: LinearVector) -> LinearVector { a + (-b) }
    static prefix func - (a: LinearVector) -> LinearVector { LinearVector(a.components.map { -$0 }) }

    /// Component i scaled by `factors[i]` (constants too unless `constantToo` is false).
    func scaled(_ factors: [Double], constantToo: Bool = true) -> LinearVector {
        LinearVector(zip(components, factors).map { $0.scaled($1, constantToo: constantToo) })
    }
    /// The constants replaced (Mag's `+ c`).
    func withConstants(_ values: [Double]) -> LinearVector {
        LinearVector(zip(components, values).map { LinearExpr(terms: $0.terms, constant: $1) })
    }
}

/// Builds the items of one entry: `lhs_i - rhs_i REL 0` per component.
func makeItems(lhs: LinearVector, rhs: LinearVector, relation: Relation, priority: Double,
               views: [String], firstView: String?) -> [LinearConstraint] {
    zip(lhs.components, rhs.components).map { l, r in
        let e = (l - r).combined()
        return LinearConstraint(terms: e.terms, constant: e.constant == 0 ? 0 : e.constant,
                                relation: relation, priority: priority, views: views, firstView: firstView)
    }
}

/// Views of anchors in order of appearance, without duplicates.
func uniqueViews(_ ids: [String]) -> [String] {
    var seen: Set<String> = []
    return ids.filter { seen.insert($0).inserted }
}

/// The first item's view for `firstInvisible`: the view of the first anchor, nil for a guide.
func firstItemView(_ view: String?, views: ViewLookup) -> String? {
    guard let view, let v = views[view], v.kind == .view else { return nil }
    return view
}

/// A number for problem details: integers without `.0`.
func describeNumber(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return String(x)
}

/// The `number_out_of_range` check shared by the constraint compilers.
func numberProblem(_ x: Double, maxMagnitude: Double, pointer: String, what: String = "")
    -> EntryProblem? {
    if x.isFinite && abs(x) <= maxMagnitude { return nil }
    let prefix = what.isEmpty ? "" : "\(what): "
    let detail = x.isFinite
        ? "\(prefix)\(describeNumber(x)) is larger in magnitude than the limit \(describeNumber(maxMagnitude))"
        : "\(prefix)\(x) is not a finite number"
    return EntryProblem(pointer: pointer, code: ConstraintProblemCode.numberOutOfRange, detail: detail)
}

/// Problem codes the constraint compilers emit (stable, snake_case; registered in `ProblemCode`).
enum ConstraintProblemCode {
    static let missingField = ProblemCode.missingField.rawValue
    static let invalidType = ProblemCode.invalidType.rawValue
    static let unknownView = ProblemCode.unknownView.rawValue
    static let unknownAttribute = ProblemCode.unknownAttribute.rawValue
    static let invalidAnchor = ProblemCode.invalidAnchor.rawValue
    static let invalidRelation = ProblemCode.invalidRelation.rawValue
    static let invalidConstant = ProblemCode.invalidConstant.rawValue
    static let invalidMultiplier = ProblemCode.invalidMultiplier.rawValue
    static let componentMismatch = ProblemCode.componentMismatch.rawValue
    static let numberOutOfRange = ProblemCode.numberOutOfRange.rawValue
    static let syntax = ProblemCode.syntax.rawValue
    static let invalidPriority = ProblemCode.invalidPriority.rawValue
    static let duplicatePriority = ProblemCode.duplicatePriority.rawValue
    static let nonLinear = ProblemCode.nonLinear.rawValue
    static let divisionByZero = ProblemCode.divisionByZero.rawValue
    static let invalidInset = ProblemCode.invalidInset.rawValue
    static let nonConstantTuple = ProblemCode.nonConstantTuple.rawValue
    static let noAnchor = ProblemCode.noAnchor.rawValue
    static let crossAxis = ProblemCode.crossAxis.rawValue
    static let mixedDirection = ProblemCode.mixedDirection.rawValue
    static let positionConstant = ProblemCode.positionConstant.rawValue
    static let notForGuide = ProblemCode.notForGuide.rawValue
    static let noCommonRoot = ProblemCode.noCommonRoot.rawValue
}
