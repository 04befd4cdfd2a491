/// Every stable problem code a layout document can be rejected with (HTTP 422), with a one-line
/// meaning. Codes are part of the API: clients match on them, so a code is never renamed.
///
/// Use `ProblemCode.x.rawValue` (or `Problem(pointer, .x, detail)`) instead of string literals.
public enum ProblemCode: String, CaseIterable, Sendable {
    // Structure and types
    case invalidType = "invalid_type"
    case missingField = "missing_field"
    case unknownField = "unknown_field"
    case invalidValue = "invalid_value"

    // Ids and references
    case invalidID = "invalid_id"
    case duplicateID = "duplicate_id"
    case unknownView = "unknown_view"
    case parentCycle = "parent_cycle"
    case noViews = "no_views"
    case notForGuide = "not_for_guide"

    // Numbers
    case numberOutOfRange = "number_out_of_range"
    case negativeSize = "negative_size"
    case outOfRange = "out_of_range"
    case invalidPriority = "invalid_priority"

    // Limits
    case tooManyViews = "too_many_views"
    case tooManyConstraints = "too_many_constraints"
    case tooLong = "too_long"

    // Constraint entries
    case unknownConstraintForm = "unknown_constraint_form"
    case unknownAttribute = "unknown_attribute"
    case syntax = "syntax"

    // Anchors, relations, numbers inside constraint forms (ObjectFormCompiler, ExpressionCompiler)
    case invalidAnchor = "invalid_anchor"
    case invalidRelation = "invalid_relation"
    case invalidConstant = "invalid_constant"
    case invalidMultiplier = "invalid_multiplier"
    case invalidInset = "invalid_inset"
    case componentMismatch = "component_mismatch"
    case duplicatePriority = "duplicate_priority"
    case nonLinear = "non_linear"
    case divisionByZero = "division_by_zero"
    case nonConstantTuple = "non_constant_tuple"

    // Visual formats
    case invalidMetric = "invalid_metric"
    case unknownMetric = "unknown_metric"
    case invalidOption = "invalid_option"
    case unknownOption = "unknown_option"
    case noSuperview = "no_superview"

    // Auto Layout's rules (ConstraintRules)
    case noAnchor = "no_anchor"
    case crossAxis = "cross_axis"
    case mixedDirection = "mixed_direction"
    case positionConstant = "position_constant"
    case noCommonRoot = "no_common_root"

    // Activation
    case solvedSizeInPredicate = "solved_size_in_predicate"

    // Stack views
    case invalidArrangement = "invalid_arrangement"

    // Text that wraps
    case conflictingFields = "conflicting_fields"
    case notAscending = "not_ascending"
    case emptyList = "empty_list"

    /// What the code means, in one line (for the docs and `GET /v1/problems`-style listings).
    public var meaning: String {
        switch self {
        case .invalidType: return "A value has the wrong JSON type (e.g. a string where a number is expected)."
        case .missingField: return "A required field is absent (`views`, an array entry's `id`, `first`, a helper's `views`)."
        case .unknownField: return "A field that this place of the document does not define; check its spelling."
        case .invalidValue: return "A string that is not one of the allowed words (direction, dialect, kind, activation, helper)."
        case .invalidID: return "An id that is not 1-128 letters, digits, `_`, `-`, `#` (view and constraint ids must not contain `.`)."
        case .duplicateID: return "Two views, or two constraints, have the same id."
        case .unknownView: return "A reference (parent, anchor, helper view, predicate) names a view the document does not define."
        case .parentCycle: return "Views' `parent` fields form a cycle; reported once per cycle."
        case .noViews: return "The document must define at least one view."
        case .notForGuide: return "A layout guide has no intrinsic size, margins, baselines or visibility of its own."
        case .numberOutOfRange: return "A number is NaN, infinite or larger in magnitude than the configured limit."
        case .negativeSize: return "A frame width/height or intrinsic size is negative."
        case .outOfRange: return "A number outside its allowed range (alpha must be in 0...1)."
        case .invalidPriority: return "A priority that is neither a number in (0, 1000] nor a known name."
        case .tooManyViews: return "The document has more views than the daemon's limit."
        case .tooManyConstraints: return "The document has more constraint entries than the daemon's limit."
        case .tooLong: return "A string the server ignores but keeps (`$schema`) is longer than it keeps (2,048 characters)."
        case .unknownConstraintForm: return "A constraint entry has none of `first`, `expr`, `format`, `align`, `distribute` and is not a string."
        case .unknownAttribute: return "An attribute name that the anchor vocabulary does not know."
        case .syntax: return "A syntax error in an expression, visual format or `when` predicate; the detail gives the column."
        case .invalidAnchor: return "An anchor that is not `viewId.attribute`."
        case .invalidRelation: return "A relation other than `==`, `>=`, `<=` (or equal, greaterThanOrEqual, lessThanOrEqual; `|=|` `|>|` `|<|` in expressions)."
        case .invalidConstant: return "A constant whose form does not fit the anchor (e.g. a 3-array for `size`)."
        case .invalidMultiplier: return "A multiplier that is not a number or an array with one number per component."
        case .invalidInset: return "An inset constant that is not a number, a pair, a 4-array or {top, left, bottom, right}."
        case .componentMismatch: return "The two sides name composites whose components do not pair up (e.g. `size` with `center`)."
        case .duplicatePriority: return "A priority given both in the expression (`~ 750`) and in the entry's `priority` field."
        case .nonLinear: return "An expression multiplies or divides two anchors; only linear relations are accepted."
        case .divisionByZero: return "An expression divides by zero."
        case .nonConstantTuple: return "A tuple `(a, b)` holds something other than numbers."
        case .invalidMetric: return "A visual-format metric that is not a number (or metrics given to the Visually form)."
        case .unknownMetric: return "A visual format names a metric that `metrics` does not define."
        case .invalidOption: return "A visual-format option of the wrong type or conflicting with another (or options given to the Visually form)."
        case .unknownOption: return "A visual-format option name that is not one of NSLayoutFormatOptions."
        case .noSuperview: return "A visual format uses `|` but its views have no common superview."
        case .noAnchor: return "A constraint relates no anchor (its terms cancel out)."
        case .crossAxis: return "A horizontal and a vertical position in one constraint."
        case .mixedDirection: return "leading/trailing mixed with left/right in one constraint."
        case .positionConstant: return "A position equal to a bare constant with no other anchor (allowed only in the mortar dialect)."
        case .noCommonRoot: return "The views of one constraint share no root."
        case .solvedSizeInPredicate: return "A `when` predicate compares a size that is solved; only a root's input width/height may be compared."
        case .invalidArrangement: return "A stack's arranged view has another parent, is listed twice or by two stacks, or is the stack itself."
        case .conflictingFields: return "Two fields that say the same thing: `text` with `heightForWidth`, or either with `intrinsicSize.height`."
        case .notAscending: return "`heightForWidth` widths that do not ascend strictly."
        case .emptyList: return "A list that needs at least one entry is empty (`text.wordWidths`, `heightForWidth`)."
        }
    }
}

extension Problem {
    /// A problem with a registered code.
    public init(_ pointer: String, _ code: ProblemCode, _ detail: String, suggestion: String? = nil) {
        self.init(pointer: pointer, code: code.rawValue, detail: detail, suggestion: suggestion)
    }
}

extension EntryProblem {
    /// An entry problem with a registered code; `pointer` is relative to the entry.
    public init(_ pointer: String, _ code: ProblemCode, _ detail: String, suggestion: String? = nil) {
        self.init(pointer: pointer, code: code.rawValue, detail: detail, suggestion: suggestion)
    }
}

// The module's results carry problems as their failure: `Priority.parse(_:pointer:)` returns
// `Result<Double, Problem>` and every constraint compiler `Result<[LinearConstraint], [EntryProblem]>`,
// so both failure types must be `Error`s.
extension Problem: Error {}
extension Array: @retroactive Error where Element == EntryProblem {}
