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
            problems.append(EntryProblem(pointer: pointer, code: Code.unknownView,
                                         detail: "no view '\(v)' in the document"))
        case .failure(.unknownAttribute(let a)):
            problems.append(EntryProblem(pointer: pointer, code: Code.unknownAttribute,
                                         detail: "unknown attribute '\(a)' in '\(text)'"))
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
