import JSON

/// Parses a constraint entry's `activation` field (spec section 5): `"always"` (the default),
/// `"manual"`, `"bothVisible"`, `"firstInvisible"`, `"delegate"` or `{ "when": "predicate" }`.
public enum ActivationParser {
    public static let names: [(String, Activation)] = [
        ("always", .always), ("manual", .manual), ("bothVisible", .bothVisible),
        ("firstInvisible", .firstInvisible), ("delegate", .delegate),
    ]

    /// - Parameters:
    ///   - pointer: the field's pointer (`/constraints/c3/activation`); problems are reported there
    ///     (a predicate's problems at `<pointer>/when`).
    ///   - views: the document's views, for the predicate's view checks; nil skips them.
    public static func parse(_ value: JSONValue, pointer at: String,
                             views: ViewLookup?) -> Result<Activation, ValidationError> {
        switch value {
        case .string(let s):
            if let hit = names.first(where: { $0.0 == s }) { return .success(hit.1) }
            return .failure(ValidationError([Problem(at, .invalidValue,
                "unknown activation rule '\(s)'; use one of \(names.map { $0.0 }.joined(separator: ", ")) "
                + "or {\"when\": \"predicate\"}")]))
        case .object(let o):
            var problems: [Problem] = []
            for key in o.keys where key != "when" {
                let near = Suggestion.nearest(key, among: ["when"])
                problems.append(Problem(docPointer(at, key), .unknownField,
                                        "unknown field '\(key)' in an activation rule; only \"when\" is allowed"
                                        + Suggestion.phrase(near), suggestion: near))
            }
            let whenAt = docPointer(at, "when")
            switch o["when"] {
            case nil:
                problems.append(Problem(whenAt, .missingField, "an activation object needs a \"when\" predicate"))
            case .string(let text)?:
                switch PredicateParser.parse(text, views: views) {
                case .success(let predicate):
                    if problems.isEmpty { return .success(.when(predicate)) }
                case .failure(let found):
                    problems += found.map { Problem(pointer: whenAt + $0.pointer, code: $0.code, detail: $0.detail, suggestion: $0.suggestion) }
                }
            case let other?:
                problems.append(Problem(whenAt, .invalidType, "expected a predicate string, got \(other.typeName)"))
            }
            return .failure(ValidationError(problems))
        default:
            return .failure(ValidationError([Problem(at, .invalidType,
                "expected an activation rule name or {\"when\": \"predicate\"}, got \(value.typeName)")]))
        }
    }
}
