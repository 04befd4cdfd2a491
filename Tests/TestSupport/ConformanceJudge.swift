import JSON

/// Judges a `{frames, diagnostics}` answer against a conformance case's `expect`, as
/// shared/conformance/README.md says: determined frames within 1e-5 and never -0, broken ids in
/// order, ambiguous and inactive as sets when the case lists them. Shared by the API and daemon
/// tests.
public enum ConformanceJudge {
    /// Every way the answer differs from the expectation (empty when it passes).
    public static func problems(_ answer: JSONValue, _ expect: JSONValue) -> [String] {
        var issues: [String] = []
        let got = answer["frames"]?.objectValue ?? JSONObject()
        for (id, want) in expect["frames"]?.objectValue?.entries.map({ ($0, $1) }) ?? [] {
            guard let frame = got[id] else {
                issues.append("no frame for \(id)")
                continue
            }
            for field in ["x", "y", "width", "height"] {
                let expected = want[field]?.numberValue ?? .nan
                guard let value = frame[field]?.numberValue else {
                    issues.append("\(id).\(field) missing")
                    continue
                }
                if !(abs(value - expected) <= 1e-5) { issues.append("\(id).\(field) = \(value), expected \(expected)") }
                if value == 0 && value.sign == .minus { issues.append("\(id).\(field) is -0") }
            }
        }
        let diagnostics = answer["diagnostics"]
        let wantBroken = strings(expect["broken"])
        if brokenIDs(diagnostics) != wantBroken {
            issues.append("broken \(brokenIDs(diagnostics)), expected \(wantBroken)")
        }
        if let ambiguous = expect["ambiguous"], Set(strings(diagnostics?["ambiguous"])) != Set(strings(ambiguous)) {
            issues.append("ambiguous \(strings(diagnostics?["ambiguous"])), expected \(strings(ambiguous))")
        }
        if let inactive = expect["inactive"], Set(strings(diagnostics?["inactive"])) != Set(strings(inactive)) {
            issues.append("inactive \(strings(diagnostics?["inactive"])), expected \(strings(inactive))")
        }
        return issues
    }

    public static func strings(_ value: JSONValue?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }

    public static func brokenIDs(_ diagnostics: JSONValue?) -> [String] {
        (diagnostics?["broken"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }
}
