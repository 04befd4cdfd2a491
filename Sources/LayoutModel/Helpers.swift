import JSON

/// Cartography's helpers (spec section 4, item 4), lowered to `LinearConstraint`s:
///
/// - `{ "align": ATTR, "views": [v0, v1, ...] }`: `vi.ATTR == v0.ATTR` for i >= 1; ATTR is any single
///   or composite name of `AnchorVocabulary` (composites expand component-wise, view by view).
/// - `{ "distribute": "horizontal" | "leftToRight" | "vertical", "spacing": n, "views": [...] }`:
///   `prev.trailing == next.leading - n` (right/left for leftToRight, bottom/top for vertical);
///   spacing defaults to 0.
/// - `{ "distribute": "equalWidth" | "equalHeight", "views": [...] }`: `vi.width == v0.width`.
///
/// Fewer than two views make no constraints. Every item is required unless the entry's `priority`
/// field says otherwise; an item's `firstView` is its first anchor's view, nil when that is a guide. Field validation (types, unknown views, ranges) is done here; the caller
/// rejects fields that are not helper fields and applies `ConstraintRules`.
public enum HelperCompiler {
    public enum Distribution: String, CaseIterable, Sendable {
        case horizontal, leftToRight, vertical, equalWidth, equalHeight

        /// (previous view's attribute, next view's attribute) of a chain; nil for equal sizes.
        var chain: (Attribute, Attribute)? {
            switch self {
            case .horizontal: return (.trailing, .leading)
            case .leftToRight: return (.right, .left)
            case .vertical: return (.bottom, .top)
            case .equalWidth, .equalHeight: return nil
            }
        }
    }

    /// Compiles the entry whose form key is `align` or `distribute`.
    public static func compile(_ entry: JSONObject, context: CompileContext) -> Result<[LinearConstraint], [EntryProblem]> {
        var problems: [EntryProblem] = []
        let views = viewList(entry, context: context, problems: &problems)
        let isAlign = entry.keys.first(where: { $0 == "align" || $0 == "distribute" }) == "align"
        var items: [LinearConstraint] = []
        if isAlign {
            let attributes = alignAttributes(entry["align"], problems: &problems)
            if let views, let attributes, problems.isEmpty {
                items = align(views, attributes, priority: context.defaultPriority)
            }
        } else {
            let kind = distribution(entry["distribute"], problems: &problems)
            let spacing = self.spacing(entry["spacing"], kind: kind, context: context, problems: &problems)
            if let views, let kind, let spacing, problems.isEmpty {
                items = distribute(views, kind, spacing: spacing, priority: context.defaultPriority)
            }
        }
        guard problems.isEmpty else { return .failure(problems) }
        // `firstInvisible` never holds for a guide as first item: like the other forms, name only views.
        for i in items.indices where context.views[items[i].firstView ?? ""]?.kind != .view { items[i].firstView = nil }
        return .success(items)
    }

    /// `vi.attribute == v0.attribute` for every view after the first and every attribute.
    public static func align(_ views: [String], _ attributes: [Attribute], priority: Double) -> [LinearConstraint] {
        guard let first = views.first else { return [] }
        return views.dropFirst().flatMap { view in
            attributes.map { pair(Anchor(view, $0), Anchor(first, $0), constant: 0, priority: priority) }
        }
    }

    public static func distribute(_ views: [String], _ kind: Distribution, spacing: Double,
                                  priority: Double) -> [LinearConstraint] {
        guard views.count >= 2 else { return [] }
        if let (prevAttr, nextAttr) = kind.chain {
            // prev.a == next.b - n  ⇔  prev.a - next.b + n == 0
            return zip(views, views.dropFirst()).map { prev, next in
                pair(Anchor(prev, prevAttr), Anchor(next, nextAttr), constant: spacing, priority: priority)
            }
        }
        let attr: Attribute = kind == .equalWidth ? .width : .height
        return views.dropFirst().map { pair(Anchor($0, attr), Anchor(views[0], attr), constant: 0, priority: priority) }
    }

    /// `first - second + constant == 0`.
    static func pair(_ first: Anchor, _ second: Anchor, constant: Double, priority: Double) -> LinearConstraint {
        let views = first.view == second.view ? [first.view] : [first.view, second.view]
        return LinearConstraint(terms: [LinearTerm(first, 1), LinearTerm(second, -1)], constant: constant,
                                relation: .equal, priority: priority, views: views, firstView: first.view)
    }

    private static func viewList(_ entry: JSONObject, context: CompileContext,
                                 problems: inout [EntryProblem]) -> [String]? {
        guard let value = entry["views"] else {
            problems.append(EntryProblem("/views", .missingField, "a helper needs \"views\": an array of view ids"))
            return nil
        }
        guard case .array(let list) = value else {
            problems.append(EntryProblem("/views", .invalidType, "expected an array of view ids, got \(value.typeName)"))
            return nil
        }
        var out: [String] = []
        for (i, v) in list.enumerated() {
            guard case .string(let id) = v else {
                problems.append(EntryProblem("/views/\(i)", .invalidType, "expected a view id, got \(v.typeName)"))
                continue
            }
            if context.views[id] == nil {
                let near = context.views.suggestion(for: id)
                problems.append(EntryProblem("/views/\(i)", .unknownView, "'\(id)' is not a view of this document"
                                             + Suggestion.phrase(near), suggestion: near))
            }
            out.append(id)
        }
        return out
    }

    private static func alignAttributes(_ value: JSONValue?, problems: inout [EntryProblem]) -> [Attribute]? {
        guard case .string(let name)? = value else {
            problems.append(EntryProblem("/align", .invalidType,
                                         "expected an attribute name such as \"top\" or \"centerY\", got \(value?.typeName ?? "nothing")"))
            return nil
        }
        guard let kind = AnchorVocabulary.resolve(name) else {
            let near = AnchorVocabulary.suggestion(for: name)
            problems.append(EntryProblem("/align", .unknownAttribute,
                "unknown attribute '\(name)'; use one of \(AnchorVocabulary.baseNames.joined(separator: ", "))"
                + Suggestion.phrase(near), suggestion: near))
            return nil
        }
        return kind.components
    }

    private static func distribution(_ value: JSONValue?, problems: inout [EntryProblem]) -> Distribution? {
        let choices = Distribution.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let name)? = value else {
            problems.append(EntryProblem("/distribute", .invalidType, "expected one of \(choices), got \(value?.typeName ?? "nothing")"))
            return nil
        }
        guard let kind = Distribution(rawValue: name) else {
            problems.append(EntryProblem("/distribute", .invalidValue, "unknown distribution '\(name)'; use one of \(choices)"))
            return nil
        }
        return kind
    }

    private static func spacing(_ value: JSONValue?, kind: Distribution?, context: CompileContext,
                                problems: inout [EntryProblem]) -> Double? {
        guard let value else { return 0 }
        if let kind, kind.chain == nil {
            problems.append(EntryProblem("/spacing", .unknownField,
                                         "\(kind.rawValue) takes no spacing; spacing applies to horizontal, leftToRight and vertical"))
            return nil
        }
        guard case .number(let x) = value else {
            problems.append(EntryProblem("/spacing", .invalidType, "expected a number, got \(value.typeName)"))
            return nil
        }
        guard let ok = FieldReader.checkMagnitude(x, maxMagnitude: context.maxMagnitude) else {
            problems.append(EntryProblem("/spacing", .numberOutOfRange,
                                         FieldReader.magnitudeMessage(x, maxMagnitude: context.maxMagnitude)))
            return nil
        }
        return ok
    }
}
