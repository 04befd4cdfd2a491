import JSON

/// A constraint as an explanation names it: its id (an entry's id, or a generated one's such as
/// `toolbar/spacing-2` or `label.intrinsicSize.height.compressionResistance`, as diagnostics name
/// them), its text (as the document wrote it, or a readable form) and its priority.
public struct ExplainedConstraint: Equatable, Sendable {
    public var id: String
    public var text: String
    public var priority: Double

    var json: JSONValue {
        .object(JSONObject([("id", .string(id)), ("text", .string(text)), ("priority", .number(priority))]))
    }
}

/// A constraint that does not hold as written, met while explaining a value: a required one kept
/// broken (it conflicts with `conflictsWith`, the required constraints the solver found against
/// it) or an optional one left unsatisfied (`conflictsWith`: the constraints that hold its
/// expression where it is instead).
public struct ExplainedBreak: Equatable, Sendable {
    public var constraint: ExplainedConstraint
    /// True for a broken required constraint, false for an unsatisfied optional one.
    public var required: Bool
    public var conflictsWith: [ExplainedConstraint]

    var json: JSONValue {
        .object(JSONObject([("id", .string(constraint.id)), ("text", .string(constraint.text)),
                            ("priority", .number(constraint.priority)),
                            ("kind", .string(required ? "conflicting" : "unsatisfied")),
                            ("conflictsWith", .array(conflictsWith.map(\.json)))]))
    }
}

/// Why a view's attribute has its value (`LayoutSystem.explain`; docs/http.md, "Explain").
public struct ExplainAnswer: Equatable, Sendable {
    public var view: String
    /// The attribute's canonical name (`lastBaseline` for `baseline`).
    public var attribute: String
    /// In root coordinates, as constraints see the anchor.
    public var value: Double
    /// Another optimal solution gives the attribute another value.
    public var ambiguous: Bool
    /// The constraints that determine the value, in the chain's order.
    public var constraints: [ExplainedConstraint]
    /// The constraints written out from the attribute back to the fixed frames, `;`-separated,
    /// each with its id or origin in parentheses.
    public var chain: String
    /// The views a free direction that moves the value moves (document order); empty when the
    /// value is determined.
    public var freeViews: [String]
    public var broken: [ExplainedBreak]

    /// The answer as the API and `layoutd solve --explain` print it.
    public var json: JSONValue {
        .object(JSONObject([
            ("view", .string(view)), ("attribute", .string(attribute)), ("value", .number(value)),
            ("ambiguous", .bool(ambiguous)), ("constraints", .array(constraints.map(\.json))),
            ("chain", .string(chain)), ("freeViews", .array(freeViews.map { .string($0) })),
            ("broken", .array(broken.map(\.json))),
        ]))
    }
}

/// Why an explain request names nothing to explain.
public enum ExplainError: Error, Equatable, Sendable {
    /// No view with this id; the nearest id, if one is near.
    case unknownView(String, suggestion: String?)
    /// No attribute of this name; the nearest name, if one is near.
    case unknownAttribute(String, suggestion: String?)
    /// A composite (`edges`, `size`): explain one of its attributes.
    case compositeAttribute(String, components: [String])

    /// One sentence for a problem's detail or the command line.
    public var message: String {
        switch self {
        case .unknownView(let id, let s):
            return "no view '\(id)' in the document" + (s.map { "; did you mean '\($0)'?" } ?? "")
        case .unknownAttribute(let name, let s):
            return "'\(name)' is not an attribute" + (s.map { "; did you mean '\($0)'?" } ?? "")
        case .compositeAttribute(let name, let components):
            return "'\(name)' is a composite anchor: explain one of its attributes (\(components.joined(separator: ", ")))"
        }
    }
}
