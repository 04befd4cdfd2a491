import JSON

/// Validates a layout document (shared/spec/document.md) and builds the `Document` the engine solves.
///
/// Every problem is reported at once, each with an RFC 6901 pointer into the input as written
/// (array-form entries are pointed at by index: `/views/3/parent`), in document order: top-level
/// fields in the order they are written, views and constraints entry by entry, fields in order.
/// Never traps and never loops on any JSON value: parent cycles are detected, counts are limited
/// before entries are read.
public enum DocumentParser {
    static let topLevelFields = ["direction", "dialect", "views", "constraints", "flags", "delegate", "$schema"]
    /// Longest `$schema` accepted, in characters (Unicode scalars, as JSON Schema's `maxLength`
    /// counts): far more than any URL an editor writes. The member has no effect yet is kept in
    /// the canonical document, so without a bound it was free padding: a 1 MB `$schema` is cheap
    /// to solve and cost its megabyte in memory and in the store for every session (issue 27).
    public static let maxSchemaLength = 2_048

    public static func parse(_ json: JSONValue, limits: DocumentLimits = .default) -> Result<Document, ValidationError> {
        guard case .object(let top) = json else {
            return .failure(ValidationError([Problem("", .invalidType,
                "a layout document is a JSON object with \"views\" (and usually \"constraints\"), got \(json.typeName)")]))
        }
        var document = Document()
        // Problems per top-level key, emitted in the order the keys are written.
        var byKey: [String: [Problem]] = [:]
        var leading: [Problem] = []
        // Constraints are compiled only against a usable view tree (see ConstraintsParser.compile).
        var viewTreeSound = top["views"] != nil
        var viewIndex: [String: Int]?

        if top["views"] == nil {
            leading.append(Problem("/views", .missingField,
                                   "a document needs \"views\": an object keyed by view id with at least one view"))
        }
        for (key, value) in top.entries where key != "constraints" {
            let at = docPointer("", key)
            var reader = FieldReader(maxMagnitude: limits.maxMagnitude)
            switch key {
            case "direction":
                document.direction = reader.word(value, at: at, what: "direction",
                                                 choices: [("ltr", LayoutDirection.leftToRight), ("rtl", .rightToLeft)])
                    ?? .leftToRight
            case "dialect":
                document.dialect = reader.word(value, at: at, what: "dialect",
                                               choices: Dialect.allCases.map { ($0.rawValue, $0) }) ?? .standard
            case "views":
                var views = ViewParser(limits: limits)
                views.parse(value, at: at)
                reader.problems = views.problems
                document.views = views.views
                viewIndex = views.viewIndex
                viewTreeSound = !views.hierarchyBroken && !views.problems.contains {
                    $0.code == ProblemCode.tooManyViews.rawValue || $0.code == ProblemCode.noViews.rawValue
                        || ($0.pointer == at && $0.code == ProblemCode.invalidType.rawValue)
                }
            case "flags":
                document.flags = booleans(value, at: at, reader: &reader, what: "flag")
            case "delegate":
                // Keys are constraint ids. An entry for an id the document does not define is accepted:
                // a client may set the switch before it adds the constraint (a new delegate constraint
                // then starts in that state), or keep it after removing one.
                document.delegate = booleans(value, at: at, reader: &reader, what: "delegate switch")
            case "$schema":
                // The URL of docs/layout-document.schema.json, for editors that complete and check
                // a document from it; a string, otherwise ignored (kept in the canonical document).
                if let url = reader.string(value, at: at), url.unicodeScalars.count > maxSchemaLength {
                    reader.report(at, .tooLong, "\"$schema\" has \(url.unicodeScalars.count) characters; at most "
                                  + "\(maxSchemaLength) are kept (it is a URL, ignored by the server)")
                }
            default:
                reader.report(at, .unknownField, "unknown top-level field '\(key)'; allowed: "
                              + topLevelFields.joined(separator: ", "), suggestion: Suggestion.nearest(key, among: topLevelFields))
            }
            byKey[key] = reader.problems
        }
        if let value = top["constraints"] {
            var constraints = ConstraintsParser(limits: limits, views: ViewLookup(document.views, index: viewIndex),
                                                dialect: document.dialect,
                                                compile: viewTreeSound,
                                                table: ViewTable(views: document.views, index: viewIndex))
            constraints.parse(value, at: "/constraints")
            byKey["constraints"] = constraints.problems
            document.constraints = constraints.entries
        }
        let problems = leading + top.keys.flatMap { byKey[$0] ?? [] }
        return problems.isEmpty ? .success(document) : .failure(ValidationError(problems))
    }

    /// An object of booleans (`flags`, `delegate`), in document order.
    private static func booleans(_ value: JSONValue, at: String, reader: inout FieldReader,
                                 what: String) -> [String: Bool] {
        guard let o = reader.object(value, at: at) else { return [:] }
        var out: [String: Bool] = [:]
        for (k, v) in o.entries {
            if case .bool(let b) = v { out[k] = b } else {
                reader.typeMismatch(v, expected: "true or false for \(what) '\(k)'", at: docPointer(at, k))
            }
        }
        return out
    }
}
