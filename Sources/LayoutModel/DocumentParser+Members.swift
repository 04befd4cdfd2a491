import JSON

// Validation of single members of a valid document, for edits that change a few views or
// constraint entries in place (a merge patch on a session). Each answers exactly what
// `DocumentParser.parse` would report for that member inside the patched canonical document,
// with the same pointers (`/views/<id>/…`, `/constraints/<id>/…`), provided the edit leaves every
// other member, the view ids and the view hierarchy as they were: then no other member's
// validity can change.

extension DocumentParser {
    /// Validates the view `id` of `document` as `value` (its canonical JSON after the edit).
    ///
    /// - Parameter viewPositions: the document's view ids (→ position), for the parent check.
    /// - Precondition: `value` names the same parent and kind as the view it replaces (the caller
    ///   checks the edit does not touch `parent` or `kind`), so the hierarchy stays as validated.
    /// - Returns: the view, or every problem of this member.
    public static func parseView(_ value: JSONValue, id: String, viewPositions: [String: Int],
                                 limits: DocumentLimits = .default) -> Result<View, ValidationError> {
        var parser = ViewParser(limits: limits)
        guard case .object(let object) = value else {
            return .failure(ValidationError([Problem(docPointer("/views", id), .invalidType,
                                                     "a view is an object, got \(value.typeName)")]))
        }
        let view = parser.parseKeyed(object, id: id, at: "/views", known: viewPositions)
        return parser.problems.isEmpty ? .success(view) : .failure(ValidationError(parser.problems))
    }

    /// Validates the constraint entry `id` as `value` (its canonical JSON after the edit) against
    /// the views and dialect of the document `context` was made for.
    ///
    /// - Returns: the entry, or every problem of this member.
    public static func parseConstraint(_ value: JSONValue, id: String, context: MemberContext,
                                       limits: DocumentLimits = .default) -> Result<ConstraintEntry, ValidationError> {
        var parser = ConstraintsParser(limits: limits, views: context.views, dialect: context.dialect, compile: true,
                                       table: context.table)
        parser.parseKeyed(value, id: id, at: "/constraints")
        if !parser.problems.isEmpty { return .failure(ValidationError(parser.problems)) }
        guard let entry = parser.entries.first else {
            return .failure(ValidationError([Problem(docPointer("/constraints", id), .invalidType,
                                                     "not a constraint")]))
        }
        return .success(entry)
    }
}

/// What validating single constraint entries of a document needs beyond its views, made once and
/// kept while the document's view ids, parents, kinds and given root sizes stay the same (the only
/// view facts a constraint's validity depends on).
public final class MemberContext: Sendable {
    /// The views as they were when the context was made (later edits may change their other
    /// fields: validation does not read those).
    let views: ViewLookup
    let table: ViewTable
    let dialect: Dialect

    /// - Parameter viewPositions: `document.views`' ids → position.
    public init(document: Document, viewPositions: [String: Int]) {
        views = ViewLookup(document.views, index: viewPositions)
        table = ViewTable(views: document.views, index: viewPositions)
        dialect = document.dialect
    }
}
