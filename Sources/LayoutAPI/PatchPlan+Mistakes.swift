import JSON
import LayoutEngine
import LayoutModel

/// "No silent mistakes" (issue 30): what a merge patch would do by accident is refused or read
/// as meant, before the patch is classified.
extension PatchPlan {
    /// View fields that only make sense on a view that exists: a patch giving them to an id the
    /// document does not have is a misspelt id far more often than a new root view.
    static let existingOnlyViewFields: Set<String> = editableViewFields

    /// The patch as it will be applied, or the problems that refuse it (422, nothing changed).
    ///
    /// - A view id the document does not have, given existing-only fields and neither `parent`
    ///   nor `kind`: `unknown_view` at `/views/<id>` with the nearest existing id. `"parent": null`
    ///   says "a new root" (merge patch drops it, so the view is created without a parent).
    /// - `{"constant": n}` (alone) on an expression-string entry: when the string makes one
    ///   constraint, the patch becomes the string with its constant replaced
    ///   (`ExpressionCompiler.replacingConstant`); otherwise `invalid_constant` asking for the new
    ///   string (an object would replace the string and fail as an object form without `first`).
    static func guarded(_ patch: JSONValue, canonical: CanonicalDocument, system: LayoutSystem)
        -> Result<JSONValue, ValidationError> {
        guard case .object(var top) = patch else { return .success(patch) }
        var problems: [Problem] = []
        if case .object(let views)? = top["views"] {
            problems += newViewProblems(views, system: system)
        }
        if case .object(var entries)? = top["constraints"] {
            var rewritten = false
            var views: ViewLookup?
            for (id, change) in entries.entries {
                guard case .object(let fields) = change, fields.count == 1,
                      case .number(let constant)? = fields["constant"],
                      let position = system.entryPosition(id),
                      let text = Self.expressionText(canonical, at: position) else { continue }
                let entry = system.document.constraints[position]
                if views == nil { views = ViewLookup(system.document.views, index: system.viewPositions) }
                if entry.items.count == 1,
                   let replaced = ExpressionCompiler.replacingConstant(in: text, with: constant, views: views!) {
                    entries[id] = .string(replaced)
                    rewritten = true
                } else {
                    let pointer = "/constraints/" + jsonPointerToken(id) + "/constant"
                    problems.append(Problem(pointer, .invalidConstant,
                        "constraint '\(id)' is the expression \"\(text)\", which makes \(entry.items.count) constraints; "
                        + "a constant cannot change them in place: send the new expression string instead"))
                }
            }
            if rewritten { top["constraints"] = .object(entries) }
        }
        if !problems.isEmpty { return .failure(ValidationError(problems)) }
        return .success(.object(top))
    }

    private static func newViewProblems(_ views: JSONObject, system: LayoutSystem) -> [Problem] {
        var problems: [Problem] = []
        for (id, change) in views.entries where system.viewPositions[id] == nil {
            guard case .object(let fields) = change, fields["parent"] == nil, fields["kind"] == nil,
                  fields.keys.contains(where: existingOnlyViewFields.contains) else { continue }
            let near = Suggestion.nearest(id, among: system.document.views.lazy.map(\.id))
            problems.append(Problem("/views/" + jsonPointerToken(id), .unknownView,
                "no view '\(id)' in the document (a patch creates a view only when it names its \"parent\", "
                + "or \"parent\": null for a new root)" + Suggestion.phrase(near), suggestion: near))
        }
        return problems
    }

    /// The entry's text when the canonical document holds it as an expression string.
    private static func expressionText(_ canonical: CanonicalDocument, at position: Int) -> String? {
        guard case .string(let s)? = canonical.member(.constraints, at: position) else { return nil }
        return s
    }
}
