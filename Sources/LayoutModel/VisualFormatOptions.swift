import JSON

/// The `options` of a visual format entry: `alignAll…` attributes and the direction.
struct VisualFormatOptions {
    var alignments: [Attribute] = []
    var direction: VisualChain.Direction = .leadingToTrailing

    static let alignmentNames: [String: Attribute] = [
        "alignAllTop": .top, "alignAllBottom": .bottom, "alignAllLeading": .leading,
        "alignAllTrailing": .trailing, "alignAllLeft": .left, "alignAllRight": .right,
        "alignAllCenterX": .centerX, "alignAllCenterY": .centerY,
        "alignAllFirstBaseline": .firstBaseline, "alignAllLastBaseline": .lastBaseline,
        "alignAllBaseline": .lastBaseline,
    ]

    static let directionNames: [String: VisualChain.Direction] = [
        "directionLeadingToTrailing": .leadingToTrailing, "directionLeftToRight": .leftToRight,
        "directionRightToLeft": .rightToLeft,
    ]

    /// Reads `options` (problems at `/options/i`); `vertical` is the format's orientation.
    static func parse(_ options: [JSONValue]?, vertical: Bool) -> (VisualFormatOptions, [EntryProblem]) {
        var result = VisualFormatOptions()
        var problems: [EntryProblem] = []
        var directionName: String?
        for (i, value) in (options ?? []).enumerated() {
            let pointer = "/options/\(i)"
            guard case .string(let raw) = value else {
                problems.append(EntryProblem(pointer, .invalidOption, "an option must be a string, got \(value.typeName)"))
                continue
            }
            // Swift spells them `.alignAllTop`; accept that too.
            let name = raw.hasPrefix(".") ? String(raw.dropFirst()) : raw
            if let attribute = alignmentNames[name] {
                let formatAxis: Attribute.Axis = vertical ? .vertical : .horizontal
                if attribute.axis == formatAxis {
                    problems.append(EntryProblem(
                        pointer, .invalidOption,
                        "\(name) aligns along the format's own axis (\(vertical ? "V" : "H")); "
                            + "use a \(vertical ? "horizontal" : "vertical") alignment"))
                } else if !result.alignments.contains(attribute) {
                    result.alignments.append(attribute)
                }
            } else if let direction = directionNames[name] {
                if let previous = directionName, previous != name {
                    problems.append(EntryProblem(pointer, .invalidOption, "\(name) contradicts \(previous); give one direction"))
                } else {
                    directionName = name
                    result.direction = direction
                }
            } else {
                let known = (Array(alignmentNames.keys) + Array(directionNames.keys)).sorted()
                problems.append(EntryProblem(pointer, .unknownOption, "unknown option '\(raw)' (known: \(known.joined(separator: ", ")))"))
            }
        }
        return (result, problems)
    }
}

/// The `metrics` of a visual format entry: names to numbers.
struct VisualFormatMetrics {
    enum Lookup {
        case value(Double)
        /// Present but not a usable number (already reported at `/metrics/name`).
        case invalid
        case missing
    }

    private var values: [String: Double] = [:]
    private var invalid: Set<String> = []

    /// Reads `metrics`; problems at `/metrics/name` for values that are not finite numbers in range.
    static func parse(_ metrics: JSONObject?, context: CompileContext) -> (VisualFormatMetrics, [EntryProblem]) {
        var result = VisualFormatMetrics()
        var problems: [EntryProblem] = []
        for (name, value) in metrics?.entries ?? JSONObject().entries {
            let pointer = "/metrics/\(jsonPointerToken(name))"
            guard case .number(let v) = value else {
                result.invalid.insert(name)
                problems.append(EntryProblem(pointer, .invalidMetric, "metric '\(name)' must be a number, got \(value.typeName)"))
                continue
            }
            guard v.isFinite, abs(v) <= context.maxMagnitude else {
                result.invalid.insert(name)
                problems.append(EntryProblem(
                    pointer, .numberOutOfRange,
                    "metric '\(name)' = \(v) is outside ±\(VisualFormatProblems.formatNumber(context.maxMagnitude))"))
                continue
            }
            result.values[name] = v
        }
        return (result, problems)
    }

    func lookup(_ name: String) -> Lookup {
        if let v = values[name] { return .value(v) }
        return invalid.contains(name) ? .invalid : .missing
    }
}
