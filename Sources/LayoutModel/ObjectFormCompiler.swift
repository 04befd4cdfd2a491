import JSON

/// The object form of a constraint entry (spec section 4 item 1), NSLayoutConstraint's fields:
/// `first REL multiplier·second + constant`, per component for composites.
///
/// Reads `first`, `relation`, `second`, `multiplier`, `constant`; the common fields (priority,
/// activation, active, group, identifier, dialect, id) and unknown fields are the document
/// parser's business. Every item gets `context.defaultPriority`. Problems point into the entry.
public enum ObjectFormCompiler {
    typealias Code = ConstraintProblemCode

    public static let relationSpellings: [String: Relation] = [
        "==": .equal, ">=": .greaterOrEqual, "<=": .lessOrEqual,
        "equal": .equal, "greaterThanOrEqual": .greaterOrEqual, "lessThanOrEqual": .lessOrEqual,
    ]

    public static func compile(_ entry: JSONObject, context: CompileContext)
        -> Result<[LinearConstraint], [EntryProblem]> {
        var problems: [EntryProblem] = []
        let firstRef = anchor(entry["first"], pointer: "/first", required: true, context: context, into: &problems)
        let second = anchor(entry["second"], pointer: "/second", required: false, context: context,
                            into: &problems)
        let relation = self.relation(entry["relation"], into: &problems)

        guard case .some(.some(let first)) = firstRef, case .some(let secondRef) = second else {
            return .failure(problems)
        }
        let kind = first.kind
        let count = kind.components.count
        if let secondRef, !componentsPair(kind, secondRef.kind) {
            problems.append(EntryProblem(pointer: "/second", code: Code.componentMismatch,
                detail: "\(first) has \(count) component(s) (\(list(kind))) and \(secondRef) has \(secondRef.kind.components.count) (\(list(secondRef.kind))); they do not pair up"))
        }
        let multipliers = multiplier(entry["multiplier"], count: count, kind: kind, context: context,
                                     into: &problems)
        let constants = constant(entry["constant"], kind: kind, context: context, into: &problems)
        guard problems.isEmpty, let relation, let multipliers, let constants else { return .failure(problems) }

        var lhs = LinearVector(first.anchors.map { LinearExpr($0) })
        lhs = lhs - LinearVector(constants: constants)
        var rhs = LinearVector(constants: Array(repeating: 0, count: count))
        if let secondRef {
            rhs = LinearVector(secondRef.anchors.map { LinearExpr($0) }).scaled(multipliers)
        }
        let views = uniqueViews([first.view] + (secondRef.map { [$0.view] } ?? []))
        let items = makeItems(lhs: lhs, rhs: rhs, relation: relation, priority: context.defaultPriority,
                              views: views, firstView: firstItemView(first.view, views: context.views))
        return .success(items.map { ConstraintRules.measuringFromSuperview($0, context: context) })
    }

    /// Whether two anchor kinds can be related component by component.
    static func componentsPair(_ a: AnchorKind, _ b: AnchorKind) -> Bool {
        switch (a, b) {
        case (.single, .single): return true
        case (.composite(let x), .composite(let y)): return x.pairs(with: y)
        default: return false
        }
    }

    private static func list(_ kind: AnchorKind) -> String {
        kind.components.map(\.rawValue).joined(separator: ", ")
    }

    /// nil = a problem was reported; `.some(nil)` = absent (only when not required).
    private static func anchor(_ value: JSONValue?, pointer: String, required: Bool, context: CompileContext,
                               into problems: inout [EntryProblem]) -> AnchorReference?? {
        guard let value, !value.isNull else {
            if required {
                problems.append(EntryProblem(pointer: pointer, code: Code.missingField,
                                             detail: "'first' (an anchor such as \"view.top\") is required"))
                return nil
            }
            return .some(nil)
        }
        guard case .string(let text) = value else {
            problems.append(EntryProblem(pointer: pointer, code: Code.invalidType,
                                         detail: "expected an anchor string such as \"view.top\", got \(value.typeName)"))
            return nil
        }
        switch AnchorVocabulary.reference(text, views: context.views) {
        case .success(let ref): return .some(ref)
        case .failure(.malformed):
            problems.append(EntryProblem(pointer: pointer, code: Code.invalidAnchor,
                                         detail: "'\(text)' is not an anchor of the form viewId.attribute"))
        case .failure(.unknownView(let v)):
            let near = context.views.suggestion(for: v)
            problems.append(EntryProblem(pointer: pointer, code: Code.unknownView,
                                         detail: "no view '\(v)' in the document" + Suggestion.phrase(near), suggestion: near))
        case .failure(.unknownAttribute(let a)):
            let near = AnchorVocabulary.suggestion(for: a)
            problems.append(EntryProblem(pointer: pointer, code: Code.unknownAttribute,
                                         detail: "unknown attribute '\(a)' in '\(text)'" + Suggestion.phrase(near), suggestion: near))
        }
        return nil
    }

    private static func relation(_ value: JSONValue?, into problems: inout [EntryProblem]) -> Relation? {
        guard let value, !value.isNull else { return .equal }
        if case .string(let s) = value, let r = relationSpellings[s] { return r }
        let shown = value.stringValue.map { "'\($0)'" } ?? value.typeName
        problems.append(EntryProblem(pointer: "/relation", code: Code.invalidRelation,
            detail: "\(shown) is not a relation; use ==, >=, <=, equal, greaterThanOrEqual or lessThanOrEqual"))
        return nil
    }

    private static func multiplier(_ value: JSONValue?, count: Int, kind: AnchorKind, context: CompileContext,
                                   into problems: inout [EntryProblem]) -> [Double]? {
        guard let value, !value.isNull else { return Array(repeating: 1, count: count) }
        switch value {
        case .number(let m):
            if let p = numberProblem(m, maxMagnitude: context.maxMagnitude, pointer: "/multiplier") {
                problems.append(p); return nil
            }
            return Array(repeating: m, count: count)
        case .array(let items) where items.count == count && items.allSatisfy({ $0.numberValue != nil }):
            let values = items.compactMap(\.numberValue)
            let bad = values.enumerated().compactMap {
                numberProblem($1, maxMagnitude: context.maxMagnitude, pointer: "/multiplier/\($0)")
            }
            problems.append(contentsOf: bad)
            return bad.isEmpty ? values : nil
        default:
            problems.append(EntryProblem(pointer: "/multiplier", code: Code.invalidMultiplier,
                detail: "the multiplier of \(kind) must be a number or an array of \(count) numbers (\(list(kind))), got \(value.typeName)"))
            return nil
        }
    }

    /// Per-component constants, inset signs applied.
    private static func constant(_ value: JSONValue?, kind: AnchorKind, context: CompileContext,
                                 into problems: inout [EntryProblem]) -> [Double]? {
        guard let value, !value.isNull else { return Array(repeating: 0, count: kind.components.count) }
        let max = context.maxMagnitude
        let form: ConstantForm
        var bad: [EntryProblem] = []
        switch value {
        case .number(let c):
            if let p = numberProblem(c, maxMagnitude: max, pointer: "/constant") { bad.append(p) }
            form = .scalar(c)
        case .array(let items) where items.allSatisfy({ $0.numberValue != nil }):
            let values = items.compactMap(\.numberValue)
            for (i, c) in values.enumerated() {
                if let p = numberProblem(c, maxMagnitude: max, pointer: "/constant/\(i)") { bad.append(p) }
            }
            form = .list(values)
        case .object(let o) where o.values.allSatisfy({ $0.numberValue != nil }):
            let pairs = o.entries.map { (key: $0, value: $1.numberValue!) }
            for (k, c) in pairs {
                if let p = numberProblem(c, maxMagnitude: max, pointer: "/constant/\(jsonPointerToken(k))") {
                    bad.append(p)
                }
            }
            form = .keyed(pairs)
        default:
            form = .list([])   // never fits: reported below
        }
        if !bad.isEmpty { problems.append(contentsOf: bad); return nil }
        let result: [Double]?
        switch kind {
        case .single:
            if case .scalar(let c) = form { result = [c] } else { result = nil }
        case .composite(let c):
            result = c.constants(form)
        }
        guard let result else {
            let forms: String
            switch kind {
            case .single: forms = "a number"
            case .composite(let c): forms = c.constantFormsDescription
            }
            problems.append(EntryProblem(pointer: "/constant", code: Code.invalidConstant,
                detail: "the constant of \(kind) must be \(forms)"))
            return nil
        }
        return result
    }
}

extension ObjectFormCompiler {
    /// Where the fields of the object form are in the entry (-1 = absent), as the document parser
    /// meets them.
    struct Fields {
        var first = -1, second = -1, relation = -1, multiplier = -1, constant = -1

        mutating func set(_ field: ConstraintField, at position: Int) {
            switch field {
            case .first: first = position
            case .second: second = position
            case .relation: relation = position
            case .multiplier: multiplier = position
            case .constant: constant = position
            default: break
            }
        }
    }

    /// `relationSpellings[s]` without hashing.
    static func relation(spelled s: String) -> Relation? {
        switch s {
        case "==", "equal": return .equal
        case ">=", "greaterThanOrEqual": return .greaterOrEqual
        case "<=", "lessThanOrEqual": return .lessOrEqual
        default: return nil
        }
    }

    /// The common entry, compiled and checked in one go over the document's tables: `first` and an
    /// optional `second` naming single attributes of known views, an optional relation, a number
    /// (or no) multiplier and constant, outside Mortar's dialect, making one item that
    /// `ConstraintRules` accepts.
    ///
    /// - Returns: the item exactly as `compile(_:context:)` makes it, or nil for anything else (a
    ///   problem, a composite, an array constant...): the caller then runs `compile` and
    ///   `ConstraintRules.check`, which decide and describe.
    static func compileCommon(_ entry: JSONObject, _ fields: Fields, context: CompileContext,
                              table: ViewTable) -> LinearConstraint? {
        guard context.dialect != .mortar else { return nil }
        let values = entry.values
        func value(_ position: Int) -> JSONValue? { position < 0 ? nil : values[position] }
        let firstValue = value(fields.first), secondValue = value(fields.second)
        let relationValue = value(fields.relation)
        let multiplierValue = value(fields.multiplier), constantValue = value(fields.constant)
        guard case .string(let firstText)? = firstValue, let first = table.singleAnchor(firstText) else { return nil }
        var second: (view: Int, attribute: Attribute)?
        switch secondValue {
        case nil, .null?: second = nil
        case .string(let text)?:
            guard let s = table.singleAnchor(text) else { return nil }
            second = s
        default: return nil
        }
        let relation: Relation
        switch relationValue {
        case nil, .null?: relation = .equal
        case .string(let s)?:
            guard let r = Self.relation(spelled: s) else { return nil }
            relation = r
        default: return nil
        }
        let max = context.maxMagnitude
        var m = 1.0
        switch multiplierValue {
        case nil, .null?: break
        case .number(let x)?:
            guard x.isFinite && abs(x) <= max else { return nil }
            m = x
        default: return nil
        }
        var c = 0.0
        switch constantValue {
        case nil, .null?: break
        case .number(let x)?:
            guard x.isFinite && abs(x) <= max else { return nil }
            c = x
        default: return nil
        }

        // `first - m·second - c REL 0`, like terms combined as `LinearExpr.combined` does (the same
        // sums in the same order, so the same coefficients).
        let firstView = table.ids[first.view]
        let a = Anchor(firstView, first.attribute)
        let terms: [LinearTerm]
        let views: [String]
        var attributes = (first.attribute, first.attribute)
        var termCount = 1
        if let second {
            let secondView = table.ids[second.view]
            views = first.view == second.view ? [firstView] : [firstView, secondView]
            let coefficient = (1 * m) * -1
            if first.view == second.view && first.attribute == second.attribute {
                let sum = (0 + 1.0) + coefficient, magnitude = (0 + 1.0) + abs(coefficient)
                guard !(abs(sum) <= 1e-12 * magnitude) else { return nil }  // no_anchor
                terms = [LinearTerm(a, sum)]
            } else {
                let sum = 0 + coefficient, magnitude = 0 + abs(coefficient)
                if abs(sum) <= 1e-12 * magnitude {
                    terms = [LinearTerm(a, 0 + 1.0)]
                } else {
                    terms = [LinearTerm(a, 0 + 1.0), LinearTerm(Anchor(secondView, second.attribute), sum)]
                    attributes.1 = second.attribute
                    termCount = 2
                }
            }
            // Both views must share a root (the second counts even when its term dropped out).
            guard table.root[second.view] == table.root[first.view] else { return nil }
        } else {
            views = [firstView]
            terms = [LinearTerm(a, 0 + 1.0)]
        }
        // ConstraintRules over the item's anchors (a guide's anchors are checked per term).
        guard table.root[first.view] >= 0 else { return nil }
        let (x, y) = attributes
        if termCount == 1 {
            if !x.isDimension { return nil }  // position_constant (not Mortar)
            if table.isGuide[first.view] && (x.isMargin || x.isBaseline) { return nil }
        } else {
            if !x.isDimension && !y.isDimension && x.axis != y.axis { return nil }  // cross_axis
            if (x.isDirectional && y.isPhysicalHorizontal) || (y.isDirectional && x.isPhysicalHorizontal) {
                return nil  // mixed_direction
            }
            if table.isGuide[first.view] && (x.isMargin || x.isBaseline) { return nil }
            if let second, table.isGuide[second.view] && (y.isMargin || y.isBaseline) { return nil }
        }
        return LinearConstraint(terms: terms, constant: c == 0 ? 0 : -c, relation: relation,
                                priority: context.defaultPriority, views: views,
                                firstView: table.isGuide[first.view] ? nil : firstView)
    }
}
