import JSON

/// What the constraint-language compilers (object form, expressions, visual formats, helpers) know
/// about the document while they expand one constraint entry into `LinearConstraint`s.
public struct CompileContext: Sendable {
    /// Every view of the document by id (already parsed; the ids are valid).
    public var views: ViewLookup
    /// The entry's dialect (its own `dialect` field, else the document's).
    public var dialect: Dialect
    /// The priority the entry's `priority` field gives, or nil when it has none.
    public var priorityField: Double?
    /// Largest magnitude allowed for a number.
    public var maxMagnitude: Double
    /// Tables over `views` that the document parser builds once per document (fast paths only; nil
    /// when the context was made elsewhere). Must describe exactly `views`.
    var table: ViewTable?

    public init(views: ViewLookup, dialect: Dialect, priorityField: Double?, maxMagnitude: Double) {
        self.views = views; self.dialect = dialect; self.priorityField = priorityField
        self.maxMagnitude = maxMagnitude
    }

    /// The priority an item gets when its syntax names none: the field's, else required.
    public var defaultPriority: Double { priorityField ?? Priority.required }
}

/// A problem inside one constraint entry; `pointer` is relative to the entry (`""` = the entry
/// itself, `"/second"`, `"/expr"`, `"/metrics/pad"`), the document parser prefixes the entry's pointer.
public struct EntryProblem: Error, Equatable, Sendable {
    public var pointer: String
    public var code: String
    public var detail: String
    /// See `Problem.suggestion`.
    public var suggestion: String?
    public init(pointer: String = "", code: String, detail: String, suggestion: String? = nil) {
        self.pointer = pointer; self.code = code; self.detail = detail; self.suggestion = suggestion
    }
}
