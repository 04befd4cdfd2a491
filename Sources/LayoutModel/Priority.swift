import JSON

/// Auto Layout priorities: numbers in (0, 1000] or the spec's names. 1000 is required.
public enum Priority {
    public static let required = 1000.0
    public static let defaultHigh = 750.0
    public static let defaultLow = 250.0
    public static let fittingSize = 50.0

    /// Named priorities of the spec (section 4).
    public static let names: [String: Double] = [
        "required": 1000, "defaultHigh": 750, "high": 750, "medium": 500,
        "defaultLow": 250, "low": 250, "fittingSizeLevel": 50, "fittingSize": 50,
        "dragThatCanResizeWindow": 510, "windowSizeStayPut": 500, "dragThatCannotResizeWindow": 490,
    ]

    /// A priority written as a name or a number literal (as inside expressions: `~ 750`, `@ high`).
    /// - Returns: nil when `text` is neither a known name nor a number in (0, 1000].
    public static func parse(_ text: String) -> Double? {
        if let v = names[text] { return v }
        guard let v = Double(text), isValid(v) else { return nil }
        return v
    }

    /// The priority name nearest to a misspelt one (`requird` → `required`); nil for numbers.
    public static func suggestion(for text: String) -> String? {
        guard Double(text) == nil else { return nil }
        return Suggestion.nearest(text, among: orderedNames)
    }

    /// `names` in the order of document.md §5's table (a stable tie-break for suggestions).
    static let orderedNames = ["required", "defaultHigh", "high", "dragThatCanResizeWindow", "medium", "windowSizeStayPut",
                               "dragThatCannotResizeWindow", "defaultLow", "low", "fittingSizeLevel", "fittingSize"]

    public static func isValid(_ v: Double) -> Bool { v.isFinite && v > 0 && v <= 1000 }

    /// A priority field's JSON value.
    /// - Returns: the priority, or a problem (code `invalid_priority`) at `pointer`.
    public static func parse(_ value: JSONValue, pointer: String) -> Result<Double, Problem> {
        switch value {
        case .number(let v) where isValid(v):
            return .success(v)
        case .string(let s):
            if let v = names[s] { return .success(v) }
            let near = suggestion(for: s)
            return .failure(Problem(pointer: pointer, code: "invalid_priority",
                                    detail: "unknown priority name '\(s)' (use a number in (0, 1000] or one of \(names.keys.sorted().joined(separator: ", ")))"
                                        + Suggestion.phrase(near), suggestion: near))
        default:
            return .failure(Problem(pointer: pointer, code: "invalid_priority",
                                    detail: "priority must be a number in (0, 1000] or a name, got \(value.typeName)\(value.numberValue.map { " \($0)" } ?? "")"))
        }
    }
}
